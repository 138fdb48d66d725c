"""The offline manuals library: the codes' own documentation, built from pinned sources, mounted read-only."""

from cmb.manuals._build import (
    MOUNT_POINT,
    LibraryError,
    build_library,
    default_library,
    is_current,
    load_recipe,
    program_header,
    read_manifest,
)

__all__ = [
    "MOUNT_POINT",
    "LibraryError",
    "build_library",
    "default_library",
    "is_current",
    "load_recipe",
    "program_header",
    "read_manifest",
]
