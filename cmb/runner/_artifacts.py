"""Per-attempt artifacts: built in a hidden temporary folder, then moved into place in one rename."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from cmb.models import RunKey


def artifacts_path(home: Path, key: RunKey) -> Path:
    """CMB_HOME/artifacts/<sweep>/<key slug>/."""
    return Path(home) / "artifacts" / key.sweep / key.slug


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write a file through a temporary name and a rename, so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        Path(tmp).chmod(0o644)  # mkstemp makes 0600; artifacts are for readers other than the harness
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ArtifactDir:
    """A staging folder next to the final one; `commit` swaps it in."""

    def __init__(self, final: Path) -> None:
        self.final = final
        final.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=final.parent))
        self.path.chmod(0o755)

    def commit(self) -> Path:
        """Replace any earlier artifacts of this attempt by the staged ones."""
        old: Path | None = None
        if self.final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.old-", dir=self.final.parent))
            self.final.replace(old / "x")
        self.path.replace(self.final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.final

    def discard(self) -> None:
        """Drop the staging folder."""
        shutil.rmtree(self.path, ignore_errors=True)
