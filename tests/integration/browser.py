"""A small driver for headless Chromium over the DevTools protocol.

Only what the browser tests need: open a page, set a file input, run
JavaScript, wait for the next page to load. It talks to Debian's
``/usr/bin/chromium`` through the ``websockets`` client of the test extra.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The flags this machine needs: no sandbox as root, and no background
# traffic to hosts that cannot be reached.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
]


def available() -> bool:
    return Path(CHROMIUM).exists()


class Browser:
    """One headless Chromium process with one page."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout
        # Chromium's helper processes may still write to the profile for a
        # moment after the browser exits; a leftover file is not a failure.
        self._profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        self._process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            # Its own process group, so that close() ends the helpers too.
            start_new_session=True,
        )
        self._stack = contextlib.ExitStack()
        self._ids = itertools.count(1)
        self._events: list[dict[str, Any]] = []
        self._page = self._connect_page()
        self.call("Page.enable")
        self.call("DOM.enable")

    def _connect_page(self) -> ClientConnection:
        assert self._process.stderr is not None
        deadline = time.monotonic() + self.timeout
        browser_url = None
        while time.monotonic() < deadline:
            line = self._process.stderr.readline()
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:
                browser_url = found.group(1)
                break
            if not line and self._process.poll() is not None:
                break
        if browser_url is None:
            raise RuntimeError("Chromium did not start its DevTools endpoint")
        # The browser endpoint lists targets; the about:blank page is one.
        with connect(browser_url, max_size=None) as browser:
            browser.send(json.dumps({"id": 1, "method": "Target.getTargets"}))
            while True:
                reply = json.loads(browser.recv(timeout=self.timeout))
                if reply.get("id") == 1:
                    break
        target = next(t for t in reply["result"]["targetInfos"] if t["type"] == "page")
        page_url = browser_url.split("/devtools/")[0] + "/devtools/page/" + target["targetId"]
        return self._stack.enter_context(connect(page_url, max_size=None))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result."""
        ident = next(self._ids)
        self._page.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._page.recv(timeout=self.timeout))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result") or {}
                return result
            self._events.append(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        """Return the next event of that name, waiting for it if needed."""
        for index, message in enumerate(self._events):
            if message.get("method") == event:
                del self._events[: index + 1]
                return message
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            received: dict[str, Any] = json.loads(self._page.recv(timeout=self.timeout))
            if received.get("method") == event:
                self._events.clear()
                return received
        raise TimeoutError(event)

    def open(self, url: str) -> None:
        """Load a page and wait for its load event."""
        self._events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """Run JavaScript in the page and return its value."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def set_files(self, selector: str, *paths: Path) -> None:
        """Choose files in a file input, as a user would."""
        root = self.call("DOM.getDocument")["root"]["nodeId"]
        node = self.call("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self.call("DOM.setFileInputFiles", nodeId=node, files=[str(p) for p in paths])

    def close(self) -> None:
        self._stack.close()
        self._signal(signal.SIGTERM)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self._process.wait(10)
        if self._process.stderr is not None:
            self._process.stderr.close()
        self._profile.cleanup()

    def _signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, number)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
