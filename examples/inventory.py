"""One small inventory service written twice: with examples/resources.py and examples/decorators.py.

Each has a ``def`` and an ``async def`` view, takes JSON, and answers errors as
``application/problem+json``. Run either framework's version under any server::

    gunicorn examples.inventory:resources_wsgi
    uvicorn examples.inventory:decorators_asgi
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from examples.decorators import Bottle, Req
from examples.resources import API, Resp
from examples.resources import Req as ResourceReq
from sansio_http import abort

# NOTE: kept in memory for the example; a real service keeps state in a database.
ITEMS: dict[int, dict[str, Any]] = {1: {"id": 1, "name": "kettle"}}
LOCK = threading.Lock()


def add_item(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        abort(400, "Send a JSON object with a 'name' string.")
    with LOCK:
        item = {"id": max(ITEMS, default=0) + 1, "name": data["name"]}
        ITEMS[item["id"]] = item
    return item


def find_item(item_id: int) -> dict[str, Any]:
    if item_id not in ITEMS:
        abort(404, f"There is no item {item_id}.")
    return ITEMS[item_id]


# -- the Falcon-style version -----------------------------------------------------------


class Items:
    def on_get(self, req: ResourceReq, resp: Resp) -> None:  # def: a thread under ASGI
        resp.media = {"items": sorted(ITEMS), "thread": threading.current_thread().name}

    async def on_post(self, req: ResourceReq, resp: Resp) -> None:  # async def: awaited
        await asyncio.sleep(0)
        resp.status, resp.media = 201, add_item(req.media)


class Item:
    async def on_get(self, req: ResourceReq, resp: Resp, id: int) -> None:
        resp.media = find_item(id)

    def on_delete(self, req: ResourceReq, resp: Resp, id: int) -> None:
        find_item(id)
        raise RuntimeError("deleting is broken")  # a crash: logged, then a bare 500


api = API()
api.add_route("/items", Items())
api.add_route("/items/{id:int}", Item())
resources_wsgi, resources_asgi = api.wsgi, api.asgi


# -- the bottle-style version -----------------------------------------------------------

app = Bottle()


@app.get("/items")
def list_items(req: Req) -> Any:  # def: a thread under ASGI
    return {"items": sorted(ITEMS), "thread": threading.current_thread().name}


@app.post("/items")
async def create_item(req: Req) -> Any:  # async def: awaited
    await asyncio.sleep(0)
    return add_item(req.json), 201


@app.get("/items/<int:id>")
async def get_item(req: Req, id: int) -> Any:
    return find_item(id)


@app.route("/items/<int:id>", methods=["DELETE"])
def delete_item(req: Req, id: int) -> Any:
    find_item(id)
    raise RuntimeError("deleting is broken")


@app.after.append
def served_by(req: Req, response: Any) -> None:
    response.headers["X-Framework"] = "decorators"


decorators_wsgi, decorators_asgi = app.wsgi, app.asgi
