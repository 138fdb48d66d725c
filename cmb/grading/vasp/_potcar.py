"""POTCAR datasets by symbol: from POTCAR headers (nothing past them is read), POTCAR.spec or potcar.json."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cmb.grading._compare import show
from cmb.grading._submission import SubmissionError


@dataclass(frozen=True)
class PotcarInfo:
    """What a POTCAR (header lines only) or a POTCAR.spec / potcar.json says, one item per dataset."""

    source: str
    symbols: list[str]
    enmax: list[float] | None = None
    enmin: list[float] | None = None
    lexch: list[str] | None = None

    @property
    def elements(self) -> list[str]:
        """The element of each dataset symbol (Ni_pv -> Ni, H1.25 -> H)."""
        return [element_of(s) for s in self.symbols]


def element_of(symbol: str) -> str:
    """The element of a dataset symbol (Ni_pv -> Ni, H1.25 -> H)."""
    m = re.match(r"[A-Z][a-z]?", symbol)
    return m.group() if m else symbol


def _single(values: list[str]) -> str | None:
    return values[0] if values and all(v == values[0] for v in values) else None


POTCAR_FUNCTIONS: dict[str, Callable[[PotcarInfo], Any]] = {
    "max_enmax": lambda p: max(p.enmax) if p.enmax else None,
    "max_enmin": lambda p: max(p.enmin) if p.enmin else None,
    "lexch": lambda p: _single(p.lexch) if p.lexch else None,
}

_HEADER_NUMBER = r"\s*=\s*([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)"


def parse_potcar(text: str, name: str) -> PotcarInfo:
    """Symbols, ENMAX, ENMIN and LEXCH from the header of each dataset of a POTCAR (nothing else is read)."""
    symbols: list[str] = []
    enmax: list[float] = []
    enmin: list[float] = []
    lexch: list[str] = []
    for dataset in re.split(r"End of Dataset", text):
        header = "\n".join(dataset.lstrip().splitlines()[:80])
        titel = re.search(r"^\s*TITEL\s*=\s*(.+)$", header, re.M)
        if titel is None:
            continue
        words = titel.group(1).split()
        symbols.append(words[1] if len(words) > 1 else words[0])
        for key, bucket in (("ENMAX", enmax), ("ENMIN", enmin)):
            m = re.search(key + _HEADER_NUMBER, header)
            if m:
                bucket.append(float(m.group(1)))
        m = re.search(r"^\s*LEXCH\s*=\s*(\S+)", header, re.M)
        if m:
            lexch.append(m.group(1).upper())
    if not symbols:
        raise SubmissionError(f"{name}: no TITEL line: not a POTCAR")
    n = len(symbols)
    return PotcarInfo(
        name,
        symbols,
        enmax if len(enmax) == n else None,
        enmin if len(enmin) == n else None,
        lexch if len(lexch) == n else None,
    )


def parse_potcar_spec(text: str, name: str) -> PotcarInfo:
    """POTCAR.spec: one dataset per line, a bare symbol (Ni_pv) or a TITEL (PAW_PBE Ni_pv 06Sep2000)."""
    symbols = []
    for n, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        symbol = words[1] if words[0].upper().startswith(("PAW", "US")) and len(words) > 1 else words[0]
        if not re.fullmatch(r"[A-Z][a-z]?[A-Za-z0-9_.]*", symbol):
            raise SubmissionError(f"{name}:{n}: {show(symbol)!r} is not a POTCAR symbol")
        symbols.append(symbol)
    if not symbols:
        raise SubmissionError(f"{name}: lists no POTCAR symbols")
    return PotcarInfo(name, symbols)


def parse_potcar_json(doc: Any, name: str) -> PotcarInfo:
    """potcar.json: ["Ni_pv", "O"], {"symbols": [...]}, or [{"symbol": "Ni_pv"}, ...]."""
    items = doc.get("symbols") if isinstance(doc, dict) else doc
    if isinstance(items, list):
        symbols = [i.get("symbol") if isinstance(i, dict) else i for i in items]
        texts = [s.strip() for s in symbols if isinstance(s, str) and s.strip()]
        if symbols and len(texts) == len(symbols):
            return parse_potcar_spec("\n".join(texts), name)
    raise SubmissionError(f"{name}: expected a list of POTCAR symbols")
