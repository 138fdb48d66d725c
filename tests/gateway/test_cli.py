"""`cmb gateway serve | token | usage | price` as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from cmb.cli import cli
from tests.gateway.helpers import CHAT, post
from tests.gateway.scripted_upstream import ScriptedUpstream


def test_serve_issue_call_and_read_usage(tmp_path: Path):
    env = {**os.environ, "CMB_HOME": str(tmp_path / "home"), "LOCAL_KEY": "sk-local"}
    with ScriptedUpstream([{"content": "hi", "usage": {"prompt": 40, "completion": 2}}], key="sk-local") as up:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from cmb.cli import main; main()",
                "gateway",
                "serve",
                "--port",
                "0",
                "--upstream",
                f"vllm={up.base_url}",
                "--upstream-key-env",
                "vllm=LOCAL_KEY",
                "--default-upstream",
                "vllm",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            port = json.loads(proc.stdout.readline())["port"]
            url = f"http://127.0.0.1:{port}"
            key_file = tmp_path / "home" / "gateway" / "admin.key"
            assert key_file.stat().st_mode & 0o777 == 0o600
            runner = CliRunner(env={"CMB_HOME": str(tmp_path / "home")})
            out = runner.invoke(
                cli, ["gateway", "token", "s/a/t/SF/0", "--model", "some-model", "--url", url, "--max-requests", "3"]
            )
            assert out.exit_code == 0, out.output
            token = out.output.strip()
            status, raw = post(f"{url}/v1/chat/completions", CHAT, token)
            assert status == 200 and up.requests[0]["model"] == "some-model"  # bare name: the default upstream
            out = runner.invoke(cli, ["gateway", "usage", "s/a/t/SF/0", "--url", url])
            usage = json.loads(out.output)
            assert usage["input_tokens"] == 40 and usage["cost_usd"] is None and usage["budget"]["max_requests"] == 3
            out = runner.invoke(cli, ["gateway", "usage", "s/a/t/SF/0", "--records-dir", str(key_file.parent)])
            assert json.loads(out.output)["requests"] == 1
            bad = runner.invoke(cli, ["gateway", "token", "x", "--url", url, "--admin-key", "wrong"])
            assert bad.exit_code != 0 and "401" in bad.output
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    assert proc.returncode == 0


def test_price_command_uses_the_pinned_table():
    out = CliRunner().invoke(
        cli, ["gateway", "price", "openai/gpt-4o-mini", "--input-tokens", "1000000", "--output-tokens", "0"]
    )
    doc = json.loads(out.output)
    assert doc["cost_usd"] == 0.15 and doc["price_table"].startswith("genai-prices==")
    out = CliRunner().invoke(cli, ["gateway", "price", "local/tiny"])
    assert json.loads(out.output)["cost_usd"] is None
