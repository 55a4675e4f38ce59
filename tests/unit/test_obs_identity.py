"""Observations and masks bit-identical to a recorded digest: the guard for speed work on
the encoder, the analysis and the masks (issue 31). Every decision of the recorded
battles (tests/data/recorded_battles.json and recorded_regmb.json; and
tests/data/obs_identity_battles.json.gz: random against random, both sides of 8 Reg C
and 4 Reg M-B battles on the shipped pools) and of the two human replays (with and
without the foe's open team sheet) is encoded, and the sha256 of its observation's bytes
and of its mask's is compared with tests/data/obs_digest.json.

A change meant to alter the observation (a new feature: the encoder's version bumps)
rewrites the digest on purpose: ``python -m tests.unit.test_obs_identity`` (with
``--record``: plays and records the random battles again first, on a local Showdown)."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

from league.battle.context import make_decision
from league.battle.obs import ENCODER_VERSION
from league.battle.replay import replay
from league.bc.replay_sources import ReplaySource
from league.bc.replays import reconstruct

DATA = Path(__file__).resolve().parents[1] / "data"
DIGEST = DATA / "obs_digest.json"
BATTLES = DATA / "obs_identity_battles.json.gz"
FORMATS = {"gen9vgc2023regc": 8, "gen9championsvgc2026regmb": 4}  # battles recorded per format


def _h(a) -> str:
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


def digests() -> dict[str, list[str]]:
    """Source name -> one "obs:mask" digest per decision, in order."""
    out: dict[str, list[str]] = {}
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    mb = json.loads((DATA / "recorded_regmb.json").read_text())["sides"]
    more = json.loads(gzip.decompress(BATTLES.read_bytes()))
    for i, rec in enumerate([*recs, *mb, *more]):
        rows = []
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx, own_tera=True)  # the whole encoder: our tera types read
            rows.append(f"{_h(d.obs)}:{_h(d.mask)}")
        out[f"recorded{i}:{rec['username']}"] = rows
    for p in sorted((DATA / "replays").glob("*.json")):
        for sheets in (False, True):
            _, sides = reconstruct(ReplaySource(p.name, p), foe_sheets=sheets)
            for s in sides:
                out[f"{p.stem}:{s.role}:sheets={int(sheets)}"] = [
                    f"{_h(d.obs)}:{_h(d.mask)}" for d in s.decisions if d.obs is not None
                ]
    return out


def test_every_recorded_decision_encodes_to_the_recorded_bytes():
    want = json.loads(DIGEST.read_text())
    assert want["encoder_version"] == ENCODER_VERSION, "the encoder's version changed: rewrite the digest"
    got = digests()
    assert set(got) == set(want["sources"])
    assert sum(map(len, got.values())) > 150  # decisions enough to mean something
    for name, rows in got.items():
        ref = want["sources"][name]
        assert len(rows) == len(ref), name
        bad = [i for i, (a, b) in enumerate(zip(rows, ref)) if a != b]
        assert not bad, f"{name}: decisions {bad[:10]} differ (first: {rows[bad[0]]} vs {ref[bad[0]]})"


def record() -> None:
    from tools.bench import record_battles
    from tools.cli import format_pool

    recs = []
    for fmt, n in FORMATS.items():
        for username, lines in record_battles(n, format_pool(fmt, None), seed=0, battle_format=fmt):
            recs.append({"username": username, "lines": [ln for ln in lines if not ln.startswith("|t:|")]})
    BATTLES.write_bytes(gzip.compress(json.dumps(recs).encode(), mtime=0))


if __name__ == "__main__":  # rewrite the digest (only for a change meant to alter the observation)
    if "--record" in sys.argv:
        record()
    DIGEST.write_text(json.dumps({"encoder_version": ENCODER_VERSION, "sources": digests()}, indent=0) + "\n")
    print(f"wrote {DIGEST}", file=sys.stderr)
