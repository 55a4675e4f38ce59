"""Real Showdown replays (the spectator protocol) -> behaviour-cloning trajectories.

A replay as the replay site serves it (``.json`` with a ``log`` field, or the raw ``.log``
text) has no ``|request|`` and no choices. Each side is read on its own: the log is fed
into a fresh poke-env ``DoubleBattle`` from that side's seat and, at every point where
Showdown would have asked that side for a choice, a request is synthesised from public
information and given to ``battle.parse_request``; ``make_decision`` then builds the
observation and legality mask exactly as for RL (same encoder, same codec). The label is
read from what the log shows the side did. Output: ``league.bc.dataset``'s chunks, one
trajectory per side with policy ``"human"``.

The parts, in the order a replay goes through them:
- league/bc/replay_sources.py: where replays come from (files, JSON lines, dumps), read
  as a stream;
- league/bc/replay_protocol.py: the protocol lines and the header (players, open team
  sheets, format);
- league/bc/replay_scan.py: decision points and what the log shows each slot did;
- league/bc/replay_requests.py: the request Showdown would have sent each side, rebuilt;
- league/bc/replay_labels.py: the label of each decision;
- here: both sides of one replay through poke-env, and a data set of many.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from poke_env.battle import DoubleBattle

from league.battle.actions import JOINT_ACTIONS, RequestView
from league.battle.context import BattleContext, make_decision
from league.bc.dataset import ChunkWriter, SideTrajectory, check_formats, team_key, write_manifest
from league.bc.replay_labels import _preview_label, _Skip, _turn_label
from league.bc.replay_protocol import _IDENT, _NOT_FED, _Header, _header, _Line, _protocol_lines
from league.bc.replay_requests import _ReplayBattle, _Side
from league.bc.replay_scan import _Decision, _Scan, _Scanner
from league.bc.replay_sources import ReplayError, ReplaySource, iter_replay_sources, replay_meta, to_id

__all__ = [
    "ILLEGAL",
    "POLICY",
    "ReplayCounts",
    "ReplayDecision",
    "ReplayError",
    "ReplaySource",
    "SideReplay",
    "build_replay_dataset",
    "held_out",
    "parse_replay",
    "reconstruct",
]

POLICY = "human"
_LOG = logging.getLogger("league.replays")


# ---------------------------------------------------------------- one side, one replay
@dataclass
class ReplayCounts:
    """Per replay: decisions found, reconstructed, and why the others were skipped."""

    name: str
    format: str = ""  # the battle's format id (|tier|)
    decisions: int = 0
    reconstructed: int = 0
    illegal: int = 0  # reconstructed actions outside their rebuilt mask (skipped)
    skipped: Counter = field(default_factory=Counter)
    ignored_lines: Counter = field(default_factory=Counter)  # lines read past, by kind ("text": no protocol line)

    def summary(self) -> str:
        """``NAME: R/N decisions reconstructed (skipped: reason: n, ...)``"""
        why = ", ".join(f"{r}: {n}" for r, n in sorted(self.skipped.items()))
        return f"{self.name}: {self.reconstructed}/{self.decisions} decisions reconstructed" + (
            f" (skipped: {why})" if why else ""
        )

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "format": self.format,
            "decisions": self.decisions,
            "reconstructed": self.reconstructed,
            "illegal": self.illegal,
            "skipped": dict(sorted(self.skipped.items())),
            "ignored_lines": dict(sorted(self.ignored_lines.items())),
        }


def _feed(battle: DoubleBattle, side: _Side, ln: _Line) -> None:
    """One log line into the battle, and into the side's order and memory."""
    k = ln.kind
    m = _IDENT.match(ln.arg(2))
    own = m is not None and m.group(1) == side.role
    if own and k in ("switch", "drag"):
        side.on_switch_in(m.group(2), m.group(3))
        side.on_details(m.group(3), ln.arg(3))
    elif own and k == "detailschange":
        side.on_details(m.group(3), ln.arg(3))
    elif own and k == "swap":
        side.on_swap()
    elif own and k == "move":
        side.on_move(m.group(3), to_id(ln.arg(3)))
    elif not own and m is not None and k == "-mega":
        side.on_foe_mega(ln.arg(3), ln.arg(4))
    elif own and (k == "cant" or (k == "-damage" and ln.arg(4).replace(" ", "") == "[from]confusion")):
        side.on_acted(m.group(3))
    elif own and k in ("-item", "-enditem"):
        side.on_item(m.group(3))
    elif own and k == "-start" and ln.arg(3) == "Disable":
        side.on_disable(m.group(3), to_id(ln.arg(4)))
    battle.parse_message(ln.parts)


ILLEGAL = "illegal under the rebuilt mask"


@dataclass
class ReplayDecision:
    """One decision point of one side, rebuilt: the request's view, its legality mask and,
    when the log shows the choice, the label (else the reason it is skipped)."""

    kind: str  # "preview" or "turn" (move and forced-switch requests)
    line: int  # the log line the decision is taken at
    view: RequestView
    mask: np.ndarray  # bool (90,) or (2025,)
    label: int | None = None
    reason: str = ""
    obs: np.ndarray | None = None  # float32 (OBS_DIM,), for a labelled decision


@dataclass
class SideReplay:
    role: str
    outcome: float  # +1 win, -1 loss, 0 tie
    team: str  # team_key of its team sheet
    decisions: list[ReplayDecision]
    format: str = ""  # the battle's format id (|tier|)
    ignored: Counter = field(default_factory=Counter)  # lines read past, by kind


def _side_replay(src: ReplaySource, lines: list[_Line], header: _Header, scan: _Scan, role: str) -> SideReplay:
    side = _Side(role, header, scan)
    battle = _ReplayBattle(battle_tag=f"replay-{role}", username=side.username, logger=_LOG, gen=9)
    ctx = BattleContext()
    outcome = 0.0 if header.winner is None else (1.0 if header.winner == role else -1.0)
    out = SideReplay(role, outcome, "", [], header.format)
    todo = [d for d in scan.decisions if d.role == role]
    nxt = 0
    for i in range(header.end + 1):
        while nxt < len(todo) and todo[nxt].at == i:
            out.decisions.append(_decide(src, battle, ctx, side, todo[nxt]))
            if todo[nxt].kind == "preview":
                out.team = team_key(battle.last_request)
            nxt += 1
        ln = lines[i]
        if ln.kind in _NOT_FED:
            continue
        try:
            _feed(battle, side, ln)
        except ReplayError:
            raise
        except NotImplementedError:  # poke-env's answer to a kind of line it lacks (a newer server's): read past it
            out.ignored[ln.kind] += 1
        except Exception as e:  # noqa: BLE001 - a line poke-env cannot read: name it
            raise ReplayError(f"{src.where(ln.no)}: cannot read {ln.text[:100]!r} ({type(e).__name__}: {e})") from None
    return out


def _decide(src: ReplaySource, battle: DoubleBattle, ctx: BattleContext, side: _Side, d: _Decision) -> ReplayDecision:
    """Synthesise the request of one decision point, rebuild its mask and label it."""
    if d.kind == "preview":
        request = side.preview_request(battle)
    elif d.kind == "switch":
        request = side.switch_request(battle, d.force)
    else:
        request = side.move_request(battle, d.slots)
    try:
        battle.parse_request(request)
        decision = make_decision(battle, ctx, encode=False)
    except Exception as e:  # noqa: BLE001 - the synthesised request does not fit the battle
        raise ReplayError(
            f"{src.where(d.line)}: cannot rebuild {side.role}'s request ({type(e).__name__}: {e})"
        ) from None
    if decision is None:
        raise ReplayError(f"{src.where(d.line)}: {side.role}'s rebuilt request asks for nothing")
    if d.kind == "preview" and side.short:  # whether the others were brought is unknown: not in the battle
        for ident in [k for k in battle.team if k not in side.order]:
            del battle.team[ident]
    out = ReplayDecision(decision.kind, d.line, decision.view, decision.mask)
    try:
        label = (
            _preview_label(side)
            if d.kind == "preview"
            else _turn_label(side, decision, battle, d.slots, ctx.brought or [])
        )
    except _Skip as e:
        out.reason = str(e)
        return out
    if not decision.mask[label]:
        out.reason = ILLEGAL
        return out
    out.label = label
    out.obs = make_decision(battle, ctx, encode=True).obs
    return out


def reconstruct(src: ReplaySource) -> tuple[str, list[SideReplay]]:
    """(replay id, both sides' rebuilt decisions) of one replay; ReplayError naming file and line."""
    replay_id, text = src.read()
    ignored: Counter = Counter()
    lines = _protocol_lines(src, text, ignored)
    header = _header(src, lines)
    scan = _Scanner(src, lines, header).run()
    sides = []
    for role in ("p1", "p2"):
        try:
            sides.append(_side_replay(src, lines, header, scan, role))
        except ReplayError as e:
            msg = str(e)
            raise ReplayError(msg if msg.startswith(src.name) else f"{src.where(None)}: {msg}") from None
    for s in sides:
        s.ignored.update(ignored)
    return replay_id, sides


def parse_replay(src: ReplaySource) -> tuple[list[SideTrajectory], ReplayCounts]:
    """Both sides' trajectories (their reconstructed decisions, policy ``human``) and the
    replay's counts."""
    replay_id, sides = reconstruct(src)
    counts = ReplayCounts(replay_id, sides[0].format)
    counts.ignored_lines = Counter(sides[0].ignored)  # both sides read the same lines of one log
    trajs = []
    for side in sides:
        traj = SideTrajectory(POLICY, side.outcome, side.team)
        for d in side.decisions:
            counts.decisions += 1
            if d.label is None:
                counts.skipped[d.reason] += 1
                counts.illegal += d.reason == ILLEGAL
                continue
            counts.reconstructed += 1
            mask = np.zeros(JOINT_ACTIONS, dtype=bool)
            mask[: len(d.mask)] = d.mask
            traj.obs.append(d.obs.astype(np.float16))
            traj.mask.append(mask)
            traj.is_preview.append(d.kind == "preview")
            traj.actions.append(d.label)
        trajs.append(traj)
    return trajs, counts


def held_out(key: str, share: float) -> bool:
    """Whether a replay goes to the held-out split: its name's SHA-1 among the lowest
    ``share`` (decided by the name alone, so a stream splits as the whole would)."""
    import hashlib

    return share > 0 and int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) < share * 2**32


def _parse_one(job: tuple[ReplaySource, str | None, float | None]):
    """(source, trajectories, counts) of one replay, or (source, None, why) when it is
    skipped: a ReplayError (malformed), or a filter (``format ...`` / ``rating ...``)."""
    source, fmt, min_rating = job
    try:
        if fmt is not None or min_rating is not None:
            _, log, obj = source.read_object()
            got_fmt, rating = replay_meta(log, obj)
            if fmt is not None and got_fmt != fmt:
                return source, None, f"format {got_fmt or 'not stated'}"
            if min_rating is not None and (rating is None or rating < min_rating):
                return source, None, "rating not stated" if rating is None else f"rating below {min_rating:g}"
        trajs, counts = parse_replay(source)
    except ReplayError as e:
        return source, None, e
    return source, trajs, counts


def _parsed(sources, jobs_args: tuple, workers: int, batch: int = 64):
    """_parse_one over ``sources`` in order, on ``workers`` processes; at most ``batch``
    replays a worker in flight (the input is read as it goes: memory stays flat)."""
    from itertools import islice

    it = ((s, *jobs_args) for s in sources)
    if workers <= 1:
        yield from map(_parse_one, it)
        return
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(workers) as pool:
        while jobs := list(islice(it, batch * workers)):
            yield from pool.imap(_parse_one, jobs, chunksize=4)


def build_replay_dataset(
    src: str | Path,
    out_dir: str | Path,
    chunk_trajectories: int = 400,
    heldout_share: float = 0.1,
    on_error=print,
    on_replay=print,
    workers: int = 1,
    fmt: str | None = None,
    min_rating: float | None = None,
    on_progress=None,
) -> dict:
    """Parse every replay of SRC (:func:`iter_replay_sources`: read as a stream, on
    ``workers`` processes) into chunks under ``out_dir`` (the format ``tools.bc train``
    reads); a malformed replay is reported (file and line) and skipped; ``fmt`` and
    ``min_rating`` keep the replays that state that format and at least that rating (the
    others counted in ``filtered`` by reason). The manifest adds ``decisions_total``,
    ``illegal``, ``filtered``, ``ignored_lines`` and ``replays``: each replay's counts.
    ``on_progress(replays read)`` after each."""
    sources = iter_replay_sources(src)
    first = next(sources)  # a source that is none or empty fails here, before any output
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReplayError(f"{out_dir}: exists and is not a directory; give --out a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    writer = ChunkWriter(out_dir, chunk_trajectories)
    errors: list[str] = []
    per_replay: list[dict] = []
    filtered: Counter = Counter()
    ignored: Counter = Counter()
    counts = {"battles": 0, "trajectories": 0, "decisions": 0, "decisions_total": 0, "illegal": 0}
    seen = 0
    for source, trajs, c in _parsed(itertools.chain([first], sources), (fmt, min_rating), workers):
        seen += 1
        if on_progress is not None:
            on_progress(seen)
        if trajs is None:
            if isinstance(c, ReplayError):
                errors.append(str(c))
                on_error(f"skipped: {c}")
            else:
                filtered[c] += 1
            continue
        writer.add("heldout" if held_out(source.key(), heldout_share) else "train", trajs)
        counts["battles"] += 1
        counts["trajectories"] += len(trajs)
        counts["decisions"] += c.reconstructed
        counts["decisions_total"] += c.decisions
        counts["illegal"] += c.illegal
        ignored.update(c.ignored_lines)
        per_replay.append({"source": source.name, **c.as_dict()})
        on_replay(c.summary())
    formats = sorted({r["format"] for r in per_replay if r["format"]})
    try:
        check_formats(formats, src)
    except ValueError as e:
        raise ReplayError(str(e)) from None
    return write_manifest(
        out_dir,
        counts,
        writer.close(),
        errors,
        seen,
        formats,
        replays=per_replay,
        filtered=dict(sorted(filtered.items())),
        ignored_lines=dict(sorted(ignored.items())),
    )
