"""Behaviour cloning end to end on a real fleet: record, parse (round trip), train;
malformed logs are clear errors and do not stop the data set; recorded battles read back as
replays (tools.bc parse-replays) give the recorded choices under Showdown's own masks."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from league.battle.actions import SLOT_ACTIONS, SWITCH_OFFSET, decode_preview, decode_slot, split_joint
from league.battle.context import make_decision
from league.battle.replay import replay
from league.bc.dataset import LogError, _split_sides, build_dataset, parse_log
from league.bc.replays import ILLEGAL, ReplaySource, reconstruct
from league.checkpoint import load_policy_net
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


def _choices(path):
    out, side = [], None
    for line in path.read_text().splitlines():
        if line.startswith(">side "):
            side = []
            out.append(side)
        elif line.startswith("|choose|"):
            side.append(int(line.split("|")[3]))
    return out


def test_generate_parse_round_trip_and_train(tmp_path):
    # two servers: their room numbers collide, every battle must still get its own log
    logs = tmp_path / "logs"
    out = subprocess.run([sys.executable, "-m", "tools.bc", "generate", "-n", "10", "--out", str(logs),
                          "--servers", "2", "--concurrency", "3"], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    g = json.loads(out.stdout.strip().splitlines()[-1])
    assert g["logs"] >= 9 and g["showdown_errors"] == 0 and set(g["by_matchup"]) == {
        "maxdamage-vs-maxdamage", "maxdamage-vs-random", "mixed-vs-mixed"}
    files = sorted(logs.glob("*.log"))
    for f in files:  # round trip: every recorded choice comes back, legal, in order
        trajs = parse_log(f)
        assert [t.actions for t in trajs] == _choices(f)
        for t in trajs:
            assert t.is_preview[0] and not any(t.is_preview[1:])
            assert all(m[a] for m, a in zip(t.mask, t.actions))
            assert t.outcome in (1.0, -1.0, 0.0)
        assert sorted(t.outcome for t in trajs) in ([-1.0, 1.0], [0.0, 0.0])
    # one broken log among good ones: reported, skipped, the rest is built
    bad = logs / "zz-broken.log"
    lines = files[0].read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("|choose|turn|"))
    lines[k] = "|choose|turn|2024|/choose pass, pass"  # pass+pass is never legal while both can move
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogError, match=rf"zz-broken.log:{k + 1}: recorded action 2024 is illegal"):
        parse_log(bad)
    errors = []
    m = build_dataset(logs, tmp_path / "data", heldout_share=0.3, on_error=errors.append)
    assert m["battles"] == len(files) and len(m["errors"]) == 1 and "zz-broken.log" in errors[0]
    out = subprocess.run([sys.executable, "-m", "tools.bc", "train", str(tmp_path / "data"), "--out",
                          str(tmp_path / "bc"), "--epochs", "1", "--model-size", "small", "--id-dropout", "0.2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["decisions"] > 0 and 0 <= s["top1"] <= 1 and 0 < s["uniform_top1"] < 1
    net = load_policy_net(s["checkpoint"])
    assert sum(p.numel() for p in net.parameters()) > 0
    assert list((tmp_path / "bc" / "tb").glob("events.out.tfevents.*"))
    # a pairing of player specs, then the model evaluated on those logs (one recorded side each)
    logs2 = tmp_path / "logs2"
    out = subprocess.run([sys.executable, "-m", "tools.bc", "generate", "-n", "4", "--p1", "maxdamage", "--p2",
                          "random", "--out", str(logs2), "--concurrency", "4"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    g = json.loads(out.stdout.strip().splitlines()[-1])
    assert g["by_matchup"] == {"maxdamage-vs-random": g["logs"]} and g["logs"] >= 3
    out = subprocess.run([sys.executable, "-m", "tools.bc", "eval", s["checkpoint"], str(logs2)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    e = json.loads(out.stdout.strip().splitlines()[-1])
    n_md = sum(len(t) for f in logs2.glob("*.log") for t in parse_log(f) if t.policy == "maxdamage")
    assert e["decisions"] == n_md and 0 <= e["top1"] <= 1 and 0 < e["uniform_top1"] < 1
    assert e["decisions_seen_teams"] + e["decisions_unseen_teams"] == n_md
    assert (e["top1_seen_teams"] is None) == (e["decisions_seen_teams"] == 0)
    assert (e["top1_unseen_teams"] is None) == (e["decisions_unseen_teams"] == 0)
    assert e["top1_preview"] is not None and e["top1_turn"] is not None


def test_malformed_protocol_line_names_file_and_line(tmp_path):
    log = tmp_path / "bad.log"
    log.write_text(">meta {}\n>side alice maxdamage\n|request|{not json\n|win|alice\n>side bob random\n|win|alice\n")
    with pytest.raises(LogError, match=r"bad.log:3: cannot replay line"):
        parse_log(log)
    log.write_text("no meta here\n")
    with pytest.raises(LogError, match=r"bad.log:1: a battle log starts with"):
        parse_log(log)


# ---------------------------------------------------------------- real replays (tools.bc parse-replays)
def _as_replay(path) -> str:
    """A recorded battle log as a replay shows it: side p1's protocol without its requests and
    choices, both sides' open team sheets (from their first requests) after |teampreview|.
    (p1's own HP stays exact where a replay shows /100: the parser reads both.)"""
    _, sides = _split_sides(path, path.read_text())
    sheets = {}
    for _, _, _, lines in sides:
        req = json.loads(next(x for x in lines if x.startswith("|request|{"))[9:])
        mons = []
        for p in req["side"]["pokemon"]:
            species, *rest = p["details"].split(", ")
            gender = next((x for x in rest if x in ("M", "F")), "")
            level = next((x[1:] for x in rest if x.startswith("L")), "100")
            mons.append(f"{species}||{p['item']}|{p['baseAbility']}|{','.join(p['moves'])}|||{gender}|||{level}|"
                        f",,,,,{p['teraType']}")
        sheets[req["side"]["id"]] = "]".join(mons)
    out = []
    for line in sides[0][3]:
        if not line.startswith(("|request|", "|choose|")):
            out.append(line)
        if line.startswith("|teampreview"):
            out += [f"|showteam|p1|{sheets['p1']}", f"|showteam|p2|{sheets['p2']}"]
    return "\n".join(out)


def _recorded(path) -> dict[str, list]:
    """Per role: (kind, action, request view, mask) of every choice the log recorded."""
    out = {}
    for username, _, first, lines in _split_sides(path, path.read_text())[1]:
        chosen, last = {}, None
        for no, line in enumerate(lines, first):
            if line.startswith("|request|"):
                last = no
            elif line.startswith("|choose|"):
                chosen[last] = int(line.split("|")[3])
        seq, role = [], None
        for battle, ctx in replay(lines, username, first_line=first):
            if ctx.line in chosen:
                d = make_decision(battle, ctx, encode=False)
                seq.append((d.kind, chosen[ctx.line], d.view, d.mask))
                role = battle.player_role
        out[role] = seq
    return out


def _meaning(kind: str, action: int, view) -> tuple:
    """What an action does, independent of index conventions: the Pokemon chosen at team
    preview; per slot the move id, target and tera, or the Pokemon switched in."""
    if kind == "preview":
        names = [view.side[p]["details"].split(",")[0] for p in decode_preview(action)]
        return frozenset(names[:2]), frozenset(names[2:])
    out = []
    for slot, a in enumerate(split_joint(action)):
        what, i, target, tera = decode_slot(a)
        out.append((what, view.active[slot]["moves"][i]["id"], target, tera) if what == "move" else
                   (what, view.brought[i]) if what == "switch" else (what,))
    return tuple(out)


def _reindexed(mask: np.ndarray, ours: list[str], theirs: list[str]) -> np.ndarray:
    """Our joint mask with switch k meaning their brought[k] (our unrevealed backs: theirs never shown)."""
    if len(mask) != SLOT_ACTIONS * SLOT_ACTIONS:
        return mask
    unseen = [b for b in theirs if b not in ours]
    idx = list(range(SLOT_ACTIONS))
    for k, ident in enumerate(ours):
        idx[SWITCH_OFFSET + theirs.index(ident if ident in theirs else unseen.pop(0))] = SWITCH_OFFSET + k
    return mask.reshape(SLOT_ACTIONS, SLOT_ACTIONS)[np.ix_(idx, idx)].reshape(-1)


def test_replay_reconstruction_agrees_with_the_recorded_choices(tmp_path):
    """Battles on real Showdown, read back as replays: every decision point is found, every
    reconstructed action is the one chosen, and every rebuilt mask is Showdown's own."""
    logs = tmp_path / "logs"
    for pairing, n in ((["--p1", "random", "--p2", "random"], 12), ([], 12)):
        out = subprocess.run([sys.executable, "-m", "tools.bc", "generate", "-n", str(n), "--out", str(logs),
                              "--concurrency", "6", "--seed", str(n + len(pairing)), *pairing],
                             capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
    total = reconstructed = 0
    for path in sorted(logs.glob("*.log")):
        recorded = _recorded(path)
        src = tmp_path / f"{path.stem}-replay.log"
        src.write_text(_as_replay(path))
        _, sides = reconstruct(ReplaySource(str(src), src))
        for side in sides:
            real = recorded[side.role]
            assert len(side.decisions) == len(real), (path.name, side.role)
            for ours, (kind, action, view, mask) in zip(side.decisions, real):
                assert ours.kind == kind, (path.name, ours.line)
                total += 1
                if ours.label is None:
                    assert ours.reason != ILLEGAL, (path.name, ours.line)
                    continue
                reconstructed += 1
                assert _meaning(kind, ours.label, ours.view) == _meaning(kind, action, view), (path.name, ours.line)
                assert np.array_equal(_reindexed(ours.mask, ours.view.brought, view.brought), mask), (path.name,
                                                                                                     ours.line)
    # every battle has, per side, a team preview and at least one turn: 4 decisions or more.
    # How many more, and the share reconstructed, depend on Showdown's own (unseeded) rolls:
    # measured 300 to 400 decisions, 0.66 (maxdamage mix) to 0.77 (random); a bound by chance
    # (total > 300) failed once at exactly 300
    assert total >= 4 * 24 and reconstructed / total > 0.4
