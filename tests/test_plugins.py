"""Registries extended through entry points: lazy, per group, and a broken plugin is a warning, not a crash.

The last tests install tests/plugins/cmb_demo_plugin (a package with its own pyproject.toml) into a folder of its
own, as an installer would, and drive cmb from the command line: its backend runs an attempt of its agent, graded
by its check.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
import tomllib
import warnings
from pathlib import Path

import pytest

from cmb.plugins import PluginRegistry, PluginWarning

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tests" / "plugins" / "cmb_demo_plugin"


def fake_distribution(site: Path, name: str, entry_points: str, modules: dict[str, str]) -> None:
    """A distribution as an installer leaves it: modules and a .dist-info with entry_points.txt."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    return folder


def test_entry_points_load_on_first_read_only(site: Path) -> None:
    fake_distribution(
        site,
        "pkg_lazy",
        "[cmbtest.lazy]\nextra = pkg_lazy_mod:THING\n",
        {"pkg_lazy_mod": "import builtins\nbuiltins.pkg_lazy_loaded = True\nTHING = 'from a plugin'\n"},
    )
    import builtins

    registry: PluginRegistry[str] = PluginRegistry("cmbtest.lazy", "thing", lambda name, obj: registry.add(name, obj))
    registry.add("own", "builtin")
    assert not hasattr(builtins, "pkg_lazy_loaded")  # registering does not load plugins
    assert sorted(registry) == ["extra", "own"]
    assert registry["extra"] == "from a plugin" and builtins.pkg_lazy_loaded
    assert registry.origin("extra") == "pkg_lazy 0.1" and registry.origin("own") == "cmb"
    del builtins.pkg_lazy_loaded


def test_a_broken_plugin_is_skipped_with_a_warning_naming_it(site: Path) -> None:
    fake_distribution(
        site,
        "pkg_broken",
        "[cmbtest.broken]\nmissing = no_such_module_anywhere:X\nboom = pkg_boom:X\n"
        "twice = pkg_twice:X\nok = pkg_ok:X\n",
        {"pkg_boom": "raise RuntimeError('import-time failure')\n", "pkg_twice": "X = 2\n", "pkg_ok": "X = 1\n"},
    )
    registry: PluginRegistry[int] = PluginRegistry(
        "cmbtest.broken", "thing", lambda name, obj: registry.add("twice" if name == "twice" else name, obj)
    )
    registry.add("twice", 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dict(registry) == {"twice": 0, "ok": 1}
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, PluginWarning))
    assert len(messages) == 3
    assert "'boom' (pkg_boom:X, from pkg_broken 0.1) skipped: RuntimeError: import-time failure" in messages[0]
    assert "'missing'" in messages[1] and "ModuleNotFoundError" in messages[1]
    assert "'twice'" in messages[2] and "registered twice" in messages[2]


def test_a_plugin_may_import_its_registry_while_it_loads(site: Path) -> None:
    fake_distribution(
        site,
        "pkg_reentrant",
        "[cmbtest.reentrant]\nself = pkg_reentrant_mod\n",
        {"pkg_reentrant_mod": "import tests.test_plugins as t\nt.SHARED.add('self', len(t.SHARED))\n"},
    )
    global SHARED
    SHARED = PluginRegistry("cmbtest.reentrant", "thing")
    assert SHARED["self"] == 0  # the plugin read the registry (no recursion, no deadlock) and registered itself


def test_readers_on_other_threads_wait_for_the_whole_group(site: Path) -> None:
    fake_distribution(
        site,
        "pkg_slow",
        "[cmbtest.slow]\na = pkg_slow_a:X\nb = pkg_slow_b:X\n",
        {"pkg_slow_a": "import time\ntime.sleep(0.3)\nX = 'a'\n", "pkg_slow_b": "X = 'b'\n"},
    )
    registry: PluginRegistry[str] = PluginRegistry("cmbtest.slow", "thing", lambda name, obj: registry.add(name, obj))
    seen: list[list[str]] = []
    threads = [threading.Thread(target=lambda: seen.append(sorted(registry))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [["a", "b"]] * 4


def test_cmb_registries_name_their_entry_point_groups() -> None:
    from cmb.agents import AGENTS
    from cmb.grading import REGISTRY
    from cmb.sandbox import BACKENDS

    assert (AGENTS.group, BACKENDS.group, REGISTRY.types.group) == ("cmb.agents", "cmb.backends", "cmb.checks")
    assert AGENTS.origin("oracle") == "cmb" and BACKENDS.origin("docker") == "cmb"


# -- a plugin package, installed -----------------------------------------------------------------------------------


def write_demo_suite(root: Path) -> Path:
    task = root / "tasks" / "demo" / "demo-greet"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(
        "id: demo-greet\nstudy: demo\nkind: output-analysis\ncodes: [python]\ntitle: Say hello\n"
        "answer_files: [greeting.txt]\n"
    )
    (task / "prompt.full.md").write_text("Write a greeting to greeting.txt.\n")
    (root / "graders").mkdir()
    (root / "graders" / "demo-greet.yaml").write_text(
        "task: demo-greet\nchecks:\n"
        "  - {id: greets, type: demo.greeting, category: format, target: {file: greeting.txt}}\n"
    )
    (root / "references" / "demo-greet").mkdir(parents=True)
    (root / "references" / "demo-greet" / "reference.yaml").write_text("task: demo-greet\nvalues: {}\n")
    return root


def install(project: Path, target: Path) -> None:
    """What pip leaves in --target: the package, and a .dist-info whose entry_points.txt the pyproject declares."""
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    for package in tomllib.loads((project / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]:
        shutil.copytree(project / package, target / package)
    info = target / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    groups = meta["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for group, eps in groups.items()
        )
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo plugin installed into a folder of its own, found by cmb through importlib.metadata."""
    target = tmp_path_factory.mktemp("plugin") / "site"
    install(DEMO, target)
    return target


def cmb(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "CMB_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "cmb", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_an_installed_plugin_is_listed(installed: Path, tmp_path: Path) -> None:
    agents = json.loads(cmb(installed, tmp_path, "agents", "list", "--json").stdout)
    greeter = next(a for a in agents if a["name"] == "demo-greeter")
    assert greeter["origin"] == "cmb-demo-plugin 0.1.0" and greeter["needs_gateway"] is False
    backends = json.loads(cmb(installed, tmp_path, "backends", "list", "--json").stdout)
    assert {"name": "demo", "origin": "cmb-demo-plugin 0.1.0"}.items() <= next(
        b for b in backends if b["name"] == "demo"
    ).items()
    checks = json.loads(cmb(installed, tmp_path, "checks", "list", "--json").stdout)
    assert next(c for c in checks if c["name"] == "demo.greeting")["origin"] == "cmb-demo-plugin 0.1.0"
    assert "demo" in cmb(installed, tmp_path, "run", "--help").stdout  # a --backend choice


def test_cmb_runs_an_attempt_on_the_plugin_backend_with_its_agent_and_its_check(
    installed: Path, tmp_path: Path
) -> None:
    from cmb.models import RunRecord
    from tests.sandbox._support import require_backend

    require_backend("local")
    suite = write_demo_suite(tmp_path / "suite")
    home = tmp_path / "home"
    done = cmb(installed, home, "--root", str(suite), "run", "demo-greet", "--agent", "demo-greeter",
               "--backend", "demo", "--time-limit", "60", "--json")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    record = RunRecord.model_validate_json(done.stdout[done.stdout.index("{") :])
    assert record.passed and record.backend == "demo" and "ran on the demo backend" in record.sandbox_warnings
    assert record.grade is not None and [c.type for c in record.grade.checks] == ["demo.greeting"]

    answer = tmp_path / "answer"
    answer.mkdir()
    (answer / "greeting.txt").write_text("goodbye\n")
    graded = cmb(installed, home, "--root", str(suite), "grade", "demo-greet", str(answer))
    assert graded.returncode == 1 and "got 'goodbye'" in graded.stdout


def test_without_the_plugin_its_names_are_refused_before_anything_starts(tmp_path: Path) -> None:
    suite = write_demo_suite(tmp_path / "suite")
    home = tmp_path / "home"
    for args, message in [
        (["--agent", "demo-greeter"], "unknown agent 'demo-greeter'"),
        (["--agent", "null", "--backend", "demo"], "'demo' is not one of"),
        (["--agent", "null"], "unknown check type 'demo.greeting' in check 'greets' of demo-greet"),
    ]:
        res = cmb(tmp_path / "no-site", home, "--root", str(suite), "run", "demo-greet", *args)
        assert res.returncode == 2 and message in res.stderr, res.stderr
    assert not (home / "artifacts").exists()


def test_builtin_modules_load_on_the_first_read_before_the_plugins(site: Path) -> None:
    fake_distribution(
        site, "pkg_after", "[cmbtest.order]\nlate = pkg_after_mod:THING\n", {"pkg_after_mod": "THING = 2\n"}
    )
    (site / "pkg_builtin_mod.py").write_text("from tests_order_registry import REG\nREG.add('early', 1)\n")
    (site / "tests_order_registry.py").write_text(
        "from cmb.plugins import PluginRegistry\n"
        "REG = PluginRegistry('cmbtest.order', 'thing', lambda n, o: REG.add(n, o), ('pkg_builtin_mod',))\n"
    )
    registry = importlib.import_module("tests_order_registry").REG
    assert "pkg_builtin_mod" not in sys.modules  # making the registry imports nothing
    assert list(registry) == ["early", "late"] and registry.origin("early") == "cmb"
    assert registry.origin("late") == "pkg_after 0.1"


def test_importing_the_grading_package_loads_no_check_family() -> None:
    code = (
        "import sys, cmb.grading as g\n"
        "before = sorted(m for m in sys.modules if m.startswith(('cmb.grading.qe', 'cmb.grading.vasp', 'pymatgen')))\n"
        "types = len(g.REGISTRY.types)\n"
        "print(before, types, 'cmb.grading.qe._checks' in sys.modules, 'pymatgen' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    before, types, qe, pymatgen = out.stdout.rsplit(" ", 3)
    assert before == "[]" and int(types) >= 30 and qe == "True" and pymatgen.strip() == "False"
