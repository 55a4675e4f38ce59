"""league/accel: the decision's modules (and poke-env's battle state) compiled by Cython are
served only while fresh, and they compute what the plain Python computes (the observation
digest, both ways)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from league import accel

REPO = Path(__file__).resolve().parents[2]

TOY = '''\
from pathlib import Path

DATA = Path(__file__).with_name("toy.json")


def score(xs, k=3):
    """Floats, ints, a closure and a generator: Python's semantics all through."""
    scale = lambda v: v * 1.5 // 1 + k  # noqa: E731
    return sum(scale(x) for x in xs) / max(len(xs), 1), int(2**70 // 3), DATA.read_text()
'''


def _import_fresh(name: str, finder: accel.AccelFinder, where: Path):
    sys.modules.pop(name, None)
    sys.path.insert(0, str(where))
    sys.meta_path.insert(0, finder)
    try:
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(where))
        sys.modules.pop(name, None)


@pytest.mark.skipif(accel.compiler() is None, reason="no C compiler on this machine")
def test_a_build_is_served_while_its_source_is_unchanged_and_never_once_it_is_stale(tmp_path):
    src = tmp_path / "acceltoy.py"
    src.write_text(TOY)
    (tmp_path / "toy.json").write_text("data beside the source")
    finder = accel.AccelFinder({"acceltoy": (src, None)})
    assert finder.find_spec("acceltoy") is None  # not built: the ordinary import
    plain = _import_fresh("acceltoy", finder, tmp_path)
    assert plain.__file__ == str(src)

    accel.compile_module("acceltoy", src, accel.artifact_of(src))
    built = _import_fresh("acceltoy", finder, tmp_path)
    assert built.__file__ == str(accel.artifact_of(src)) and built.__file__.endswith(accel.EXT_SUFFIX)
    xs = [1, 2.25, -3.5, 10**20]
    assert (
        built.score(xs)
        == plain.score(xs)
        == (sum(v * 1.5 // 1 + 3 for v in xs) / 4, 2**70 // 3, "data beside the source")
    )
    assert finder.find_spec("other") is None  # it answers only for its own modules

    src.write_text(TOY.replace("k=3", "k=4"))  # edited: the build is stale
    assert finder.find_spec("acceltoy") is None
    again = _import_fresh("acceltoy", finder, tmp_path)
    assert again.__file__ == str(src) and again.score([1])[0] == 5.0


def test_the_build_key_follows_the_source_bytes(tmp_path):
    a, b = tmp_path / "a" / "m.py", tmp_path / "b" / "m.py"
    for p, text in ((a, "x = 1\n"), (b, "x = 1\n")):
        p.parent.mkdir()
        p.write_text(text)
    assert accel.artifact_of(a).name == accel.artifact_of(b).name
    b.write_text("x = 2\n")
    assert accel.artifact_of(a).name != accel.artifact_of(b).name
    assert accel.artifact_of(a).name.startswith("m.") and accel.artifact_of(a).name.endswith(
        ".accel" + accel.EXT_SUFFIX
    )


@pytest.mark.skipif(accel.compiler() is None, reason="no C compiler on this machine")
def test_an_installed_packages_module_is_built_outside_the_package_and_served_only_while_fresh(tmp_path):
    """poke-env's battle state is compiled from its installed files as they are: the build
    goes to league's own folder (nothing is written into the package), and an upgrade (the
    installed file changed) falls back to the plain module."""
    pkg = tmp_path / "site" / "acceltoypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text(
        TOY.replace('Path(__file__).with_name("toy.json")', "None").replace("DATA.read_text()", "0")
    )
    before = sorted(p.name for p in pkg.iterdir())
    sys.path.insert(0, str(tmp_path / "site"))
    try:
        src = accel.installed_source("acceltoypkg.core")
        assert src == pkg / "core.py"
        assert accel.installed_source("acceltoypkg.absent") is None and accel.installed_source("nosuchpkg.x") is None
        where = tmp_path / "build"
        so = accel.artifact_of(src, "acceltoypkg.core", where)
        assert so.parent == where and so.name.startswith("acceltoypkg.core.")
        finder = accel.AccelFinder({"acceltoypkg.core": (src, where)})
        assert finder.find_spec("acceltoypkg.core") is None
        accel.compile_module("acceltoypkg.core", src, so)
        built = _import_fresh("acceltoypkg.core", finder, tmp_path / "site")
        assert built.__file__ == str(so)
        assert built.score([1, 2.5]) == ((1 * 1.5 // 1 + 3 + 2.5 * 1.5 // 1 + 3) / 2, 2**70 // 3, 0)
        assert sorted(p.name for p in pkg.iterdir() if p.name != "__pycache__") == before  # the package untouched

        (pkg / "core.py").write_text((pkg / "core.py").read_text() + "\nUPGRADED = True\n")
        assert finder.find_spec("acceltoypkg.core") is None
        again = _import_fresh("acceltoypkg.core", finder, tmp_path / "site")
        assert again.__file__ == str(src) and again.UPGRADED
        assert accel._builds(src, "acceltoypkg.core", where) == [so]  # the stale build, until build() clears it
    finally:
        sys.path.remove(str(tmp_path / "site"))
        for m in ("acceltoypkg.core", "acceltoypkg"):
            sys.modules.pop(m, None)


def test_poke_envs_battle_state_is_among_the_compiled_modules():
    every = accel.targets()
    assert set(accel.EXTERNAL) <= set(every)  # poke-env is a dependency: always installed here
    for m in accel.EXTERNAL:
        src, where = every[m]
        assert where == accel.BUILD and src.parts[-3:-1] == ("poke_env", "battle") and src.is_file()
        assert "__file__" not in src.read_text()  # a compiled copy's __file__ is its build's


def test_the_decisions_modules_are_the_compiled_ones_wherever_built():
    """`make test` builds first (make setup); a module built from its source as it is now
    must be what the import serves (ours and poke-env's)."""
    import poke_env.battle  # noqa: F401

    import league.battle.context  # noqa: F401  (the decision's modules, all imported)

    built = [m for m, s in accel.status().items() if s == "compiled"]
    if not accel.enabled() or not built:
        pytest.skip("no fresh build here (LEAGUE_ACCEL=0, or `make accel` not run since an edit)")
    got = accel.loaded()
    assert {m: got.get(m) for m in built} == dict.fromkeys(built, True)


def test_plain_python_encodes_every_recorded_decision_to_the_recorded_bytes_too():
    """The observation-identity test runs in this process (compiled, where built); the same
    digest again with LEAGUE_ACCEL=0 in a child, so both ways match the recorded bytes."""
    code = (
        "import json, league.accel as a, league.battle.obs as o\n"
        "from tests.unit.test_obs_identity import digests\n"
        "assert not any(a.loaded().values()), a.loaded()\n"
        "print(json.dumps(digests()))\n"
    )
    env = {**os.environ, accel.ENV: "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    want = json.loads((REPO / "tests" / "data" / "obs_digest.json").read_text())["sources"]
    assert json.loads(out.stdout) == want


def test_mode_and_the_runs_note_follow_the_builds_and_the_switch(monkeypatch):
    names = [*accel.MODULES, *accel.EXTERNAL]
    n = len(names)
    every = dict.fromkeys(names, "compiled")
    monkeypatch.setattr(accel, "status", lambda modules=None: every)
    assert accel.mode() == "compiled" and accel.note() is None
    one_stale = {**every, "poke_env.battle.pokemon": "stale"}  # poke-env upgraded since the build
    monkeypatch.setattr(accel, "status", lambda modules=None: one_stale)
    assert accel.mode() == "partial"
    assert (
        accel.note().startswith(f"note: 1 of the simulator's {n} compiled modules run as plain Python")
        and "make accel" in accel.note()
    )
    monkeypatch.setattr(accel, "status", lambda modules=None: dict.fromkeys(names, "not built"))
    assert accel.mode() == "plain"
    monkeypatch.setenv(accel.ENV, "0")  # switched off: plain whatever is built, and nothing to say
    monkeypatch.setattr(accel, "status", lambda modules=None: every)
    assert accel.mode() == "plain" and accel.note() is None


def test_modules_named_in_league_accel_plain_are_served_as_their_sources(monkeypatch):
    monkeypatch.setenv(accel.PLAIN_ENV, " league.battle.damage,poke_env.battle.move ,")
    every = accel.targets()
    assert "league.battle.damage" not in every and "poke_env.battle.move" not in every
    assert "league.battle.obs" in every and "poke_env.battle.pokemon" in every  # the rest still compiled
    assert accel.AccelFinder(every).find_spec("league.battle.damage") is None  # the ordinary import: the .py
    monkeypatch.setenv(accel.PLAIN_ENV, "")
    assert set(accel.MODULES) <= set(accel.targets())
