"""Registries that other packages extend through entry points.

A registry maps names to what they name: an agent factory, a sandbox backend, a check type. cmb's own entries
register when their modules are imported; another package adds its own under an entry-point group of its
pyproject.toml, and cmb finds them once that package is installed:

```toml
[project.entry-points."cmb.agents"]
my-agent = "my_pkg.agents:MyAgent"        # an Agent subclass, or a factory called with the agent's options
[project.entry-points."cmb.backends"]
my-sandbox = "my_pkg.sandbox:MySandbox"   # a Sandbox subclass
[project.entry-points."cmb.checks"]
my-code = "my_pkg.checks"                 # a module that registers check types `my-code.*` when imported
```

A group is loaded once, on the first lookup, so importing cmb stays cheap and a plugin may import cmb freely. A
plugin that fails to load is skipped with a `PluginWarning` naming it and its package; the rest of cmb goes on.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator, MutableMapping
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

AGENTS_GROUP = "cmb.agents"
BACKENDS_GROUP = "cmb.backends"
CHECKS_GROUP = "cmb.checks"
BUILTIN = "cmb"  # the origin of what cmb itself registers

T = TypeVar("T")

# Called with an entry point's name and the object it loaded; adds it to the registry (unless the plugin's import
# already did) or raises TypeError/ValueError to have the plugin skipped.
Installer = Callable[[str, object], None]


class PluginWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


def _origin(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"{dist.name} {dist.version}" if dist is not None else ep.value


class PluginRegistry(MutableMapping[str, T]):
    """Name -> entry; reading it loads the entry points of its group first (once, thread-safe).

    Writes do not load plugins: cmb's modules register while they are being imported, before any plugin may run.
    `builtins` names cmb's own modules that register entries when imported: the first read imports them, before
    the plugins, so a process that never looks an entry up never pays for them.
    """

    def __init__(
        self, group: str | None, kind: str, install: Installer | None = None, builtins: tuple[str, ...] = ()
    ) -> None:
        self.group = group  # None: a registry with no plugins (tests build their own)
        self.kind = kind  # what an entry is, for messages: "agent", "sandbox backend", "check type"
        self._install = install
        self._builtins = builtins
        self._items: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._adding_as = BUILTIN
        self._loaded = group is None and not builtins
        self._loading = False
        self._lock = threading.RLock()

    def add(self, name: str, item: T, *, origin: str | None = None, replace: bool = False) -> None:
        """Register `item` under `name`; a second registration of a name is an error unless `replace`."""
        with self._lock:
            if name in self._items and not replace:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            self._items[name] = item
            self._origins[name] = origin or self._adding_as

    def origin(self, name: str) -> str:
        """Who registered `name`: "cmb", a plugin's distribution and version, or a file."""
        self.load()
        return self._origins[name]

    def unknown(self, name: str) -> KeyError:
        """The error for a name that is not registered, listing the known ones."""
        return KeyError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self))}")

    def load(self) -> None:
        """Import the builtin modules, then load the group's entry points, once.

        A broken plugin is skipped with a PluginWarning; a broken builtin module raises.
        """
        if self._loaded:
            return
        with self._lock:  # other threads wait here until loading is complete
            if self._loaded or self._loading:  # _loading: this thread, re-entering from a plugin's import
                return
            self._loading = True
            try:
                for module in self._builtins:
                    import_module(module)
                for ep in sorted(entry_points(group=self.group or ""), key=lambda e: e.name):
                    self._load_one(ep)
            finally:
                self._adding_as = BUILTIN
                self._loaded = True
                self._loading = False

    def _load_one(self, ep: EntryPoint) -> None:
        self._adding_as = _origin(ep)
        try:
            loaded = ep.load()
            if self._install is not None:
                self._install(ep.name, loaded)
        except Exception as exc:  # a broken plugin must not take cmb down with it
            warnings.warn(
                f"{self.group} plugin {ep.name!r} ({ep.value}, from {_origin(ep)}) skipped: "
                f"{type(exc).__name__}: {exc}",
                PluginWarning,
                stacklevel=4,
            )

    def __getitem__(self, name: str) -> T:
        self.load()
        return self._items[name]

    def __setitem__(self, name: str, item: T) -> None:
        self.add(name, item, replace=True)

    def __delitem__(self, name: str) -> None:
        with self._lock:
            del self._items[name]
            self._origins.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._items))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def __repr__(self) -> str:
        return f"PluginRegistry({self.group!r}, {sorted(self._items)})"
