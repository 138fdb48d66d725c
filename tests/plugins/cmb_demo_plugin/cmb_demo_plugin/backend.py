"""The `demo` backend: cmb's local sandbox under another name, saying so in the record's sandbox warnings."""

from __future__ import annotations

from cmb.sandbox import LocalSandbox

MARK = "ran on the demo backend"


class DemoSandbox(LocalSandbox):
    """The local sandbox, packaged by a plugin."""

    def start(self) -> None:
        super().start()
        self.warnings.append(MARK)
