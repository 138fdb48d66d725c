"""Reference values of bas-near-field-heat-flux from the staged force constants and DFPT output: the oracle's tool
(../solution/nearfield.py). Usage: values.py WORKSPACE [OUT.json]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import nearfield as nf  # noqa: E402


def main() -> None:
    values = nf.answer(Path(sys.argv[1]))
    text = json.dumps(values, indent=2) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
