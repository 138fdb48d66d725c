"""The recipe of the manuals library: pinned sources, what to select from them, pages generated here."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

SOURCES = Path(__file__).with_name("sources.toml")
FORMAT = 1  # bump when the library's layout changes, so existing copies are rebuilt
CLIENTS = ("apt", "pip", "url")  # how a source is fetched: apt-get source, pip download, or a plain URL


class LibraryError(RuntimeError):
    """The library cannot be built: a source is unreachable, altered or unsafe."""


@dataclass(frozen=True)
class Selection:
    glob: str
    into: str
    flatten: bool = False
    max_bytes: int | None = None


@dataclass(frozen=True)
class ProgramDoc:
    file: str
    program: str
    into: str


@dataclass(frozen=True)
class Source:
    """One pinned archive. Exactly one of `apt`, `pip`, `url` says how it is fetched; `sha256` pins its bytes.

    `apt`: a Debian source package `name=version` of `suite`, fetched with `apt-get source`; `file` names the
    archive among the files it downloads. `pip`: `name==version`, whose sdist `file` is fetched with
    `pip download`. `url`: any URL (a local mirror, a file), its last path segment the file name.
    """

    name: str
    title: str
    origin: str
    sha256: str
    apt: str = ""
    suite: str = ""
    pip: str = ""
    url: str = ""
    file: str = ""
    select: tuple[Selection, ...] = ()
    program_doc: tuple[ProgramDoc, ...] = ()

    @property
    def client(self) -> str:
        """apt, pip or url."""
        return next(c for c in CLIENTS if getattr(self, c))

    @property
    def archive(self) -> str:
        """The archive's file name."""
        return self.file or PurePosixPath(self.url.split("?")[0]).name

    def check(self) -> None:
        """A LibraryError naming the source when its fetch fields do not say one way to fetch one file."""
        given = [c for c in CLIENTS if getattr(self, c)]
        if len(given) != 1:
            raise LibraryError(f"source {self.name!r}: give exactly one of {', '.join(CLIENTS)} (got {given})")
        if self.apt and not self.suite:
            raise LibraryError(f"source {self.name!r}: an apt source names its Debian suite")
        if not self.archive or PurePosixPath(self.archive).name != self.archive:
            raise LibraryError(f"source {self.name!r}: {self.archive!r} is not a file name")


@dataclass(frozen=True)
class Generated:
    into: str
    command: tuple[str, ...] = ()
    pydoc: str = ""


@dataclass
class Recipe:
    sources: list[Source]
    generated: list[Generated] = field(default_factory=list)
    digest: str = ""  # of the recipe text and the layout version: what decides the library's content


def load_recipe(path: Path = SOURCES) -> Recipe:
    """Read the pinned sources; a malformed recipe is an error naming the entry."""
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
        sources = [
            Source(
                **{k: v for k, v in s.items() if k not in ("select", "program_doc")},
                select=tuple(Selection(**x) for x in s.get("select", [])),
                program_doc=tuple(ProgramDoc(**x) for x in s.get("program_doc", [])),
            )
            for s in data.get("source", [])
        ]
        generated = [Generated(**{**g, "command": tuple(g.get("command", ()))}) for g in data.get("generated", [])]
    except (tomllib.TOMLDecodeError, TypeError) as exc:
        raise LibraryError(f"{path}: {exc}") from None
    for source in sources:
        source.check()
    for target in [x.into for s in sources for x in s.select] + [g.into for g in generated]:
        safe_relative(target)
    digest = hashlib.sha256(f"{FORMAT}\n{text}".encode()).hexdigest()[:16]
    return Recipe(sources, generated, digest)


def safe_relative(target: str) -> None:
    """A LibraryError when a library path would leave the library."""
    parts = PurePosixPath(target).parts
    if not parts or target.startswith("/") or ".." in parts:
        raise LibraryError(f"library path {target!r} must stay inside the library")
