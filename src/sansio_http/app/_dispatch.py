"""Dispatch: the order of work for a request, and its two drivers side by side.

The order of work is written once, as a generator (:meth:`_Dispatching._pipeline`)
that yields each function to call: the middleware's ``process_request``
hooks, routing, the ``before_request`` hooks, the view, the ``after_request``
hooks, the ``process_response`` hooks and the teardown hooks, with the error
handlers around them. Two small drivers run it: :meth:`_Dispatching._run_sync`
(for WSGI) calls each function through ``ensure_sync``, and
:meth:`_Dispatching._run_async` (for ASGI) awaits each through ``ensure_async``.

Under ASGI, a request's ``def`` steps run on one thread: the async driver
runs each ``def`` step, and every ``def`` step right after it, in one call on
the request's :class:`~sansio_http.app._bridges.Lane`, a thread of the App's
pool that stays with the request while an ``async def`` step runs on the
loop. A mounted App's dispatch uses the lane of the request it serves.

``dispatch_sync`` and ``dispatch_async`` are the entry points the adapters
call. For the common request, with no hook on the App, they call the
middleware, the router and the view themselves and run the pipeline only for
what needs it; the order of work and its outcome stay those of the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from inspect import GEN_CREATED, getgeneratorstate
from types import GeneratorType
from typing import Any, Final, TypeVar, cast

from sansio_http.app._bridges import BLOCKING, Lane, _Bridges, _call_view, _lane_var, _Raised
from sansio_http.app._context import request_var
from sansio_http.app._endpoints import WEBSOCKET_SCHEMES, Endpoint, hooked
from sansio_http.app._handling import Call, _ErrorHandling, log
from sansio_http.app._hosts import routed_host
from sansio_http.app._mounts import Mounts, route
from sansio_http.app._scaffold import _Scaffold
from sansio_http.messages._errors import NotFound
from sansio_http.messages._files import FileBody
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.routing import Router, RoutingAnswer

__all__: list[str] = []

T = TypeVar("T")

# PERF: CPython 3.11 compiles a method call on a name bound by an import as an
# attribute load that makes a bound method each time (no LOAD_METHOD); the bound
# methods are taken once here.
_set_request: Final = request_var.set
_reset_request: Final = request_var.reset

_Pipeline = Generator[Call, Any, Response]


# The most (path, method) answers of static rules an App keeps: more than
# the static rules of most applications times their methods.
_MAX_STATIC: Final = 1024


class _Dispatching(_ErrorHandling, _Bridges):
    """The dispatch of requests to views, for the App."""

    router: Router
    endpoints: dict[str, Endpoint]
    before_request_funcs: list[Callable[..., Any]]
    after_request_funcs: list[Callable[..., Any]]
    teardown_request_funcs: list[Callable[..., Any]]
    _static: dict[tuple[str, str], tuple[Endpoint, dict[str, Any]]]
    _static_router: Router | None
    _scopes: tuple[_Scaffold, ...]
    _mounts: Mounts
    _plain_make_response: bool
    _inline_hooks: set[Callable[..., Any]]
    _middleware_hooks: list[tuple[Callable[..., Any] | None, Callable[..., Any] | None]]
    _hooked_middleware: bool

    def dispatch_sync(self, request: Request, *, propagate: bool | None = None) -> Response:
        """Answer a request from sync code (the WSGI adapter's side).

        Args:
            request: The request.
            propagate: Raise an exception that no error handler takes,
                after the teardown hooks ran, instead of answering it with
                a 500 (what a test client asks for); None to do as the
                request's :attr:`~sansio_http.Request.propagate_exceptions`
                says.

        Raises:
            Exception: With ``propagate``, the unhandled exception.
        """
        token = _set_request(request)
        try:
            if self.before_request_funcs or self.after_request_funcs or self.teardown_request_funcs:
                return self._run_sync(self._pipeline(request, propagate))
            # PERF: without hooks on the App, the pipeline comes down to the
            # process_request hooks, routing, the view and make_response: they
            # are called here, and the parts of the pipeline run only for what
            # needs them (an error, process_response hooks, blueprint hooks).
            # The order of work and its outcome stay those of _pipeline.
            scopes = self._scopes
            entered: list[Callable[..., Any]] | None = None
            failed: Exception | None = None
            try:
                early: Response | None = None
                if self._middleware_hooks:
                    entered = []
                    early = self._enter_middleware_sync(request, entered)
                answer = self._match(request) if early is None else early
                if isinstance(answer, tuple):
                    endpoint, values = answer
                    scopes = endpoint.scopes
                    # With hooks on a blueprint around the view, the pipeline runs.
                    if not endpoint.blueprints or not hooked(endpoint.blueprints):
                        # PERF: a call without ** when there are no values.
                        result = (
                            endpoint.sync_view(request, **values)
                            if values
                            else endpoint.sync_view(request)
                        )
                        # PERF: a Response as it is, unless a subclass makes its own.
                        answer = (
                            result
                            if result.__class__ is Response and self._plain_make_response
                            else self.make_response(result, endpoint.view)
                        )
                        if entered is None:
                            return answer
            except Exception as exc:
                failed = exc
            if failed is not None:
                answer, _ = self._run_sync(
                    self._handle_exception(request, failed, scopes, propagate)
                )
            if isinstance(answer, tuple):
                return self._run_sync(self._pipeline(request, propagate, answer, entered))
            response = answer
            if entered:
                response, _ = self._run_sync(
                    self._exit_middleware(request, response, entered, propagate)
                )
            return response
        finally:
            _reset_request(token)

    async def dispatch_async(self, request: Request, *, propagate: bool | None = None) -> Response:
        """Answer a request from async code (the ASGI adapter's side).

        Args:
            request: The request.
            propagate: Raise an exception that no error handler takes,
                after the teardown hooks ran, instead of answering it with
                a 500 (what a test client asks for); None to do as the
                request's :attr:`~sansio_http.Request.propagate_exceptions`
                says.

        Raises:
            Exception: With ``propagate``, the unhandled exception.
        """
        token = _set_request(request)
        try:
            if (
                self.before_request_funcs
                or self.after_request_funcs
                or self.teardown_request_funcs
                or self._hooked_middleware
            ):
                # NOTE: with a middleware hook that is not inline, the whole
                # pipeline, so that a request's def steps share one thread.
                return await self._run_async(self._pipeline(request, propagate))
            # PERF: as in dispatch_sync.
            scopes = self._scopes
            entered: list[Callable[..., Any]] | None = None
            failed: Exception | None = None
            # The lane of a def view that raised: its error handlers run there.
            lane: Lane | None = None
            try:
                early: Response | None = None
                if self._middleware_hooks:
                    # PERF: the process_request hooks inline (a coroutine of
                    # their own costs as much as a small hook), and a plain
                    # hook that does not block called without a coroutine.
                    entered = []
                    for process_request, process_response in self._middleware_hooks:
                        if process_request is not None:
                            if process_request in self._inline_hooks:
                                result = process_request(request)
                            else:
                                result = await self._async(process_request)(request)
                            if result is not None:
                                early = self.make_response(result, process_request)
                                break
                        if process_response is not None:
                            entered.append(process_response)
                answer = self._match(request) if early is None else early
                if isinstance(answer, tuple):
                    endpoint, values = answer
                    scopes = endpoint.scopes
                    # With hooks on a blueprint around the view, the pipeline runs.
                    if not endpoint.blueprints or not hooked(endpoint.blueprints):
                        blocking = endpoint.blocking
                        if blocking is None:
                            # PERF: a call without ** when there are no values.
                            result = await (
                                endpoint.async_view(request, **values)
                                if values
                                else endpoint.async_view(request)
                            )
                        else:
                            # PERF: a def view alone is one call on a lane of
                            # its own, which keeps its thread only when the
                            # view raises, for the error handlers.
                            lane = self._own_lane()
                            if lane is None:
                                # The pipeline, on the lane of the request a
                                # mounted App serves, or without lanes.
                                return await self._run_async(
                                    self._pipeline(request, propagate, answer, entered)
                                )
                            result = await lane.call(_call_view, blocking, request, values)
                            if result.__class__ is _Raised:
                                raise result.error
                        # PERF: a Response as it is, unless a subclass makes its own.
                        answer = (
                            result
                            if result.__class__ is Response and self._plain_make_response
                            else self.make_response(result, endpoint.view)
                        )
                        if entered is None:
                            return answer
            except Exception as exc:
                # A cancellation is no Exception: it propagates, as it would
                # from the pipeline when there are no teardown hooks to run.
                failed = exc
            try:
                if failed is not None:
                    answer, _ = await self._run_async(
                        self._handle_exception(request, failed, scopes, propagate), lane
                    )
                if isinstance(answer, tuple):
                    return await self._run_async(
                        self._pipeline(request, propagate, answer, entered)
                    )
                response = answer
                if entered:
                    response, _ = await self._run_async(
                        self._exit_middleware(request, response, entered, propagate), lane
                    )
                return response
            finally:
                if lane is not None and lane.held:
                    lane.release()
        finally:
            _reset_request(token)

    def _own_lane(self) -> Lane | None:
        """Return a new lane of the thread runner's, or None.

        None when the runner has no lanes, or when this is the dispatch of a
        mounted App whose request holds a lane already (the pipeline takes
        that one).
        """
        outer = _lane_var.get()
        if outer is not None and outer.held:
            return None
        make = getattr(self.thread_runner, "lane", None)
        return None if make is None else cast(Lane, make())

    def _enter_middleware_sync(
        self, request: Request, entered: list[Callable[..., Any]]
    ) -> Response | None:
        """Run the process_request hooks from sync code, as _enter_middleware does."""
        for process_request, process_response in self._middleware_hooks:
            if process_request is not None:
                result = self._sync(process_request)(request)
                if result is not None:
                    return self.make_response(result, process_request)
            if process_response is not None:
                entered.append(process_response)
        return None

    def _run_sync(self, steps: Generator[Call, Any, T]) -> T:
        """Drive a pipeline from sync code: call each function it yields."""
        sent: Any = None
        error: BaseException | None = None
        while True:
            try:
                if error is not None:
                    func, args, kwargs = steps.throw(error)
                else:
                    func, args, kwargs = steps.send(sent)
            except StopIteration as done:
                return cast(T, done.value)
            error = None
            try:
                sent = self._sync(func)(*args, **kwargs)
            except BaseException as exc:
                error = exc

    async def _run_async(self, steps: Generator[Call, Any, T], lane: Lane | None = None) -> T:
        """Drive a pipeline from async code: await each function it yields.

        A plain function that ``ensure_async`` would run in a thread runs,
        with every such function after it, in one call on the request's
        lane (see :meth:`_blocking_steps`), when the thread runner offers
        lanes. ``lane`` is one the caller holds and lets go of itself.
        """
        sent: Any = None
        error: BaseException | None = None
        token: Any = None
        try:
            while True:
                try:
                    if error is not None:
                        func, args, kwargs = steps.throw(error)
                    else:
                        func, args, kwargs = steps.send(sent)
                except StopIteration as done:
                    return cast(T, done.value)
                error = None
                while True:
                    # Run the step (func, args, kwargs); a lane call may end
                    # at the next async step, which this loop then runs.
                    try:
                        if func in self._inline_hooks:
                            sent = func(*args, **kwargs)
                            break
                        converted = self._async(func)
                        target = getattr(converted, BLOCKING, None)
                        if target is not None and lane is None:
                            # The lane of the request a mounted App serves,
                            # while its thread waits for it.
                            lane = _lane_var.get()
                            if lane is not None and not lane.held:
                                lane = None
                            if lane is None:
                                make = getattr(self.thread_runner, "lane", None)
                                if make is not None:
                                    lane = make()
                                    token = _lane_var.set(lane)
                        if target is None or lane is None:
                            sent = await converted(*args, **kwargs)
                            break
                        # A lane borrowed from the outer App's dispatch is kept
                        # when this pipeline ends there: the outer one goes on.
                        ended, value = await lane.call(
                            self._blocking_steps, steps, target, args, kwargs, token is None
                        )
                    except BaseException as exc:
                        # Cancellation too: teardown hooks still run. A lane
                        # call raises only once its thread is done with steps.
                        error = exc
                        break
                    if ended:
                        return cast(T, value)
                    func, args, kwargs = value
        finally:
            if token is not None:
                _lane_var.reset(token)
                if lane is not None and lane.held:
                    lane.release()

    def _blocking_steps(
        self,
        steps: Generator[Call, Any, Any],
        func: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        keep: bool,
    ) -> tuple[bool, tuple[bool, Any]]:
        """Call ``func``, then each plain step after it, in this thread.

        Returns ``(hold, (ended, value))`` for :meth:`Lane.call`: at the
        pipeline's end ``ended`` is True, ``value`` its result and the
        thread is let go (unless ``keep``); at a step that is not run in a
        thread, ``value`` is that step, for the loop, and the lane's thread
        waits for the request's next plain step.
        """
        inline = self._inline_hooks
        while True:
            try:
                sent = func(*args, **kwargs)
            except BaseException as exc:
                try:
                    step = steps.throw(exc)
                except StopIteration as done:
                    return keep, (True, done.value)
            else:
                try:
                    step = steps.send(sent)
                except StopIteration as done:
                    return keep, (True, done.value)
            func, args, kwargs = step
            # A hook that does not block runs on the loop, as promised.
            target = None if func in inline else getattr(self._async(func), BLOCKING, None)
            if target is None:
                return True, (False, step)
            func = target

    def _pipeline(
        self,
        request: Request,
        propagate: bool | None = None,
        routed: tuple[Endpoint, dict[str, Any]] | None = None,
        entered: list[Callable[..., Any]] | None = None,
    ) -> _Pipeline:
        """Yield each call that answering ``request`` takes; return the response.

        ``routed`` is the endpoint and values of a request that the caller
        routed already, after the process_request hooks, and ``entered`` the
        process_response hooks of the middleware it went through. The teardown
        hooks get ``failure``: the last exception that no error handler took
        and that is not an :class:`HTTPError`, whether it was answered with a
        500 or propagated, or a ``BaseException`` such as a cancellation;
        None otherwise (Flask's rule).
        """
        scopes: tuple[_Scaffold, ...] = self._scopes
        failure: BaseException | None = None
        try:
            try:
                # The process_response hooks of the middleware entered so far
                # go into ``entered``.
                if routed is not None:
                    found: tuple[Endpoint, dict[str, Any]] | Response = routed
                elif self._middleware_hooks:
                    entered = []
                    early = yield from self._enter_middleware(request, entered)
                    found = self._match(request) if early is None else early
                else:
                    found = self._match(request)
                if isinstance(found, Response):
                    response = found
                else:
                    endpoint, values = found
                    scopes = endpoint.scopes
                    response = yield from self._respond(request, endpoint, values)
            except Exception as exc:
                response, failure = yield from self._handle_exception(
                    request, exc, scopes, propagate
                )
            try:
                for scope in reversed(scopes):
                    for hook in reversed(scope.after_request_funcs):
                        result = yield hook, (request, response), {}
                        if result is not response:
                            yield from _drop(response, result)
                        response = result
            except Exception as exc:
                # A failing after_request hook is handled like a failing view,
                # without running the after_request hooks again.
                response, unhandled = yield from self._replace_on_error(
                    request, response, exc, scopes, propagate
                )
                if unhandled is not None:
                    failure = unhandled
            if entered:
                response, unhandled = yield from self._exit_middleware(
                    request, response, entered, propagate
                )
                if unhandled is not None:
                    failure = unhandled
            return response
        except BaseException as exc:
            failure = exc
            raise
        finally:
            # After GeneratorExit the driver has abandoned the pipeline, and
            # nothing more may be yielded.
            if not isinstance(failure, GeneratorExit):
                for scope in reversed(scopes):
                    for hook in reversed(scope.teardown_request_funcs):
                        try:
                            yield hook, (request, failure), {}
                        except Exception:
                            log.exception("teardown_request hook %r failed", hook)

    def _match(self, request: Request) -> tuple[Endpoint, dict[str, Any]] | Response:
        """Return the endpoint and values for a request, or the OPTIONS answer."""
        path, method = request.path, request.method
        websocket = request.scheme in WEBSOCKET_SCHEMES
        if not websocket and self._static_router is self.router:
            found = self._static.get((path, method))
            if found is not None:
                return found
        # A prefix mount comes before the rules, the root mount after them.
        # PERF: after the static answers, which never hold a mounted path
        # (mount() clears them).
        if self._mounts:
            mounted = self._mounts.find(path)
            if mounted is not None:
                return route(*mounted)
        router = self.router
        try:
            if router.has_hosts:
                # Host rules: the Host, through the trusted hosts (400 otherwise).
                host = routed_host(request, self.config.trusted_hosts)
                rule, values = router.match(path, method, websocket=websocket, host=host)
            else:
                rule, values = router.match(path, method, websocket=websocket)
        except RoutingAnswer as answer:
            # The 308 to the slashed path and the 204 to OPTIONS (RFC 9110
            # §9.3.7) are answers, not errors: no error handler sees them.
            return answer.to_response(request)
        except NotFound:
            # The root mount takes what no rule takes (PERF: only here, so a
            # routed request pays nothing for it).
            fallback = self._mounts.fallback
            if fallback is None:
                raise
            return route(fallback, path)
        found = self.endpoints[rule.endpoint], values
        if (
            not (websocket or rule.converters or router.has_hosts)
            and len(self._static) < _MAX_STATIC
        ):
            # PERF: the router answers a path that a rule without placeholders
            # takes with that rule whatever rules come after (the first static
            # rule of a path and method wins), so the answer is kept; not
            # where a host's rules may come before it.
            if self._static_router is not self.router:
                self._static = {}
                self._static_router = self.router
            self._static[path, method] = found
        return found

    def _respond(
        self, request: Request, endpoint: Endpoint, values: dict[str, Any]
    ) -> Generator[Call, Any, Response]:
        """Run the before_request hooks and the view."""
        for scope in endpoint.scopes:
            for hook in scope.before_request_funcs:
                result = yield hook, (request,), {}
                if result is not None:
                    return self.make_response(result, hook)
        result = yield endpoint.view, (request,), values
        return self.make_response(result, endpoint.view)

    def _enter_middleware(
        self, request: Request, entered: list[Callable[..., Any]]
    ) -> Generator[Call, Any, Response | None]:
        """Run the process_request hooks; return an early answer or None."""
        for process_request, process_response in self._middleware_hooks:
            if process_request is not None:
                result = yield process_request, (request,), {}
                if result is not None:
                    return self.make_response(result, process_request)
            if process_response is not None:
                entered.append(process_response)
        return None

    def _exit_middleware(
        self,
        request: Request,
        response: Response,
        entered: list[Callable[..., Any]],
        propagate: bool | None,
    ) -> Generator[Call, Any, tuple[Response, Exception | None]]:
        """Run the process_response hooks, innermost first.

        Returns the response and the last exception no handler took, as
        :meth:`_handle_exception` does.
        """
        failure: Exception | None = None
        for process_response in reversed(entered):
            try:
                result = yield process_response, (request, response), {}
                if not isinstance(result, Response):
                    name = getattr(process_response, "__qualname__", repr(process_response))
                    raise TypeError(
                        f"{name} returned {type(result).__name__}; process_response "
                        "returns a Response"
                    )
                if result is not response:
                    yield from _drop(response, result)
                response = result
            except Exception as exc:
                response, unhandled = yield from self._replace_on_error(
                    request, response, exc, self._scopes, propagate
                )
                if unhandled is not None:
                    failure = unhandled
        return response, failure

    def _replace_on_error(
        self,
        request: Request,
        response: Response,
        error: Exception,
        scopes: tuple[_Scaffold, ...],
        propagate: bool | None,
    ) -> Generator[Call, Any, tuple[Response, Exception | None]]:
        """Handle a hook's error: its answer replaces ``response``, which is dropped."""
        try:
            answer = yield from self._handle_exception(request, error, scopes, propagate)
        except Exception:
            # Propagated: the response is dropped all the same.
            yield from _drop(response, None)
            raise
        yield from _drop(response, answer[0])
        return answer


def _drop(dropped: object, kept: object) -> Generator[Call, Any, None]:
    """Close the body of a response that a hook replaced, unless the new one sends it.

    NOTE: Flask's rule: a replaced response is dropped, and so is the work of
    its ``call_on_close``; only its body is closed, once, here and at once
    (a producer's ``finally`` releases what it holds before the new response
    is sent). The close is a step of the pipeline, so a ``def`` close runs in
    the request's thread under ASGI and an ``aclose()`` on the WSGI adapter's
    event loop. A body the new response holds too is left to it.
    """
    if not isinstance(dropped, Response) or dropped is kept:
        return
    body = dropped.body
    if isinstance(body, (bytes, FileBody)) or (isinstance(kept, Response) and kept.body is body):
        return
    if getattr(body, "aclose", None) is not None:
        yield _aclose_body, (body,), {}
        return
    close = getattr(body, "close", None)
    if not callable(close):
        return
    if isinstance(body, GeneratorType) and getgeneratorstate(body) == GEN_CREATED:
        # PERF: a generator that never ran has no finally to run: closed here.
        close()
        return
    yield _close_body, (body,), {}


def _close_body(body: Any) -> None:
    """Close a dropped sync body; an error is logged, the request goes on."""
    try:
        body.close()
    except Exception:
        log.exception("closing the body of a replaced response failed")


async def _aclose_body(body: Any) -> None:
    """Close a dropped async body; an error is logged, the request goes on."""
    try:
        await body.aclose()
    except Exception:
        log.exception("closing the body of a replaced response failed")
