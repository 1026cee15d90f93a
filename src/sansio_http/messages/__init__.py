"""The messages floor: requests, responses, HTTP errors and what answers them.

:class:`~sansio_http.Request` and :class:`~sansio_http.Response`, the
:class:`~sansio_http.HTTPError` family, conditional and range answers, file
bodies, server-sent events, the checks of a request's head and the proxy
policy. Built on the header primitives of :mod:`sansio_http.http` and
nothing above them.

The modules here are private: users import these names from
:mod:`sansio_http`.
"""
