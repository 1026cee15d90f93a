"""Routing with 100 rules next to Werkzeug's Map and Falcon's compiled router.

The same 100 rules (20 resources of five rules each: a list, an item with an
integer id, an edit page, a search page and a file path) are matched by each
router. Every case asks for the *last* resource added, so a router that tries
rules in order pays for all the others; each router returns the endpoint and
the converted values, so the results compare exactly.

- ``routing-static``: ``GET /reviews/search``, a static rule beside ``<int:id>``;
- ``routing-int``: ``PUT /reviews/42``, one integer placeholder and a method;
- ``routing-path``: ``GET /reviews/42/files/2024/report.pdf``, a path placeholder;
- ``routing-miss``: ``GET /nowhere/42``, answered with 404.

Werkzeug's adapter is bound once, outside the timing, which favours it: a
framework binds the map to every request (Flask does, in its request context).
Werkzeug, Falcon and we build our matchers on the first match, which each
router makes before the timing.
Falcon's router only finds the resource; its method map is then looked up, as
Falcon's App does, to give the same answer (405 is a responder there).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import falcon
import falcon.routing
import pytest
import werkzeug.exceptions
import werkzeug.routing
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http.routing import Router, Rule

RESOURCES = [
    "users", "orders", "products", "carts", "invoices", "payments", "shipments", "refunds",
    "coupons", "categories", "brands", "stores", "warehouses", "suppliers", "employees",
    "tickets", "articles", "comments", "tags", "reviews",
]  # fmt: skip

#: Each resource's rules: (our pattern, Werkzeug's, Falcon's, endpoint suffix, methods).
PATTERNS = [
    ("/{r}/", "/{r}/", "/{r}/", "list", ("GET", "POST")),
    ("/{r}/<int:id>", "/{r}/<int:id>", "/{r}/{{id:int}}", "item", ("GET", "PUT", "DELETE")),
    ("/{r}/<int:id>/edit", "/{r}/<int:id>/edit", "/{r}/{{id:int}}/edit", "edit", ("GET",)),
    ("/{r}/search", "/{r}/search", "/{r}/search", "search", ("GET",)),
    (
        "/{r}/<int:id>/files/<path:name>",
        "/{r}/<int:id>/files/<path:name>",
        "/{r}/{{id:int}}/files/{{name:path}}",
        "file",
        ("GET",),
    ),
]
assert len(RESOURCES) * len(PATTERNS) == 100

#: (path, method, expected endpoint and values, or None for 404) by group.
CASES: dict[str, tuple[str, str, tuple[str, dict[str, Any]] | None]] = {
    "routing-static": ("/reviews/search", "GET", ("reviews.search", {})),
    "routing-int": ("/reviews/42", "PUT", ("reviews.item", {"id": 42})),
    "routing-path": (
        "/reviews/42/files/2024/report.pdf",
        "GET",
        ("reviews.file", {"id": 42, "name": "2024/report.pdf"}),
    ),
    "routing-miss": ("/nowhere/42", "GET", None),
}

Matcher = Callable[[str, str], "tuple[str, dict[str, Any]] | None"]


def ours() -> Matcher:
    router = Router(
        Rule(pattern.format(r=name), f"{name}.{suffix}", methods=methods)
        for name in RESOURCES
        for pattern, _, _, suffix, methods in PATTERNS
    )
    # Ours compiles its matcher on the first call too: keep that out of the timing.
    router.match("/users/")

    def match(path: str, method: str) -> tuple[str, dict[str, Any]] | None:
        # As Falcon's find(): None for a miss, no exception.
        found = router.find(path, method)
        if found is None:
            return None
        rule, values = found
        return rule.endpoint, values

    return match


def werkzeug_map() -> Matcher:
    rules = werkzeug.routing.Map(
        [
            werkzeug.routing.Rule(
                pattern.format(r=name), endpoint=f"{name}.{suffix}", methods=methods
            )
            for name in RESOURCES
            for _, pattern, _, suffix, methods in PATTERNS
        ]
    )
    adapter = rules.bind("shop.example.com")
    with contextlib.suppress(werkzeug.exceptions.NotFound):
        adapter.match("/")  # a first match builds Werkzeug's state machine: not timed either

    def match(path: str, method: str) -> tuple[str, dict[str, Any]] | None:
        try:
            endpoint, values = adapter.match(path, method)
        except werkzeug.exceptions.NotFound:
            return None
        return str(endpoint), dict(values)

    return match


class _Resource:
    """A Falcon resource that answers every method of its rule."""

    def __init__(self, endpoint: str, methods: tuple[str, ...]) -> None:
        self.endpoint = endpoint
        for method in methods:
            setattr(self, f"on_{method.lower()}", self.respond)

    def respond(self, req: falcon.Request, resp: falcon.Response, **params: Any) -> None:
        resp.text = self.endpoint


def falcon_router() -> Matcher:
    router = falcon.routing.CompiledRouter()
    for name in RESOURCES:
        for _, _, theirs, suffix, methods in PATTERNS:
            router.add_route(theirs.format(r=name), _Resource(f"{name}.{suffix}", methods))
    router.find("/")  # Falcon compiles its matcher on the first call: keep that out of the timing.

    def match(path: str, method: str) -> tuple[str, dict[str, Any]] | None:
        found = router.find(path)
        if found is None:
            return None
        resource, method_map, params, _ = found
        assert isinstance(resource, _Resource)
        method_map[method]  # the responder, as Falcon's App looks it up
        return str(resource.endpoint), params

    return match


ROUTERS: dict[str, Callable[[], Matcher]] = {
    "ours": ours,
    "werkzeug": werkzeug_map,
    "falcon": falcon_router,
}


def run(benchmark: BenchmarkFixture, group: str, router: str) -> None:
    path, method, expected = CASES[group]
    match = ROUTERS[router]()
    benchmark.extra_info["implementation"] = router
    assert benchmark(match, path, method) == expected


@pytest.mark.benchmark(group="routing-static")
@pytest.mark.parametrize("router", ROUTERS)
def test_static(benchmark: BenchmarkFixture, router: str) -> None:
    run(benchmark, "routing-static", router)


@pytest.mark.benchmark(group="routing-int")
@pytest.mark.parametrize("router", ROUTERS)
def test_int(benchmark: BenchmarkFixture, router: str) -> None:
    run(benchmark, "routing-int", router)


@pytest.mark.benchmark(group="routing-path")
@pytest.mark.parametrize("router", ROUTERS)
def test_path(benchmark: BenchmarkFixture, router: str) -> None:
    run(benchmark, "routing-path", router)


@pytest.mark.benchmark(group="routing-miss")
@pytest.mark.parametrize("router", ROUTERS)
def test_miss(benchmark: BenchmarkFixture, router: str) -> None:
    run(benchmark, "routing-miss", router)
