"""The input files of one VASP calculation, read on demand from a submission or from the hidden reference."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from cmb.grading._registry import CheckContext, GraderConfigError
from cmb.grading._structure import parse_structure
from cmb.grading._submission import Submission, SubmissionError, memoized
from cmb.grading.vasp._incar import Incar, parse_incar
from cmb.grading.vasp._potcar import PotcarInfo, element_of, parse_potcar, parse_potcar_json, parse_potcar_spec
from cmb.grading.vasp._resolver import IncarResolver

if TYPE_CHECKING:
    from pymatgen.core.structure import Structure


class InputFiles:
    """Files of one VASP calculation folder: INCAR, POSCAR, POTCAR (or its spec), read on demand."""

    POTCAR_NAMES = ("POTCAR", "POTCAR.spec", "potcar.json")

    def __init__(self, read: Callable[[str], str], exists: Callable[[str], bool], folder: str = "") -> None:
        self._read, self._exists, self.folder = read, exists, folder
        self._cache: dict[str, Any] = {}

    @classmethod
    def of_submission(cls, sub: Submission, target_file: str) -> InputFiles:
        """The folder of a submission file.

        A link or other non-file at a name counts as present (and then fails when read), so a symlinked
        POTCAR or KPOINTS is reported rather than taken as absent.
        """

        def exists(name: str) -> bool:
            return sub.exists(name) or os.path.lexists(sub.root / name)

        folder = str(PurePosixPath(target_file.replace("\\", "/")).parent)
        key = f"vasp.files:{folder}"  # one per folder and grade: every check reads the same parsed files
        if key not in sub.memo:
            sub.memo[key] = cls(sub.read_text, exists, folder)
        return sub.memo[key]  # type: ignore[no-any-return]

    @classmethod
    def of_reference(cls, ctx: CheckContext[Any]) -> InputFiles:
        """Hidden reference files: a problem with them is the grader's, raised as GraderConfigError."""

        def read(name: str) -> str:
            return ctx.reference_file(name).read_text()

        def exists(name: str) -> bool:
            return ctx.reference_dir is not None and (ctx.reference_dir / name).is_file()

        return cls(read, exists)

    def path(self, name: str) -> str:
        """`name` inside this folder."""
        return name if self.folder in ("", ".") else f"{self.folder}/{name}"

    def exists(self, name: str) -> bool:
        """Whether a regular file `name` is in the folder."""
        return self._exists(self.path(name))

    def text(self, name: str) -> str:
        """The text of `name` (SubmissionError if missing or unsafe)."""
        return self._read(self.path(name))

    def _cached(self, key: str, make: Callable[[], Any]) -> Any:
        return memoized(self._cache, key, make)

    def incar(self, name: str = "INCAR") -> Incar:
        """The parsed INCAR."""
        return self._cached(f"incar:{name}", lambda: parse_incar(self.text(name), self.path(name)))  # type: ignore[no-any-return]

    def potcar(self, name: str | None = None) -> PotcarInfo | None:
        """POTCAR header, or POTCAR.spec / potcar.json; None when there is none."""

        def load() -> PotcarInfo | None:
            for candidate in [name] if name else self.POTCAR_NAMES:
                if not self.exists(candidate):
                    continue
                text, path = self.text(candidate), self.path(candidate)
                if candidate.lower().endswith(".json"):
                    try:
                        return parse_potcar_json(json.loads(text), path)
                    except ValueError:
                        raise SubmissionError(f"{path}: invalid JSON") from None
                if "spec" in candidate.lower():
                    return parse_potcar_spec(text, path)
                return parse_potcar(text, path)
            return None

        return self._cached(f"potcar:{name}", load)  # type: ignore[no-any-return]

    def structure(self, name: str = "POSCAR") -> Structure:
        """The POSCAR as a structure (a VASP-4 POSCAR takes its species from the POTCAR)."""

        def load() -> Structure:
            text = self.text(name)
            species = None
            lines = text.splitlines()
            if len(lines) > 5 and lines[5].split() and all(t.isdigit() for t in lines[5].split()):
                info = self.potcar()
                species = info.elements if info else None
            return parse_structure(text, self.path(name), "poscar", species)

        return self._cached(f"structure:{name}", load)  # type: ignore[no-any-return]

    def poscar_species(self, name: str = "POSCAR") -> list[str] | None:
        """Species names on the POSCAR's species line, or None for a VASP-4 POSCAR (species from the POTCAR)."""
        lines = self.text(name).splitlines()
        if len(lines) < 6:
            raise SubmissionError(f"{self.path(name)}: too short for a POSCAR")
        tokens = lines[5].split()
        if tokens and all(t.isdigit() for t in tokens):
            return None
        return [element_of(t.split("/")[0]) for t in tokens]

    def resolver(self, incar: str = "INCAR", poscar: str = "POSCAR", potcar: str | None = None) -> IncarResolver:
        """Effective INCAR values of this calculation."""
        return IncarResolver(
            self.incar(incar), nions=lambda: len(self.structure(poscar)), potcar=lambda: self.potcar(potcar)
        )


def reference_side(ctx: CheckContext[Any], make: Callable[[], Any]) -> Any:
    """Run `make` on reference files, turning any problem into a GraderConfigError."""
    try:
        return make()
    except SubmissionError as exc:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference input: {exc}") from None
