"""Pokemon Champions replays (league/bc/replays.py): battles of our own on Showdown's Reg
M-B, read back as replays, rebuild Showdown's own requests (canMegaEvo until the side
mega-evolves, no Terastallization, the Champions PP and stat-point stats, Fake Out and
First Impression only before the first move action, a foe's Shadow Tag, a charged move's
locked turn) and label mega evolutions. No server: recorded logs in tests/data."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from league.battle.actions import decode_slot, split_joint
from league.bc.record import as_replay
from league.bc.replays import ReplayError, ReplaySource, build_replay_dataset, read_replay_counts, reconstruct
from tests.recorded import replay_agreement

DATA = Path(__file__).resolve().parents[1] / "data"
LOGS = sorted((DATA / "regmb_logs").glob("*.log.gz"))  # tools.bc generate --format gen9championsvgc2026regmb
REGMB = "gen9championsvgc2026regmb"


def _unzip(path: Path, to: Path) -> Path:
    out = to / path.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(path.read_bytes()))
    return out


def _recorded_battle(to: Path) -> Path:
    """tests/data/recorded_regmb.json (both sides of one battle) as a tools.bc log."""
    rec = json.loads((DATA / "recorded_regmb.json").read_text())
    text = [">meta " + json.dumps({"format": rec["format"]})]
    for side in rec["sides"]:
        text += [f">side {side['username']} {side['policy']}", *side["lines"]]
    out = to / "recorded.log"
    out.write_text("\n".join(text) + "\n")
    return out


@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_every_rebuilt_request_is_showdowns_own(tmp_path, log):
    r = replay_agreement(_unzip(log, tmp_path))
    assert r["decisions"] > 8 and r["reconstructed"] > 0
    assert r["wrong_mask"] == [] and r["wrong_label"] == []


def test_mega_evolution_in_the_rebuilt_requests_and_labels(tmp_path):
    log = _recorded_battle(tmp_path)
    r = replay_agreement(log)
    assert r["wrong_mask"] == [] and r["wrong_label"] == [] and r["b_labels"] == 1
    p1, p2 = sorted(r["sides"], key=lambda s: s.role)
    turn1, turn2 = [d for d in p1.decisions if d.kind == "turn"][:2]
    # turn 1: Aerodactyl holds Aerodactylite, Archaludon no stone; no tera in Champions
    assert [a.get("canMegaEvo") for a in turn1.view.active] == [True, None]
    assert not any("canTerastallize" in a for a in turn1.view.active)
    assert not any("teraType" in p for p in turn1.view.side)
    # p2 recorded "/choose move 1 -2 mega, move 2 -1": Staraptor's Brave Bird at its ally (codec target 0)
    # mega-evolving (b = 1), Garchomp's Dragon Claw at its ally (target 1)
    p2_turn1 = [d for d in p2.decisions if d.kind == "turn"][0]
    assert [decode_slot(a) for a in split_joint(p2_turn1.label)] == [("move", 0, 0, True), ("move", 1, 1, False)]
    assert [a.get("canMegaEvo") for a in p2_turn1.view.active] == [True, None]
    assert turn1.view.active[0]["moves"][3] == {
        "move": "Protect",
        "id": "protect",
        "pp": 8,
        "maxpp": 8,
        "target": "self",
        "disabled": False,
    }  # Champions: 8, not 16
    # turn 2: the side has mega-evolved: no more offers
    assert not any(a.get("canMegaEvo") for a in turn2.view.active)
    # own stats are the even-spread estimate (11 points a stat, neutral): Aerodactyl 80/105/65/60/75/130,
    # Aerodactyl-Mega 80/135/85/70/95/150: hp = 80 + 11 + 75, other = base + 11 + 20
    aero = lambda d: next(p for p in d.view.side if p["ident"] == "p1: Aerodactyl")  # noqa: E731
    assert aero(turn1)["condition"].endswith("/166") and aero(turn1)["details"].startswith("Aerodactyl,")
    assert aero(turn1)["stats"] == {"atk": 136, "def": 96, "spa": 91, "spd": 106, "spe": 161}
    assert aero(turn2)["details"].startswith("Aerodactyl-Mega,")
    assert aero(turn2)["stats"] == {"atk": 166, "def": 116, "spa": 101, "spd": 126, "spe": 181}


def test_a_replay_data_set_records_its_format_and_one_games_data(tmp_path):
    replays = tmp_path / "replays"
    replays.mkdir()
    log = _unzip(LOGS[0], tmp_path)
    (replays / "mb.log").write_text(as_replay(log))
    m = build_replay_dataset(replays, tmp_path / "data", on_replay=lambda s: None)
    assert m["formats"] == [REGMB] and next(read_replay_counts(tmp_path / "data"))["format"] == REGMB
    _, sides = reconstruct(ReplaySource("x", replays / "mb.log"))
    assert sides[0].format == REGMB
    sv = (
        (replays / "mb.log")
        .read_text()
        .replace("|tier|[Gen 9 Champions] VGC 2026 Reg M-B", "|tier|[Gen 9] VGC 2023 Reg C")
    )
    (replays / "sv.log").write_text(sv)
    with pytest.raises(ReplayError, match=f"different game data \\(champions: {REGMB}; sv: gen9vgc2023regc\\)"):
        build_replay_dataset(replays, tmp_path / "mixed", on_replay=lambda s: None, on_error=lambda s: None)


def test_validate_replays_checks_every_label_and_catches_a_wrong_one(tmp_path):
    """tools.bc validate-replays over recorded logs: every rebuilt label holds the recorded
    choice, every mask is Showdown's; with one recorded preview choice changed (other
    leads), that decision is reported, by file, side and line. as-replays writes what
    parse-replays reads: the same counts."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    logs = tmp_path / "logs"
    logs.mkdir()
    for p in LOGS:
        (logs / p.name).write_bytes(p.read_bytes())  # gzipped, as tests/data keeps them
    run = lambda *a: subprocess.run([sys.executable, "-m", "tools.bc", *a], capture_output=True, text=True, cwd=ROOT)  # noqa: E731
    out = run("validate-replays", str(logs))
    assert out.returncode == 0, out.stderr[-2000:]
    good = json.loads(out.stdout.strip().splitlines()[-1])
    assert good["ok"] and (good["battles"], good["rejected"], good["wrong_label"], good["wrong_mask"]) == (3, 0, 0, 0)
    assert good["labels_checked"] == good["reconstructed"] + good["partial"] and good["partial"] > 0
    assert good["shown_reconstructed"] == 1.0
    out = run("as-replays", str(logs), "--out", str(tmp_path / "replays"))
    assert out.returncode == 0 and json.loads(out.stdout)["replays"] == 3
    m = build_replay_dataset(tmp_path / "replays", tmp_path / "data", on_replay=lambda s: None)
    assert (m["decisions_total"], m["decisions_partial"], m["choices_shown"]) == (
        good["decisions"],
        good["partial"],
        good["shown"],
    )
    text = gzip.decompress(LOGS[0].read_bytes()).decode().split("\n")
    k = next(i for i, line in enumerate(text) if line.startswith("|choose|preview|"))
    idx = int(text[k].split("|")[3])
    text[k] = f"|choose|preview|{(idx + 6) % 90}|/team"  # the next lead pair
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "changed.log").write_text("\n".join(text))
    out = run("validate-replays", str(bad))
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert not r["ok"] and r["wrong_label"] == 1 and r["wrong_mask"] == 0
    assert r["first_problems"]["wrong_label"][0][:2] == ["changed", "p1"]
    assert run("validate-replays", str(tmp_path / "nowhere")).returncode == 2
