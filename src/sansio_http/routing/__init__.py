"""URL routing: rules with typed placeholders, matched by a segment tree.

A :class:`Router` holds :class:`Rule` objects such as
``/users/<int:id>/files/<path:rest>``. Rules are kept in a tree of path
segments, which the first match after a change compiles into Python source
(as Falcon's router does): a static segment is one comparison or dictionary
lookup, a placeholder is one converter match, so matching costs the depth of
the path and not the number of rules; a path made of static segments only is
one lookup in all. Matching answers 404 or 405 (with the allowed methods)
as HTTP errors, and a 204 to an OPTIONS request no rule takes (with the
allowed methods) or a 308 redirect to the same path with a trailing slash
as routing answers, exceptions that carry a response but are not errors
(:class:`RoutingAnswer`); building
URLs (``url_for``) runs the converters the other way, to percent-encoded
URLs that stay on the host and that matching gives the same values back for.
A rule may also name its host (``<tenant>.example.com``): given the
request's host, the rules of the hosts it fits come before the others.

Everything here is pure: paths are the already percent-decoded text that
``Request.path`` holds. The floor sits on the messages (errors and
responses) and is independent of the body decoders.
"""

from __future__ import annotations

from sansio_http.routing._answers import AllowedMethods as AllowedMethods
from sansio_http.routing._answers import RequestRedirect as RequestRedirect
from sansio_http.routing._answers import RoutingAnswer as RoutingAnswer
from sansio_http.routing._converters import AnyConverter as AnyConverter
from sansio_http.routing._converters import Converter as Converter
from sansio_http.routing._converters import FloatConverter as FloatConverter
from sansio_http.routing._converters import IntegerConverter as IntegerConverter
from sansio_http.routing._converters import PathConverter as PathConverter
from sansio_http.routing._converters import StringConverter as StringConverter
from sansio_http.routing._converters import UUIDConverter as UUIDConverter
from sansio_http.routing._router import Router as Router
from sansio_http.routing._rules import Rule as Rule

__all__ = [
    "AllowedMethods",
    "AnyConverter",
    "Converter",
    "FloatConverter",
    "IntegerConverter",
    "PathConverter",
    "RequestRedirect",
    "Router",
    "RoutingAnswer",
    "Rule",
    "StringConverter",
    "UUIDConverter",
]
