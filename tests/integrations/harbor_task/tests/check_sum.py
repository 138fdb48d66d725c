"""The Harbor test task's check: the sum in the answer file is the expected one."""

import math
import sys
from pathlib import Path

try:
    found = float(Path(sys.argv[1]).read_text().split()[0])
except (OSError, ValueError, IndexError) as exc:
    sys.exit(f"no sum: {exc}")
sys.exit(0 if math.isclose(found, float(sys.argv[2]), abs_tol=1e-9) else f"sum {found}, not {sys.argv[2]}")
