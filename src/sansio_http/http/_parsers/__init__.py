"""HTTP header parsers, one private module per header family.

Users import these names from the public module :mod:`sansio_http.http`; the
modules here are private and may move. Each parser takes the header's text
(the Latin-1 ``str`` that :class:`~sansio_http.Headers` hands out) and never
raises on malformed input: it returns an empty or ``None`` result instead.
Every scanner here runs in linear time, whatever the input.

- ``tokens``: lexical pieces shared by all of them (tokens, quoted strings,
  splitting a list outside quoted strings).
- ``options``: ``Content-Type``-style values with parameters, list and dict
  headers.
- ``accept``: ``Accept``, ``Accept-Language``, ``Accept-Charset`` and
  ``Accept-Encoding`` with quality matching.
- ``dates``: HTTP dates in their three RFC 9110 formats.
- ``etags``: entity tags, ``If-Match`` / ``If-None-Match`` lists and
  ``If-Range``.
- ``ranges``: the ``Range`` header and ``Content-Range`` values.
- ``cache``: ``Cache-Control`` in its request and response forms.
- ``cookies``: the ``Cookie`` request header.
- ``auth``: the ``Authorization`` header.
- ``forwarded``: the RFC 7239 ``Forwarded`` header.
"""
