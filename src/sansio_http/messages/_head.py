"""Checks of a request head that hold whatever server parsed it.

A transport that hands a request to an application first asks here whether
the head is one the application may see: a request target of a form RFC 9112
§3.2 allows and a length the limits allow, one Host where HTTP/1.1 needs it,
unambiguous body framing, and header fields within their limits. The
development server applies the same rules and defaults while it parses;
the WSGI and ASGI adapters apply them again because servers such as uvicorn
and gunicorn do not (request smuggling through Content-Length plus
Transfer-Encoding, heads of any size, HTTP/1.1 without Host).

Each rule raises the :class:`~sansio_http.HTTPError` its status calls for;
nothing here performs I/O or keeps state between requests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from sansio_http.messages._errors import (
    BadRequest,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestURITooLong,
)
from sansio_http.messages._errors import NotImplemented as MethodNotImplemented
from sansio_http.messages._length import TOO_LARGE, parse_content_length
from sansio_http.messages._response import Response
from sansio_http.messages._target import parse_target

if TYPE_CHECKING:
    from sansio_http.messages._request import Request

__all__ = [
    "DEFAULT_HEAD_LIMITS",
    "HeadLimits",
    "check_framing",
    "check_head",
    "check_host",
    "check_target",
]


@dataclasses.dataclass(frozen=True)
class HeadLimits:
    """Limits on the request head, the same as the development server's.

    Attributes:
        max_target_size: Bytes allowed for the request target, query
            included; past it, 414. Nginx answers 414 past its 8 KiB buffer.
        max_header_count: Header fields allowed; past it, 431. Apache's
            ``LimitRequestFields`` default.
        max_header_size: Bytes allowed for the request line and the header
            fields, each field counted as ``name: value`` plus CRLF; past
            it, 431. Nginx's ``large_client_header_buffers`` default is
            4 x 8 KiB and h11's own cap is 16 KiB: 16 KiB fits every
            browser request.
    """

    max_target_size: int = 8 * 1024
    max_header_count: int = 100
    max_header_size: int = 16 * 1024


#: The limits the adapters apply unless given others.
DEFAULT_HEAD_LIMITS: Final = HeadLimits()


# PERF: a field name is lower-cased and compared only when its length is that
# of one of the three names checked here, so the loop over the fields costs
# one length lookup per field, whatever case the server gave the names in.
_HOST, _CONTENT_LENGTH, _TRANSFER_ENCODING = b"host", b"content-length", b"transfer-encoding"
_CONTENT_TYPE: Final = b"content-type"
# Fewer digits than this stay below 2**63 (TOO_LARGE), as parse_content_length reads them.
_PLAIN_LENGTH_DIGITS: Final = 19
_BODY_FIELDS: Final = frozenset({_CONTENT_LENGTH, _TRANSFER_ENCODING, _CONTENT_TYPE})
_WATCHED_SIZES: Final = frozenset(
    {len(_HOST), len(_CONTENT_LENGTH), len(_TRANSFER_ENCODING), len(_CONTENT_TYPE)}
)
# RFC 9112 §3.2: "Host" is required of HTTP/1.1 requests only; HTTP/2 and 3
# carry the authority in a pseudo-header that servers may or may not copy.
_NEEDS_HOST: Final = "1.1"
# SECURITY: the connection of a request whose framing is in doubt must not
# carry another request; "Connection: close" makes an ASGI server close it
# (the WSGI adapter drops the field: PEP 3333 leaves connections to servers).
_CLOSE: Final = {"Connection": "close"}


def check_target(
    method: str, target: bytes, path: str, host: bytes | None, limits: HeadLimits
) -> Response | None:
    """Refuse a request target the application must not see.

    RFC 9112 §3.2 allows four forms: origin-form (``/path?query``),
    absolute-form (``http://host/path``, whose authority must then match
    Host), asterisk-form (``*``, for OPTIONS only) and authority-form (for
    CONNECT only, which no application behind these adapters can serve).

    Args:
        method: The request method.
        target: The request target as sent, query included.
        path: The decoded path the server derived from it (``PATH_INFO`` or
            the scope's ``path``); it must start with ``/`` or be empty (the
            mount root, PEP 3333). It is never repaired: ``url`` or
            ``http://host/p`` left as a path would be routed as ``/url``.
        host: The Host field's value, or None without one.
        limits: The limits; ``max_target_size`` applies here.

    Returns:
        None to let the application answer, or the response to send
        instead: ``OPTIONS *`` asks about the server as a whole, so it gets
        a 204 without reaching the application (as in Go's net/http).

    Raises:
        RequestURITooLong: The target is longer than ``max_target_size``.
        BadRequest: The target or the path has no allowed form, or an
            absolute-form target names another authority than Host.
        NotImplemented: A CONNECT request.
    """
    if len(target) > limits.max_target_size:
        raise RequestURITooLong(f"The request target is longer than {limits.max_target_size} bytes")
    if method == "CONNECT":
        # RFC 9110 §9.3.6: a tunnel is a proxy's job; §9.1 answers a method
        # the server does not implement with 501.
        raise MethodNotImplemented("CONNECT is not supported")
    if target == b"*":
        if method != "OPTIONS":
            raise BadRequest("The asterisk target is only valid for OPTIONS")
        # RFC 9110 §9.3.7: no content, hence 204.
        return Response(b"", 204)
    if target[:1] != b"/":
        # The grammar of the forms is the development server's too; it
        # raises InvalidTarget, a 400, for anything but an http(s) URI here.
        authority = parse_target(method.encode("latin-1"), target).authority
        # RFC 9112 §3.2.2: absolute-form is accepted; RFC 9110 §7.2: a client
        # sends a Host identical to the target's authority. A mismatch means
        # a proxy routing by Host and the application would see two hosts,
        # so refuse it, as the development server does.
        if host is None or authority is None or authority.lower() != host.lower():
            raise BadRequest("The request target's authority does not match the Host header")
    if path[:1] != "/" and path:
        raise BadRequest("The request path must start with /")
    return None


def check_host(host_count: int, http_version: str) -> None:
    """Refuse a request without exactly one Host where HTTP/1.1 needs it.

    Args:
        host_count: How many Host field lines the request has.
        http_version: ``"1.0"``, ``"1.1"``, ``"2"`` or ``"3"``.

    Raises:
        BadRequest: An HTTP/1.1 request without Host, or any request with
            more than one (RFC 9112 §3.2: a server MUST answer both with 400).
    """
    if host_count > 1:
        raise BadRequest("More than one Host header")
    if host_count == 0 and http_version == _NEEDS_HOST:
        raise BadRequest("An HTTP/1.1 request needs a Host header")


def check_framing(content_lengths: Sequence[str], transfer_encoding: bool) -> int | None:
    """Refuse a request whose body framing is ambiguous or malformed.

    The errors carry ``Connection: close``: after them, the server and a
    proxy in front of it may disagree on where the next request starts.

    Args:
        content_lengths: The Content-Length field values; empty without one.
        transfer_encoding: Whether the request has a Transfer-Encoding.

    Returns:
        The Content-Length, or None without one.

    Raises:
        BadRequest: Both Content-Length and Transfer-Encoding (RFC 9112
            §6.3: "ought to be handled as an error", the request smuggling
            of §11.2), or an invalid Content-Length (RFC 9112 §6.3 item 5).
        RequestEntityTooLarge: A Content-Length of 2**63 or more, which no
            body can have.
    """
    if not content_lengths:
        return None
    if transfer_encoding:
        raise BadRequest("Content-Length and Transfer-Encoding together", headers=_CLOSE)
    try:
        length = parse_content_length(content_lengths)
    except BadRequest as exc:
        raise BadRequest(exc.detail, headers=_CLOSE) from None
    if length == TOO_LARGE:
        raise RequestEntityTooLarge("The body is larger than any this server accepts")
    return length


def check_head(
    method: str,
    target: bytes,
    path: str,
    http_version: str,
    fields: Sequence[tuple[bytes, bytes]],
    limits: HeadLimits = DEFAULT_HEAD_LIMITS,
    query: bytes = b"",
    request: Request | None = None,
) -> Response | None:
    """Refuse a request head the application must not see.

    Applies every rule of this module, in one pass over the fields: the
    limits, then :func:`check_host`, :func:`check_framing` and
    :func:`check_target`.

    Args:
        method: The request method.
        target: The request target as sent: with its query, or without it
            when ``query`` holds it.
        path: The decoded path the server derived from the target.
        http_version: ``"1.0"``, ``"1.1"``, ``"2"`` or ``"3"``.
        fields: The header fields as ``(name, value)`` bytes, as ASGI servers
            give them; names in any case.
        limits: The limits to apply.
        query: The query string without its ``?``, when ``target`` does not
            hold it (an ASGI scope keeps the two apart).
        request: The request built from these fields, if any: its
            ``content_length`` is set from the checked Content-Length and
            its ``content_type`` from the first Content-Type field, so that
            neither is looked up again (PERF: under ASGI the first lookup in
            the request's headers would scan them all).

    Returns:
        None to let the application answer, or the response to send
        instead (see :func:`check_target`).

    Raises:
        HTTPError: 414 or 431 past a limit, 400 or 413 as the checks above
            say, 501 for CONNECT.
    """
    target_size = len(target) + len(query) + 1 if query else len(target)
    if target_size > limits.max_target_size:
        raise RequestURITooLong(f"The request target is longer than {limits.max_target_size} bytes")
    if len(fields) > limits.max_header_count:
        raise RequestHeaderFieldsTooLarge(f"More than {limits.max_header_count} header fields")
    # As the development server counts: "METHOD target HTTP/1.1" and CRLF,
    # then "name: value" and CRLF for each field.
    size = len(method) + target_size + 12 + 4 * len(fields)
    host_count = 0
    host = None
    # The first Content-Length field, and the values of all of them when there are more.
    first_length: bytes | None = None
    lengths: list[str] | None = None
    transfer_encoding = False
    content_type: bytes | None = None
    watched = _WATCHED_SIZES
    for name, value in fields:
        name_size = len(name)
        size += name_size + len(value)
        if name_size in watched:
            name = name.lower()
            if name == _HOST:
                host_count += 1
                host = value
            elif name not in _BODY_FIELDS:
                # PERF: a name of a watched size that is none of them (Firefox and
                # Chrome send three Sec-Fetch-* fields of Content-Length's size) is
                # passed over with one lookup.
                continue
            elif name == _CONTENT_LENGTH:
                # PERF: a single field is kept as bytes, undecoded, in no list.
                if first_length is None:
                    first_length = value
                else:
                    if lengths is None:
                        lengths = [first_length.decode("latin-1")]
                    lengths.append(value.decode("latin-1"))
            elif name == _CONTENT_TYPE:
                if content_type is None:
                    content_type = value
            else:
                # The last of _BODY_FIELDS.
                transfer_encoding = True
    if size > limits.max_header_size:
        raise RequestHeaderFieldsTooLarge(
            f"The request head is larger than {limits.max_header_size} bytes"
        )
    # PERF: each check is called only when its inputs are not the common
    # case's: one Host, no Content-Length, an origin-form target.
    if host_count != 1:
        check_host(host_count, http_version)
    if first_length is None:
        length = None
    elif (
        lengths is None
        and not transfer_encoding
        and first_length.isdigit()
        and len(first_length) < _PLAIN_LENGTH_DIGITS
    ):
        # PERF: the usual single plain value, as parse_content_length reads it
        # (bytes.isdigit() is true of ASCII digits only), without its two calls;
        # anything else goes through check_framing.
        length = int(first_length)
    else:
        length = check_framing(
            [first_length.decode("latin-1")] if lengths is None else lengths, transfer_encoding
        )
    if request is not None:
        request.content_length = length
        # As Headers.get reads it: the first field, as latin-1 text.
        request.content_type = None if content_type is None else content_type.decode("latin-1")
    if target[:1] == b"/" and path[:1] == "/" and method != "CONNECT":
        return None
    if query:
        target += b"?" + query
    return check_target(method, target, path, host, limits)
