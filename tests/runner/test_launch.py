"""One launch path: `prepare` resolves agent, backend, gateway and options from the key, the options and the
settings, and refuses a bad request before anything starts; `cmb run` and the sweep's attempts both use it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cmb.runner._launch
from cmb.agents import AGENTS, ExternalAgent, GatewayAccess
from cmb.catalog import TaskEntry
from cmb.cli import cli
from cmb.models import AttemptOptions, ComputePriceSheet, Condition, GatewayEndpoint, ResourceProfile, RunKey, RunRecord
from cmb.runner import LaunchError, UnknownNameError, agent_keys, preflight, prepare
from cmb.sandbox import resolve_backend
from cmb.scheduler import AttemptContext, run_with_runner
from cmb.settings import CmbSettings
from tests.runner._toy import TASK, key, write_suite
from tests.store.records import make_record


@pytest.fixture
def toy(tmp_path: Path) -> TaskEntry:
    return write_suite(tmp_path / "suite")


@pytest.fixture
def settings(tmp_path: Path, toy: TaskEntry) -> CmbSettings:
    return CmbSettings(
        root=toy.root,
        store={"home": tmp_path / "home"},
        sandbox={"image": "img:settings", "manuals": tmp_path / "manuals"},
        gateway={"url": "http://gw.example:8765"},
    )


def test_prepare_resolves_the_agent_and_model_from_the_key(toy: TaskEntry, settings: CmbSettings) -> None:
    launch = prepare(key(toy.id, "codeact@test:m"), toy, AttemptOptions(agent_options={"max_steps": "3"}), settings)
    assert launch.agent.name == "codeact" and launch.agent.model() == "test:m"
    assert launch.agent.config.max_steps == 3  # type: ignore[attr-defined]
    assert launch.backend.backend == resolve_backend("auto")


def test_what_the_options_leave_open_comes_from_the_settings(toy: TaskEntry, settings: CmbSettings) -> None:
    launch = prepare(key(toy.id, "null"), toy, AttemptOptions(backend="local"), settings)
    assert launch.options.image == "img:settings" and launch.options.gateway.url == "http://gw.example:8765"
    run = launch.run_options(GatewayAccess(), None)
    assert (run.home, run.manuals, run.image) == (settings.store.home, settings.sandbox.manuals, "img:settings")
    given = AttemptOptions(backend="local", image="img:given", gateway=GatewayEndpoint(url="http://other:1"))
    mine = prepare(key(toy.id, "null"), toy, given, settings).options
    assert (mine.image, mine.gateway.url) == ("img:given", "http://other:1")


def test_a_sweeps_profile_reaches_the_runner(toy: TaskEntry, settings: CmbSettings) -> None:
    small = ResourceProfile(name="single", cpus=1, memory_gib=2, time_limit_s=90)
    run = prepare(key(toy.id, "null"), toy, AttemptOptions(), settings, profile=small, retries=2).run_options(
        GatewayAccess(), None
    )
    assert run.profiles == {"single": small} and run.time_limit_s == 90 and run.retries == 2


@pytest.mark.parametrize(
    ("agent", "options", "message"),
    [
        ("oracel", {}, "unknown agent 'oracel'; did you mean oracle?"),
        ("null", {"backend": "nowhere"}, "unknown sandbox backend 'nowhere'"),
        ("null@openai:gpt-4o", {}, "agent 'null' takes no options"),
        ("oracle", {"agent_options": {"speed": "max"}}, "agent 'oracle' takes no options"),
        ("codeact", {"agent_options": {"max_steps": "none"}}, "agent 'codeact': 1 validation error"),
    ],
)
def test_a_bad_request_is_refused_before_anything_starts(
    toy: TaskEntry, settings: CmbSettings, agent: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(LaunchError, match="^" + message.replace("?", r"\?")):
        prepare(key(toy.id, agent), toy, AttemptOptions(**options), settings)
    assert not settings.store.home.exists()


def test_unknown_names_list_the_known_ones(toy: TaskEntry, settings: CmbSettings) -> None:
    with pytest.raises(UnknownNameError) as caught:
        prepare(key(toy.id, "nobody"), toy, AttemptOptions(), settings)
    assert caught.value.kind == "agent" and {"oracle", "null", "codeact"} <= set(caught.value.known)
    assert "known: " in str(caught.value) and "oracle" in str(caught.value)


def test_a_condition_the_task_does_not_run_under_is_refused(toy: TaskEntry, settings: CmbSettings) -> None:
    wf = RunKey(sweep="test", agent="null", task=TASK, condition=Condition.WF, trial=0)
    with pytest.raises(LaunchError, match="runs under SF, SR only"):
        prepare(wf, toy, AttemptOptions(), settings)


def test_a_grader_naming_an_unregistered_check_type_is_refused(toy: TaskEntry, settings: CmbSettings) -> None:
    grader = toy.grader_path
    grader.write_text(grader.read_text().replace("numeric.scalar", "numeric.scalr"))
    with pytest.raises(UnknownNameError, match="unknown check type 'numeric.scalr' in check 'energy' of toy-run"):
        prepare(key(toy.id, "null"), toy, AttemptOptions(), settings)


def test_agents_from_the_files_the_settings_name(toy: TaskEntry, tmp_path: Path) -> None:
    spec = tmp_path / "agents.yaml"
    spec.write_text("agents:\n  my-cli:\n    install: '-'\n    api: openai-chat\n    command: my-cli {prompt_file}\n")
    settings = CmbSettings(root=toy.root, agents={"files": [spec]})
    try:
        launch = prepare(key(toy.id, "my-cli@test:m"), toy, AttemptOptions(backend="local"), settings)
        assert isinstance(launch.agent, ExternalAgent) and launch.agent.model() == "test:m"
        assert AGENTS.origin("my-cli") == str(spec)
    finally:
        AGENTS.pop("my-cli", None)


def test_a_model_goes_to_the_agents_that_drive_one() -> None:
    assert agent_keys(["oracle", "codeact", "react@a:b", "nobody"], "openai/gpt-4o") == [
        "oracle",
        "codeact@openai:gpt-4o",
        "react@a:b",
        "nobody",  # unknown: left for the launch to refuse
    ]


def test_cmb_run_and_the_sweep_launch_through_the_same_path(
    toy: TaskEntry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[Any, ...]] = []

    def record_launch(k: RunKey, entry: TaskEntry, agent: Any, backend: Any, options: Any) -> RunRecord:
        seen.append((str(k), agent.name, backend.backend, options.image, options.home, options.manuals,
                     options.time_limit_s, options.gateway))  # fmt: skip
        return make_record(k)

    monkeypatch.setattr(cmb.runner._launch, "run_attempt", record_launch)
    env = {"CMB_HOME": str(tmp_path / "home"), "CMB_SANDBOX_IMAGE": "img:env", "CMB_MANUALS": str(tmp_path / "m")}
    argv = ["--root", str(toy.root), "run", TASK, "--agent", "null", "--backend", "local", "--time-limit", "60"]
    result = CliRunner().invoke(cli, argv, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    profile = ResourceProfile(name="single", cpus=4, memory_gib=16, time_limit_s=60)
    context = AttemptContext(profile=profile, options=AttemptOptions(backend="local"), settings=CmbSettings())
    run_with_runner(RunKey.parse(f"adhoc/null/{TASK}/SF/0"), toy, context)
    assert len(seen) == 2 and seen[0] == seen[1], seen
    assert seen[0][1:7] == ("null", "local", "img:env", tmp_path / "home", tmp_path / "m", 60)


def test_a_users_price_sheet_reaches_the_runner_and_a_broken_one_is_refused_first(
    toy: TaskEntry, settings: CmbSettings, tmp_path: Path
) -> None:
    assert (
        prepare(key(toy.id, "null"), toy, AttemptOptions(), settings).run_options(GatewayAccess(), None).compute_prices
        == ComputePriceSheet.pinned()
    )
    sheet = tmp_path / "prices.yaml"
    sheet.write_text("version: mine-1\nvcpu_hour_usd: 0.1\ngib_hour_usd: 0.01\n")
    mine = settings.model_copy(update={"sandbox": settings.sandbox.model_copy(update={"compute_prices": sheet})})
    run = prepare(key(toy.id, "null"), toy, AttemptOptions(), mine).run_options(GatewayAccess(), None)
    assert run.compute_prices.version == "mine-1"
    for text in ("version: x\nvcpu_hour_usd: -1\ngib_hour_usd: 0\n", "{unclosed", None):
        if text is None:
            sheet.unlink()
        else:
            sheet.write_text(text)
        with pytest.raises(LaunchError, match="compute price sheet"):
            prepare(key(toy.id, "null"), toy, AttemptOptions(), mine)
        with pytest.raises(LaunchError, match="compute price sheet"):
            preflight(None, "local", [toy], AttemptOptions(), mine)


@pytest.mark.parametrize(
    ("pooled", "exclusive", "warm_pool", "spares"),
    [(True, False, 8, 8), (True, False, 3, 3), (True, False, 0, None), (True, True, 8, None), (False, False, 8, None)],
)
def test_a_sweeps_attempts_take_warm_sandboxes_but_node_exclusive_ones_and_cmb_run_do_not(
    toy: TaskEntry, settings: CmbSettings, monkeypatch: pytest.MonkeyPatch,
    pooled: bool, exclusive: bool, warm_pool: int, spares: int | None,
) -> None:  # fmt: skip
    seen: list[int | None] = []

    def record_launch(k: RunKey, entry: TaskEntry, agent: Any, backend: Any, options: Any) -> RunRecord:
        seen.append(options.pool_spares)
        return make_record(k)

    monkeypatch.setattr(cmb.runner._launch, "run_attempt", record_launch)
    sized = settings.model_copy(update={"sandbox": settings.sandbox.model_copy(update={"warm_pool": warm_pool})})
    profile = ResourceProfile(name="single", cpus=1, memory_gib=1, time_limit_s=60, node_exclusive=exclusive)
    options = AttemptOptions(backend="local")
    prepare(key(toy.id, "null"), toy, options, sized, profile=profile).run(pooled=pooled)
    assert seen == [spares]
