"""Reason phrases for HTTP status codes: our own table, after RFC 9110 §15.

The table lives here rather than coming from :class:`http.HTTPStatus` because the
standard library renamed several phrases in Python 3.13 (413, 414, 416, 422), and
a response must not change its status line with the interpreter that runs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["PHRASES", "reason_phrase"]

#: Reason phrases by status code (read-only), after RFC 9110 §15 and the RFCs that
#: registered the other codes in use.
PHRASES: Final[Mapping[int, str]] = MappingProxyType(
    {
        # 1xx Informational: RFC 9110 §15.2, plus 102 (RFC 2518) and 103 (RFC 8297).
        100: "Continue",
        101: "Switching Protocols",
        102: "Processing",
        103: "Early Hints",
        # 2xx Successful: RFC 9110 §15.3, plus WebDAV (RFC 4918, 5842) and 226 (RFC 3229).
        200: "OK",
        201: "Created",
        202: "Accepted",
        203: "Non-Authoritative Information",
        204: "No Content",
        205: "Reset Content",
        206: "Partial Content",
        207: "Multi-Status",
        208: "Already Reported",
        226: "IM Used",
        # 3xx Redirection: RFC 9110 §15.4 (306 is reserved and has no phrase in use).
        300: "Multiple Choices",
        301: "Moved Permanently",
        302: "Found",
        303: "See Other",
        304: "Not Modified",
        305: "Use Proxy",
        307: "Temporary Redirect",
        308: "Permanent Redirect",
        # 4xx Client Error: RFC 9110 §15.5, plus RFC 2324 (418), RFC 4918 (423, 424),
        # RFC 8470 (425), RFC 6585 (428, 429, 431) and RFC 7725 (451).
        400: "Bad Request",
        401: "Unauthorized",
        402: "Payment Required",
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        406: "Not Acceptable",
        407: "Proxy Authentication Required",
        408: "Request Timeout",
        409: "Conflict",
        410: "Gone",
        411: "Length Required",
        412: "Precondition Failed",
        413: "Content Too Large",
        414: "URI Too Long",
        415: "Unsupported Media Type",
        416: "Range Not Satisfiable",
        417: "Expectation Failed",
        418: "I'm a teapot",
        421: "Misdirected Request",
        422: "Unprocessable Content",
        423: "Locked",
        424: "Failed Dependency",
        425: "Too Early",
        426: "Upgrade Required",
        428: "Precondition Required",
        429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        # 5xx Server Error: RFC 9110 §15.6, plus RFC 2295 (506), RFC 4918 (507),
        # RFC 5842 (508), RFC 2774 (510) and RFC 6585 (511).
        500: "Internal Server Error",
        501: "Not Implemented",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
        505: "HTTP Version Not Supported",
        506: "Variant Also Negotiates",
        507: "Insufficient Storage",
        508: "Loop Detected",
        510: "Not Extended",
        511: "Network Authentication Required",
    }
)

# RFC 9110 §15: a client treats an unknown code as the x00 code of its class, so an
# unregistered code is best described by the name of that class.
_CLASS_PHRASES: Final = ("Informational", "Successful", "Redirection", "Client Error")
_SERVER_ERROR: Final = "Server Error"


def reason_phrase(status: int) -> str:
    """Return the reason phrase for ``status``, or its class name if unknown.

    Args:
        status: A status code between 100 and 599; it is not validated here.

    Returns:
        The RFC 9110 phrase, such as ``"Not Found"``, or for an unregistered
        code the name of its class, such as ``"Client Error"`` for 499.
    """
    phrase = PHRASES.get(status)
    if phrase is not None:
        return phrase
    index = status // 100 - 1
    return _CLASS_PHRASES[index] if 0 <= index < len(_CLASS_PHRASES) else _SERVER_ERROR
