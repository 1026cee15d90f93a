"""``app.config``: a dict of settings, filled as Flask fills it."""

from __future__ import annotations

import errno
import json
import os
import types
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import IO, Any

from sansio_http.app import AppConfig

__all__ = ["DEFAULT_CONFIG", "Config"]

#: The settings a new app starts with (Flask's names and defaults).
DEFAULT_CONFIG: Mapping[str, Any] = {
    "DEBUG": False,
    "TESTING": False,
    "PROPAGATE_EXCEPTIONS": None,
    "SECRET_KEY": None,
    "PERMANENT_SESSION_LIFETIME": timedelta(days=31),
    "SESSION_COOKIE_NAME": "session",
    "SESSION_COOKIE_DOMAIN": None,
    "SESSION_COOKIE_PATH": None,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SECURE": False,
    "SESSION_COOKIE_SAMESITE": None,
    "APPLICATION_ROOT": "/",
    "SERVER_NAME": None,
    "PREFERRED_URL_SCHEME": "http",
    "MAX_CONTENT_LENGTH": None,
    "SEND_FILE_MAX_AGE_DEFAULT": None,
    "TEMPLATES_AUTO_RELOAD": None,
    "EXPLAIN_TEMPLATE_LOADING": False,
    "TRUSTED_HOSTS": None,
    # Which adapter app.test_client() mounts the app with: "wsgi" or "asgi".
    "TESTING_INTERFACE": "wsgi",
}


class Config(dict[str, Any]):
    """A dict of settings with Flask's loaders.

    Only UPPERCASE names are taken from objects, files and mappings given
    to the loaders, as in Flask.

    Args:
        root_path: What relative file names are found from.
        defaults: The settings to start with.
    """

    def __init__(
        self, root_path: str | os.PathLike[str], defaults: Mapping[str, Any] | None = None
    ):
        super().__init__(defaults or {})
        self.root_path = os.fspath(root_path)
        #: The App's own settings, which the adapters read as attributes
        #: (``config.threads``...); ``debug`` and ``max_content_length``
        #: follow ``DEBUG`` and ``MAX_CONTENT_LENGTH``.
        self.app_config = AppConfig()

    @property
    def debug(self) -> bool:
        """``DEBUG``, as the App reads it."""
        return bool(self.get("DEBUG"))

    @property
    def max_content_length(self) -> int | None:
        """``MAX_CONTENT_LENGTH``, else the App's default (16 MiB)."""
        value = self.get("MAX_CONTENT_LENGTH")
        return self.app_config.max_content_length if value is None else int(value)

    @property
    def trusted_hosts(self) -> list[str] | None:
        """``TRUSTED_HOSTS`` (Flask 3.1's), else the App's setting: the hosts requests may name.

        A request whose Host is not among them is a 400, and ``url_for``
        never builds an external URL on such a host.
        """
        value = self.get("TRUSTED_HOSTS")
        if value is None:
            return self.app_config.trusted_hosts  # type: ignore[return-value]
        return [value] if isinstance(value, str) else list(value)

    def __getattr__(self, name: str) -> Any:
        # The other settings of the App (threads, form_limits...).
        if name.startswith("_") or name == "app_config":
            raise AttributeError(name)
        return getattr(self.app_config, name)

    def from_mapping(self, mapping: Mapping[str, Any] | None = None, **kwargs: Any) -> bool:
        """Take the UPPERCASE keys of ``mapping`` and of the keyword arguments."""
        values: dict[str, Any] = {}
        if mapping is not None:
            values.update(mapping)
        values.update(kwargs)
        for key, value in values.items():
            if key.isupper():
                self[key] = value
        return True

    def from_object(self, obj: object | str) -> None:
        """Take the UPPERCASE attributes of an object, or of the one a dotted name imports."""
        if isinstance(obj, str):
            obj = _import_string(obj)
        for key in dir(obj):
            if key.isupper():
                self[key] = getattr(obj, key)

    def from_pyfile(self, filename: str | os.PathLike[str], silent: bool = False) -> bool:
        """Run a Python file and take its UPPERCASE names.

        Args:
            filename: The file, relative to :attr:`root_path` (the instance
                folder with ``instance_relative_config``).
            silent: Return False instead of raising when the file is missing.

        Raises:
            OSError: The file cannot be read, unless it is missing and ``silent``.
        """
        path = os.path.join(self.root_path, filename)
        module = types.ModuleType("config")
        module.__file__ = path
        try:
            with open(path, "rb") as config_file:
                exec(compile(config_file.read(), path, "exec"), module.__dict__)
        except OSError as exc:
            if silent and exc.errno in (errno.ENOENT, errno.EISDIR, errno.ENOTDIR):
                return False
            exc.strerror = f"Unable to load configuration file ({exc.strerror})"
            raise
        self.from_object(module)
        return True

    def from_file(
        self,
        filename: str | os.PathLike[str],
        load: Callable[[IO[Any]], Mapping[str, Any]],
        silent: bool = False,
        text: bool = True,
    ) -> bool:
        """Load a file with ``load`` (such as ``json.load``) and take its mapping."""
        path = os.path.join(self.root_path, filename)
        try:
            with open(path, "r" if text else "rb") as config_file:
                values = load(config_file)
        except OSError as exc:
            if silent and exc.errno in (errno.ENOENT, errno.EISDIR):
                return False
            exc.strerror = f"Unable to load configuration file ({exc.strerror})"
            raise
        return self.from_mapping(values)

    def from_envvar(self, variable_name: str, silent: bool = False) -> bool:
        """Load the Python file the environment variable names.

        Raises:
            RuntimeError: The variable is not set, unless ``silent``.
        """
        path = os.environ.get(variable_name)
        if not path:
            if silent:
                return False
            raise RuntimeError(
                f"The environment variable {variable_name!r} is not set: set it to the "
                "path of a configuration file"
            )
        return self.from_pyfile(path, silent=silent)

    def from_prefixed_env(
        self, prefix: str = "FLASK", *, loads: Callable[[str], Any] = json.loads
    ) -> bool:
        """Take ``PREFIX_NAME`` environment variables as ``NAME``, values JSON-decoded.

        A value that is not JSON stays a string; ``PREFIX_A__B`` sets
        ``config["A"]["B"]``.
        """
        prefix = f"{prefix}_"
        for key in sorted(os.environ):
            if not key.startswith(prefix):
                continue
            raw = os.environ[key]
            try:
                value = loads(raw)
            except Exception:
                value = raw
            key = key[len(prefix) :]
            if "__" not in key:
                self[key] = value
                continue
            current: dict[str, Any] = self
            *parts, tail = key.split("__")
            for part in parts:
                current = current.setdefault(part, {})
            current[tail] = value
        return True

    def get_namespace(
        self, namespace: str, lowercase: bool = True, trim_namespace: bool = True
    ) -> dict[str, Any]:
        """Return the settings whose names start with ``namespace``."""
        found: dict[str, Any] = {}
        for key, value in self.items():
            if not key.startswith(namespace):
                continue
            name = key[len(namespace) :] if trim_namespace else key
            found[name.lower() if lowercase else name] = value
        return found

    def __repr__(self) -> str:
        return f"<Config {dict.__repr__(self)}>"


def _import_string(name: str) -> object:
    """Import ``package.module`` or ``package.module.attribute``."""
    import importlib

    module_name, _, attribute = name.rpartition(".")
    try:
        return importlib.import_module(name)
    except ImportError:
        if not module_name:
            raise
    return getattr(importlib.import_module(module_name), attribute)
