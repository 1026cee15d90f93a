"""HTTP header parsing: the public home of every header parser.

Each parser takes the header's text, as :class:`~sansio_http.Headers` hands
it out, or None when the header is absent. None of them raises on malformed
input: each returns an empty or ``None`` result, documented with it, and
runs in linear time whatever the input. The few functions that build header
values raise :class:`ValueError` when given what no header can carry.

>>> from sansio_http.http import MIMEAccept, parse_accept_header
>>> accept = parse_accept_header("text/html, */*;q=0.8", MIMEAccept)
>>> accept.best_match(["application/json", "text/html"])
'text/html'
"""

from __future__ import annotations

from sansio_http.http._parsers.accept import Accept as Accept
from sansio_http.http._parsers.accept import CharsetAccept as CharsetAccept
from sansio_http.http._parsers.accept import EncodingAccept as EncodingAccept
from sansio_http.http._parsers.accept import LanguageAccept as LanguageAccept
from sansio_http.http._parsers.accept import MIMEAccept as MIMEAccept
from sansio_http.http._parsers.accept import parse_accept_header as parse_accept_header
from sansio_http.http._parsers.auth import Authorization as Authorization
from sansio_http.http._parsers.auth import parse_authorization as parse_authorization
from sansio_http.http._parsers.cache import MAX_DELTA_SECONDS as MAX_DELTA_SECONDS
from sansio_http.http._parsers.cache import RequestCacheControl as RequestCacheControl
from sansio_http.http._parsers.cache import ResponseCacheControl as ResponseCacheControl
from sansio_http.http._parsers.cache import parse_cache_control as parse_cache_control
from sansio_http.http._parsers.cache import (
    parse_response_cache_control as parse_response_cache_control,
)
from sansio_http.http._parsers.cookies import parse_cookie as parse_cookie
from sansio_http.http._parsers.dates import http_date as http_date
from sansio_http.http._parsers.dates import parse_date as parse_date
from sansio_http.http._parsers.etags import ETags as ETags
from sansio_http.http._parsers.etags import IfRange as IfRange
from sansio_http.http._parsers.etags import parse_etags as parse_etags
from sansio_http.http._parsers.etags import parse_if_range as parse_if_range
from sansio_http.http._parsers.etags import quote_etag as quote_etag
from sansio_http.http._parsers.etags import unquote_etag as unquote_etag
from sansio_http.http._parsers.forwarded import parse_forwarded as parse_forwarded
from sansio_http.http._parsers.options import dump_options_header as dump_options_header
from sansio_http.http._parsers.options import parse_dict_header as parse_dict_header
from sansio_http.http._parsers.options import parse_list_header as parse_list_header
from sansio_http.http._parsers.options import parse_options_header as parse_options_header
from sansio_http.http._parsers.ranges import DEFAULT_MAX_RANGES as DEFAULT_MAX_RANGES
from sansio_http.http._parsers.ranges import Range as Range
from sansio_http.http._parsers.ranges import content_range as content_range
from sansio_http.http._parsers.ranges import parse_range as parse_range
from sansio_http.http._parsers.ranges import unsatisfied_range as unsatisfied_range

__all__ = [
    "DEFAULT_MAX_RANGES",
    "MAX_DELTA_SECONDS",
    "Accept",
    "Authorization",
    "CharsetAccept",
    "ETags",
    "EncodingAccept",
    "IfRange",
    "LanguageAccept",
    "MIMEAccept",
    "Range",
    "RequestCacheControl",
    "ResponseCacheControl",
    "content_range",
    "dump_options_header",
    "http_date",
    "parse_accept_header",
    "parse_authorization",
    "parse_cache_control",
    "parse_cookie",
    "parse_date",
    "parse_dict_header",
    "parse_etags",
    "parse_forwarded",
    "parse_if_range",
    "parse_list_header",
    "parse_options_header",
    "parse_range",
    "parse_response_cache_control",
    "quote_etag",
    "unquote_etag",
    "unsatisfied_range",
]
