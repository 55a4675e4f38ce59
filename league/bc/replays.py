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
import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from poke_env.battle import DoubleBattle

from league.atomic import atomic_write
from league.battle.actions import JOINT_ACTIONS, RequestView
from league.battle.context import BattleContext, make_decision
from league.battle.sheets import foe_sets
from league.bc.dataset import ChunkWriter, SideTrajectory, check_formats, team_key, write_manifest
from league.bc.replay_labels import FORCED, ILLEGAL, NOT_REBUILT, TARGET_OPEN, Choice, Label, preview_label, turn_label
from league.bc.replay_protocol import _IDENT, _NOT_FED, _Header, _header, _Line, _protocol_lines
from league.bc.replay_requests import _ReplayBattle, _Side
from league.bc.replay_scan import _Decision, _Scan, _Scanner
from league.bc.replay_sources import ReplayError, ReplaySource, iter_replay_sources, replay_meta, to_id

__all__ = [
    "ILLEGAL",
    "OTS_AGREED",
    "OTS_NONE",
    "OTS_SHOWN",
    "POLICY",
    "ReplayCounts",
    "ReplayDecision",
    "ReplayError",
    "ReplaySource",
    "SideReplay",
    "build_replay_dataset",
    "held_out",
    "parse_replay",
    "read_replay_counts",
    "reads_sheets",
    "reconstruct",
]

POLICY = "human"
# Open team sheets: with both sides' |showteam| (each side's own sheet rebuilds its
# requests), both players' sets are public. How they came out: both players agreed ("NAME has agreed to open team sheets.", then the server
# showed them), or the format shows them (best-of-3 VGC formats, "showteam" without one).
# Each side's request uses the foe's sheet for legality (a foe's trapping ability); its
# observation reads it when asked (``foe_sheets``: encoder version 4's ``sheets`` flag, the
# foe's rows filled from its sheet), else reads the foe as the league's battles do,
# revealed by play (docs/bc.md, "Open team sheets").
# Without |showteam| for a side (a ladder game whose players did not agree), its sheet is
# what its own log shows in hindsight (league/bc/replay_hindsight.py): fewer moves than
# the real requests offered; such a replay counts as OTS_NONE.
OTS_AGREED, OTS_SHOWN, OTS_NONE = "agreed", "shown", "none"
REPLAYS_FILE = "replays.jsonl"  # a data set's per-replay counts, a JSON line each (read_replay_counts)
_LOG = logging.getLogger("league.replays")


# ---------------------------------------------------------------- one side, one replay
@dataclass
class ReplayCounts:
    """Per replay: decisions found, kept (whole or partial), why the others were skipped;
    choices (a decision's two: slot a and b, or leads and backs; a forced order is none)
    shown by the log, rebuilt, and why the others were not shown."""

    name: str
    format: str = ""  # the battle's format id (|tier|)
    decisions: int = 0
    reconstructed: int = 0  # kept with both choices known: one action
    partial: int = 0  # kept with one choice known (or a target open): a set of actions
    illegal: int = 0  # a shown order outside its rebuilt mask (the decision skipped)
    skipped: Counter = field(default_factory=Counter)  # decisions, by reason
    choices: int = 0
    shown: int = 0  # choices the log shows
    rebuilt: int = 0  # ... and rebuilt, in a kept decision
    target_open: Counter = field(default_factory=Counter)  # rebuilt moves whose target is not shown, by why
    not_shown: Counter = field(default_factory=Counter)  # choices the log does not show, by why
    ignored_lines: Counter = field(default_factory=Counter)  # lines read past, by kind ("text": no protocol line)
    open_sheets: str = ""  # OTS_AGREED, OTS_SHOWN or OTS_NONE

    def add(self, d: ReplayDecision) -> None:
        self.decisions += 1
        if d.labels is None:
            self.skipped[d.reason] += 1
            self.illegal += d.reason == ILLEGAL
        elif d.label is None:
            self.partial += 1
        else:
            self.reconstructed += 1
        for c in d.choices:
            if c.status == FORCED:
                continue
            self.choices += 1
            self.shown += c.shown
            self.rebuilt += c.shown and c.status != NOT_REBUILT and d.labels is not None
            if not c.shown:
                self.not_shown[c.why] += 1
            elif c.status == TARGET_OPEN and d.labels is not None:
                self.target_open[c.why] += 1

    @property
    def shown_reconstructed(self) -> float:
        """Share of the choices the log shows that were rebuilt."""
        return self.rebuilt / self.shown if self.shown else 1.0

    @property
    def all_reconstructed(self) -> float:
        """Share of all decisions kept with a label (whole or partial)."""
        return (self.reconstructed + self.partial) / self.decisions if self.decisions else 1.0

    def summary(self) -> str:
        """``NAME: K/N decisions reconstructed (P partial), S/T shown choices rebuilt (skipped: reason: n, ...)``"""
        why = ", ".join(f"{r}: {n}" for r, n in sorted(self.skipped.items()))
        return (
            f"{self.name}: {self.reconstructed + self.partial}/{self.decisions} decisions reconstructed "
            f"({self.partial} partial), {self.rebuilt}/{self.shown} shown choices rebuilt"
            + (f" (skipped: {why})" if why else "")
        )

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "format": self.format,
            "decisions": self.decisions,
            "reconstructed": self.reconstructed,
            "partial": self.partial,
            "illegal": self.illegal,
            "skipped": dict(sorted(self.skipped.items())),
            "choices": self.choices,
            "shown": self.shown,
            "rebuilt": self.rebuilt,
            "target_open": dict(sorted(self.target_open.items())),
            "not_shown": dict(sorted(self.not_shown.items())),
            "ignored_lines": dict(sorted(self.ignored_lines.items())),
            "open_sheets": self.open_sheets,
        }


def _feed(battle: DoubleBattle, side: _Side, ln: _Line) -> None:
    """One log line into the battle, and into the side's order and memory."""
    m = _IDENT.match(ln.arg(2))
    if m is not None:
        _note(side, ln, m.group(1) == side.role, m.group(2), m.group(3))
    battle.parse_message(ln.parts)


def _note(side: _Side, ln: _Line, own: bool, letter: str, name: str) -> None:
    """What a line naming a Pokemon (``letter``, ``name``; ``own``: of this side) tells the
    side's order and memory."""
    k = ln.kind
    if own and k in ("switch", "drag"):
        side.on_switch_in(letter, name)
        side.on_details(name, ln.arg(3))
    elif own and k == "detailschange":
        side.on_details(name, ln.arg(3))
    elif own and k == "swap":
        side.on_swap()
    elif own and k == "move":
        side.on_move(name, to_id(ln.arg(3)))
    elif not own and k == "-mega":
        side.on_foe_mega(ln.arg(3), ln.arg(4))
    elif own and k == "cant" and ln.arg(5).startswith("[of]"):
        pass  # the holder of Armor Tail, Dazzling, ... stopped a foe's move: it did not act
    elif own and (k == "cant" or (k == "-damage" and ln.arg(4).replace(" ", "") == "[from]confusion")):
        side.on_acted(name)
    elif own and k in ("-item", "-enditem"):
        side.on_item(name)
    elif own and k == "-start" and ln.arg(3) == "Disable":
        side.on_disable(name, to_id(ln.arg(4)))


@dataclass
class ReplayDecision:
    """One decision point of one side, rebuilt: the request's view, its legality mask and,
    when the log shows any of it, the label (else the reason it is skipped)."""

    kind: str  # "preview" or "turn" (move and forced-switch requests)
    line: int  # the log line the decision is taken at
    view: RequestView
    mask: np.ndarray  # bool (90,) or (2025,)
    labels: np.ndarray | None = None  # bool like mask: the actions the log leaves possible (None: skipped)
    label: int | None = None  # the one action, when the log shows the whole decision
    choices: list[Choice] = field(default_factory=list)  # its two choices, as the log shows them
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
    open_sheets: str = ""  # how both sheets came out: OTS_AGREED, OTS_SHOWN, OTS_NONE (rebuilt from the log)


def _side_replay(
    src: ReplaySource, lines: list[_Line], header: _Header, scan: _Scan, role: str, foe_sheets: bool = False
) -> SideReplay:
    side = _Side(role, header, scan)
    battle = _ReplayBattle(battle_tag=f"replay-{role}", username=side.username, logger=_LOG, gen=9)
    ctx = BattleContext()
    foe = "p2" if role == "p1" else "p1"
    if foe_sheets and foe not in header.from_log:  # the foe's sheet is open: the observation reads it (version 4)
        ctx.foe_sheet = foe_sets(header.sheets[foe])
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
    label: Label = (
        preview_label(side, decision.mask)
        if d.kind == "preview"
        else turn_label(side, decision, battle, d.slots, ctx.brought or [])
    )
    out = ReplayDecision(decision.kind, d.line, decision.view, decision.mask, choices=label.choices)
    if label.reason:
        out.reason = label.reason
        return out
    out.labels, out.label = label.actions, label.action
    encoded = make_decision(battle, ctx, encode=True)
    assert encoded is not None  # ``decision`` above came from the same request
    out.obs = encoded.obs
    return out


def reconstruct(src: ReplaySource, foe_sheets: bool = False) -> tuple[str, list[SideReplay]]:
    """(replay id, both sides' rebuilt decisions) of one replay; ReplayError naming file and
    line. The observations read the foe as play revealed it, as in every battle the
    league plays (none has open sheets); ``foe_sheets=True``: where the foe's team sheet is
    open, they read it (encoder version 4's ``sheets`` flag)."""
    replay_id, text = src.read()
    ignored: Counter = Counter()
    agreed: list[str] = []
    lines = _protocol_lines(src, text, ignored, agreed)
    header = _header(src, lines)  # both sides' sheets: |showteam|, else rebuilt from the log
    both_agreed = {to_id(n) for n in header.players.values()} <= {to_id(n) for n in agreed}
    scan = _Scanner(src, lines, header).run()
    sides = []
    for role in ("p1", "p2"):
        try:
            sides.append(_side_replay(src, lines, header, scan, role, foe_sheets))
        except ReplayError as e:
            msg = str(e)
            raise ReplayError(msg if msg.startswith(src.name) else f"{src.where(None)}: {msg}") from None
    for s in sides:
        s.ignored.update(ignored)
        s.open_sheets = OTS_NONE if header.from_log else (OTS_AGREED if both_agreed else OTS_SHOWN)
    return replay_id, sides


def parse_replay(src: ReplaySource, foe_sheets: bool = False) -> tuple[list[SideTrajectory], ReplayCounts]:
    """Both sides' trajectories (their reconstructed decisions, policy ``human``) and the
    replay's counts (``foe_sheets``: as ``reconstruct``)."""
    replay_id, sides = reconstruct(src, foe_sheets)
    counts = ReplayCounts(replay_id, sides[0].format)
    counts.ignored_lines = Counter(sides[0].ignored)  # both sides read the same lines of one log
    counts.open_sheets = sides[0].open_sheets
    trajs = []
    for side in sides:
        traj = SideTrajectory(POLICY, side.outcome, side.team)
        for d in side.decisions:
            counts.add(d)
            if d.labels is None:
                continue
            assert d.obs is not None  # a labelled decision is encoded (_decide)
            traj.obs.append(d.obs.astype(np.float16))
            traj.mask.append(_padded(d.mask))
            traj.is_preview.append(d.kind == "preview")
            # a partial label: its actions, and the first of them where one index is needed
            traj.actions.append(d.label if d.label is not None else int(np.flatnonzero(d.labels)[0]))
            traj.labels.append(None if d.label is not None else _padded(d.labels))
        trajs.append(traj)
    return trajs, counts


def read_replay_counts(data_dir: str | Path):
    """Each replay's counts of a data set ``parse-replays`` wrote (dicts, in input order)."""
    with open(Path(data_dir) / REPLAYS_FILE, encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def reads_sheets(manifest: dict) -> bool:
    """Whether a network trained on this data set should read the ``sheets`` flag
    (``model.sheets``): its observations read open sheets (``foe_sheets``) and it holds
    replays both with and without them. With one kind only, the flag is constant there: a
    bias learnt as a feature, shifted wherever the other kind is played."""
    kinds = manifest.get("open_team_sheets") or {}
    open_ = kinds.get(OTS_AGREED, 0) + kinds.get(OTS_SHOWN, 0)
    return bool(manifest.get("foe_sheets")) and open_ > 0 and kinds.get(OTS_NONE, 0) > 0


def _padded(m: np.ndarray) -> np.ndarray:
    out = np.zeros(JOINT_ACTIONS, dtype=bool)
    out[: len(m)] = m
    return out


def held_out(key: str, share: float) -> bool:
    """Whether a replay goes to the held-out split: its name's SHA-1 among the lowest
    ``share`` (decided by the name alone, so a stream splits as the whole would)."""
    import hashlib

    return share > 0 and int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) < share * 2**32


def _parse_one(job: tuple[ReplaySource, str | None, float | None, bool]):
    """(source, trajectories, counts) of one replay, or (source, None, why) when it is
    skipped: a ReplayError (malformed), or a filter (``format ...`` / ``rating ...``)."""
    source, fmt, min_rating, foe_sheets = job
    try:
        if fmt is not None or min_rating is not None:
            _, log, obj = source.read_object()
            got_fmt, rating = replay_meta(log, obj)
            if fmt is not None and got_fmt != fmt:
                return source, None, f"format {got_fmt or 'not stated'}"
            if min_rating is not None and (rating is None or rating < min_rating):
                return source, None, "rating not stated" if rating is None else f"rating below {min_rating:g}"
        trajs, counts = parse_replay(source, foe_sheets)
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
    foe_sheets: bool = False,
) -> dict:
    """Parse every replay of SRC (:func:`iter_replay_sources`: read as a stream, on
    ``workers`` processes) into chunks under ``out_dir`` (the format ``tools.bc train``
    reads); a malformed replay is reported (file and line) and skipped; ``fmt`` and
    ``min_rating`` keep the replays that state that format and at least that rating (the
    others counted in ``filtered`` by reason). The manifest adds ``decisions_total``,
    ``decisions_partial``, ``illegal``, the choices' counts (``choices``, ``choices_shown``,
    ``choices_rebuilt``, ``target_open`` and ``not_shown`` by why), ``shown_reconstructed``
    (choices the logs show that were rebuilt: rebuilt / shown), ``all_reconstructed``
    (decisions kept, whole or partial: decisions / decisions_total), ``open_team_sheets``
    (replays by how their sheets came out: ``agreed``, ``shown``, ``none``), ``filtered``,
    ``ignored_lines`` and ``replays_file``: each replay's counts, a JSON line each in
    ``out_dir/replays.jsonl`` (:func:`read_replay_counts`; written as they come, so memory
    stays flat whatever the input's size). ``on_progress(replays read)``
    after each. ``foe_sheets`` (recorded in the manifest): the observations read an open
    team sheet of the foe (default: the foe as play revealed it, as in the league's battles)."""
    sources = iter_replay_sources(src)
    first = next(sources)  # a source that is none or empty fails here, before any output
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReplayError(f"{out_dir}: exists and is not a directory; give --out a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    writer = ChunkWriter(out_dir, chunk_trajectories)
    errors: list[str] = []
    filtered: Counter = Counter()
    ignored: Counter = Counter()
    counts = {
        "battles": 0,
        "trajectories": 0,
        "decisions": 0,  # kept: whole and partial
        "decisions_partial": 0,
        "decisions_total": 0,
        "illegal": 0,
        "choices": 0,
        "choices_shown": 0,
        "choices_rebuilt": 0,
    }
    target_open: Counter = Counter()
    not_shown: Counter = Counter()
    open_sheets: Counter = Counter()
    formats: set[str] = set()
    seen = 0

    def parse_all(out) -> None:  # each replay's counts, a JSON line each, as they come (memory stays flat)
        nonlocal seen
        for source, trajs, c in _parsed(itertools.chain([first], sources), (fmt, min_rating, foe_sheets), workers):
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
            counts["decisions"] += c.reconstructed + c.partial
            counts["decisions_partial"] += c.partial
            counts["decisions_total"] += c.decisions
            counts["illegal"] += c.illegal
            counts["choices"] += c.choices
            counts["choices_shown"] += c.shown
            counts["choices_rebuilt"] += c.rebuilt
            target_open.update(c.target_open)
            not_shown.update(c.not_shown)
            open_sheets[c.open_sheets] += 1
            ignored.update(c.ignored_lines)
            if c.format:
                formats.add(c.format)
            out.write(json.dumps({"source": source.name, **c.as_dict()}) + "\n")
            on_replay(c.summary())

    atomic_write(out_dir / REPLAYS_FILE, parse_all)
    try:
        check_formats(sorted(formats), src)
    except ValueError as e:
        raise ReplayError(str(e)) from None
    return write_manifest(
        out_dir,
        counts,
        writer.close(),
        errors,
        seen,
        sorted(formats),
        shown_reconstructed=round(counts["choices_rebuilt"] / max(counts["choices_shown"], 1), 4),
        all_reconstructed=round(counts["decisions"] / max(counts["decisions_total"], 1), 4),
        target_open=dict(sorted(target_open.items())),
        not_shown=dict(sorted(not_shown.items())),
        open_team_sheets=dict(sorted(open_sheets.items())),
        foe_sheets=foe_sheets,
        replays_file=REPLAYS_FILE,
        filtered=dict(sorted(filtered.items())),
        ignored_lines=dict(sorted(ignored.items())),
    )
