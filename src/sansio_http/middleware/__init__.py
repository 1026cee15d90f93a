"""The middleware floor: the middleware that ships with the toolkit.

CORS, gzip and signed-cookie sessions, each written once on the middleware
model of :mod:`sansio_http.app` so that it runs under both adapters. Nothing
below this floor imports from it.

The modules here are private: users import these names from
:mod:`sansio_http`.
"""
