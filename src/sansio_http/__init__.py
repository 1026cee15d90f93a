"""sansio-http: a sans-IO HTTP request/response toolkit.

The package itself never performs I/O: it turns bytes and values into
``Request`` objects, parsed headers and decoded bodies, and turns
``Response`` objects back into values. The adapters in ``sansio_http.wsgi``,
``sansio_http.asgi`` and ``sansio_http.server`` move those values over a
real transport.
"""

from __future__ import annotations

from sansio_http.app import App as App
from sansio_http.app import AppConfig as AppConfig
from sansio_http.app import Blueprint as Blueprint
from sansio_http.app import current_request as current_request
from sansio_http.app import g as g
from sansio_http.app._middleware import ChunkTransform as ChunkTransform
from sansio_http.app._middleware import Middleware as Middleware
from sansio_http.app._middleware import add_vary as add_vary
from sansio_http.app._middleware import transform_body as transform_body
from sansio_http.bodies._body import BodyMethodError as BodyMethodError
from sansio_http.bodies._body import BodyRequest as BodyRequest
from sansio_http.bodies._formdata import EndOfForm as EndOfForm
from sansio_http.bodies._formdata import Field as Field
from sansio_http.bodies._formdata import FileData as FileData
from sansio_http.bodies._formdata import FileEnd as FileEnd
from sansio_http.bodies._formdata import FileStart as FileStart
from sansio_http.bodies._formdata import FormData as FormData
from sansio_http.bodies._formdata import FormEvent as FormEvent
from sansio_http.bodies._formdata import FormLimits as FormLimits
from sansio_http.bodies._formdata import SpoolFile as SpoolFile
from sansio_http.bodies._formdata import UploadedFile as UploadedFile
from sansio_http.bodies._formdata import safe_filename as safe_filename
from sansio_http.bodies._forms import FormCollector as FormCollector
from sansio_http.bodies._forms import FormDecoder as FormDecoder
from sansio_http.bodies._forms import FormEventDecoder as FormEventDecoder
from sansio_http.bodies._json import decode_json as decode_json
from sansio_http.http._cookies import dump_cookie as dump_cookie
from sansio_http.http._fields import HeaderValueError as HeaderValueError
from sansio_http.http._headers import DeferredHeaders as DeferredHeaders
from sansio_http.http._headers import Headers as Headers
from sansio_http.http._headers import MutableHeaders as MutableHeaders
from sansio_http.http._multidict import ImmutableMultiDict as ImmutableMultiDict
from sansio_http.http._multidict import MultiDict as MultiDict
from sansio_http.http._status import PHRASES as PHRASES
from sansio_http.http._status import reason_phrase as reason_phrase
from sansio_http.http._urlencoded import parse_urlencoded as parse_urlencoded
from sansio_http.messages._abort import abort as abort
from sansio_http.messages._errors import BadGateway as BadGateway
from sansio_http.messages._errors import BadRequest as BadRequest
from sansio_http.messages._errors import BadRequestKeyError as BadRequestKeyError
from sansio_http.messages._errors import ClientDisconnected as ClientDisconnected
from sansio_http.messages._errors import Conflict as Conflict
from sansio_http.messages._errors import ExpectationFailed as ExpectationFailed
from sansio_http.messages._errors import Forbidden as Forbidden
from sansio_http.messages._errors import GatewayTimeout as GatewayTimeout
from sansio_http.messages._errors import Gone as Gone
from sansio_http.messages._errors import HTTPError as HTTPError
from sansio_http.messages._errors import HTTPException as HTTPException
from sansio_http.messages._errors import HTTPVersionNotSupported as HTTPVersionNotSupported
from sansio_http.messages._errors import ImATeapot as ImATeapot
from sansio_http.messages._errors import InternalServerError as InternalServerError
from sansio_http.messages._errors import LengthRequired as LengthRequired
from sansio_http.messages._errors import MethodNotAllowed as MethodNotAllowed
from sansio_http.messages._errors import NotAcceptable as NotAcceptable
from sansio_http.messages._errors import NotFound as NotFound
from sansio_http.messages._errors import NotImplemented as NotImplemented
from sansio_http.messages._errors import PreconditionFailed as PreconditionFailed
from sansio_http.messages._errors import PreconditionRequired as PreconditionRequired
from sansio_http.messages._errors import (
    RequestedRangeNotSatisfiable as RequestedRangeNotSatisfiable,
)
from sansio_http.messages._errors import RequestEntityTooLarge as RequestEntityTooLarge
from sansio_http.messages._errors import RequestHeaderFieldsTooLarge as RequestHeaderFieldsTooLarge
from sansio_http.messages._errors import RequestTimeout as RequestTimeout
from sansio_http.messages._errors import RequestURITooLong as RequestURITooLong
from sansio_http.messages._errors import ServiceUnavailable as ServiceUnavailable
from sansio_http.messages._errors import TooManyRequests as TooManyRequests
from sansio_http.messages._errors import Unauthorized as Unauthorized
from sansio_http.messages._errors import UnprocessableEntity as UnprocessableEntity
from sansio_http.messages._errors import UnsupportedMediaType as UnsupportedMediaType
from sansio_http.messages._errors import UntrustedHost as UntrustedHost
from sansio_http.messages._events import EventStream as EventStream
from sansio_http.messages._events import ServerSentEvent as ServerSentEvent
from sansio_http.messages._file_response import file_response as file_response
from sansio_http.messages._files import FileBody as FileBody
from sansio_http.messages._files import FileRegion as FileRegion
from sansio_http.messages._files import content_disposition as content_disposition
from sansio_http.messages._files import guess_content_type as guess_content_type
from sansio_http.messages._files import safe_join as safe_join
from sansio_http.messages._head import HeadLimits as HeadLimits
from sansio_http.messages._head import check_head as check_head
from sansio_http.messages._json_response import JSONResponse as JSONResponse
from sansio_http.messages._proxy import ProxyPolicy as ProxyPolicy
from sansio_http.messages._redirect import redirect as redirect
from sansio_http.messages._request import Request as Request
from sansio_http.messages._response import Response as Response
from sansio_http.messages._response import make_conditional as make_conditional
from sansio_http.messages._state import State as State
from sansio_http.messages._static import FileInfo as FileInfo
from sansio_http.messages._static import FileSystem as FileSystem
from sansio_http.messages._static import static_response as static_response
from sansio_http.middleware._cors import CORSMiddleware as CORSMiddleware
from sansio_http.middleware._cors import is_origin as is_origin
from sansio_http.middleware._gzip import GZipMiddleware as GZipMiddleware
from sansio_http.middleware._gzip import GZipTransform as GZipTransform
from sansio_http.middleware._sessions import MAX_COOKIE_SIZE as MAX_COOKIE_SIZE
from sansio_http.middleware._sessions import Session as Session
from sansio_http.middleware._sessions import SessionMiddleware as SessionMiddleware

__version__ = "0.3.0.dev0"

__all__ = [
    "MAX_COOKIE_SIZE",
    "PHRASES",
    "App",
    "AppConfig",
    "BadGateway",
    "BadRequest",
    "BadRequestKeyError",
    "Blueprint",
    "BodyMethodError",
    "BodyRequest",
    "CORSMiddleware",
    "ChunkTransform",
    "ClientDisconnected",
    "Conflict",
    "DeferredHeaders",
    "EndOfForm",
    "EventStream",
    "ExpectationFailed",
    "Field",
    "FileBody",
    "FileData",
    "FileEnd",
    "FileInfo",
    "FileRegion",
    "FileStart",
    "FileSystem",
    "Forbidden",
    "FormCollector",
    "FormData",
    "FormDecoder",
    "FormEvent",
    "FormEventDecoder",
    "FormLimits",
    "GZipMiddleware",
    "GZipTransform",
    "GatewayTimeout",
    "Gone",
    "HTTPError",
    "HTTPException",
    "HTTPVersionNotSupported",
    "HeadLimits",
    "HeaderValueError",
    "Headers",
    "ImATeapot",
    "ImmutableMultiDict",
    "InternalServerError",
    "JSONResponse",
    "LengthRequired",
    "MethodNotAllowed",
    "Middleware",
    "MultiDict",
    "MutableHeaders",
    "NotAcceptable",
    "NotFound",
    "NotImplemented",
    "PreconditionFailed",
    "PreconditionRequired",
    "ProxyPolicy",
    "Request",
    "RequestEntityTooLarge",
    "RequestHeaderFieldsTooLarge",
    "RequestTimeout",
    "RequestURITooLong",
    "RequestedRangeNotSatisfiable",
    "Response",
    "ServerSentEvent",
    "ServiceUnavailable",
    "Session",
    "SessionMiddleware",
    "SpoolFile",
    "State",
    "TooManyRequests",
    "Unauthorized",
    "UnprocessableEntity",
    "UnsupportedMediaType",
    "UntrustedHost",
    "UploadedFile",
    "__version__",
    "abort",
    "add_vary",
    "check_head",
    "content_disposition",
    "current_request",
    "decode_json",
    "dump_cookie",
    "file_response",
    "g",
    "guess_content_type",
    "is_origin",
    "make_conditional",
    "parse_urlencoded",
    "reason_phrase",
    "redirect",
    "safe_filename",
    "safe_join",
    "static_response",
    "transform_body",
]
