"""The offline manuals library: the codes' own documentation, built from pinned sources, mounted read-only."""

from cmb.manuals._build import MOUNT_POINT, build_library, default_library, is_current, program_header, read_manifest
from cmb.manuals._fetch import debian_mirror
from cmb.manuals._recipe import LibraryError, load_recipe

__all__ = [
    "MOUNT_POINT",
    "LibraryError",
    "build_library",
    "debian_mirror",
    "default_library",
    "is_current",
    "load_recipe",
    "program_header",
    "read_manifest",
]
