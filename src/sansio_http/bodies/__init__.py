"""The body floor: decoders that are fed a request body in chunks.

Form decoding (``application/x-www-form-urlencoded`` and
``multipart/form-data``) with its limits and upload spooling, JSON decoding,
and :class:`~sansio_http.BodyRequest`, the body API that both adapters'
requests share. Built on the messages and the header primitives; nothing
here routes or dispatches.

The modules here are private: users import these names from
:mod:`sansio_http`.
"""
