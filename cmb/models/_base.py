"""The base every cmb record derives from: strict, versioned, JSON-safe."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

SCHEMA_VERSION = 1


class CmbModel(BaseModel):
    """Strict pydantic model: unknown fields are errors, NaN serialises as a string."""

    model_config = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="strings")
