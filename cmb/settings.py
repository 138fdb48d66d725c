"""One settings object for the whole harness; every field has a CMB_* environment variable."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def _discover_root() -> Path:
    """The suite root: the current folder if it holds tasks/, else the source checkout cmb was installed from."""
    cwd = Path.cwd()
    if (cwd / "tasks").is_dir() and (cwd / "graders").is_dir():
        return cwd
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "tasks").is_dir():
        return checkout
    return cwd


def _default_manuals() -> Path:
    from cmb.manuals import default_library

    return default_library()


class CmbSettings(BaseSettings):
    """Harness settings, read from CMB_* environment variables."""

    model_config = SettingsConfigDict(env_prefix="CMB_", extra="forbid")

    root: Path = Field(default_factory=_discover_root, description="Suite root holding tasks/, graders/, references/")
    home: Path = Field(default=Path("cmb-data"), description="Where results, mlflow.db and artifacts are kept")
    manuals: Path = Field(
        default_factory=_default_manuals,
        description="The offline manuals library (`cmb manuals build`), mounted read-only in every sandbox",
    )
