"""The built-in LLM agent programs: stdlib-only files copied into the sandbox and run by its python3.

`codeact.py` (a code-first loop over a persistent Python kernel, `kernel.py`) and `react.py` (tool calling with
write_file, run_shell, read_file, submit) share `_agentlib.py` (the chat client, time budget, trajectory). They
import nothing outside the standard library, so any image with python3 runs them.
"""

from pathlib import Path

PROGRAMS_DIR = Path(__file__).parent
PROGRAM_FILES = ("_agentlib.py", "kernel.py", "codeact.py", "react.py")

__all__ = ["PROGRAMS_DIR", "PROGRAM_FILES"]
