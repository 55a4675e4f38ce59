"""Every message between a run's components: one dataclass per kind, with its fields,
encoded and decoded (msgpack) here and nowhere else.

Channels (created in ``league.transport.wiring.connect``):

- **reports**, component -> coordinator (PUSH/PULL): ``encode_report(msg, sender, pid)``;
  ``sender`` is ``"learner"`` (the main agent's learner), ``"learner:<member id>"`` (an
  exploiter's), ``"sim"`` (the simulator; with ``sim.shards`` > 1 shard 0, and
  ``"sim:<k>"`` shard k: ``shard_name``); ``pid`` lets the coordinator drop what a dead, since
  restarted, process had queued. Wire form: ``{"from", "pid", "kind", **fields}``.
- **commands**, coordinator -> every component (PUB/SUB): ``encode_command(msg)``; a
  component acts on the kinds it knows and ignores the rest (``to`` names the one
  learner a learner command is for). Wire form: ``{"cmd", **fields}``.
- **experience**, simulator -> one learner (PUSH/PULL): ``SlotMessage``
  (league/transport/experience.py) naming a filled shared-memory slot.

Shapes: ``metrics`` and ``stats`` are flat-ish dicts of numbers (the keys are listed in
docs/metrics.md); ``results`` are ``[opponent id, score]`` pairs from the
named agent's side; ``league`` is ``LeagueManager.message()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, get_args

import msgpack

# ---------------------------------------------------------------- reports (to the coordinator)


@dataclass
class Heartbeat:
    kind: ClassVar[str] = "heartbeat"
    updates: int = 0


@dataclass
class Update:
    """One learner update: its loss terms and counters (``metrics["updates"]`` included)."""

    kind: ClassVar[str] = "update"
    metrics: dict = field(default_factory=dict)


@dataclass
class Checkpoint:
    kind: ClassVar[str] = "checkpoint"
    path: str = ""
    updates: int = 0
    tag: str = "periodic"


@dataclass
class Final:
    """A learner's last checkpoint (``path``), or a simulator's clean exit (no path)."""

    kind: ClassVar[str] = "final"
    path: str | None = None
    updates: int = 0


@dataclass
class Error:
    kind: ClassVar[str] = "error"
    text: str = ""


@dataclass
class PortfolioAck:
    """The learner now regularises toward these members."""

    kind: ClassVar[str] = "portfolio"
    members: list = field(default_factory=list)


@dataclass
class ResetDone:
    kind: ClassVar[str] = "reset"
    updates: int = 0
    version: int = 0


@dataclass
class Stats:
    """The simulator's counters (``Simulator.snapshot()``), every few seconds."""

    kind: ClassVar[str] = "stats"
    stats: dict = field(default_factory=dict)


@dataclass
class PairResults:
    """Games of training member ``agent`` (a league exploiter) or of an evaluation round."""

    kind: ClassVar[str] = "pair_results"
    agent: str = ""
    results: list = field(default_factory=list)


@dataclass
class ExploiterResult:
    """A main exploiter's evaluation against its victim."""

    kind: ClassVar[str] = "exploiter_eval"
    id: str = ""
    lane: int = 0
    wins: float = 0.0
    games: int = 0


REPORTS = {
    c.kind: c
    for c in (Heartbeat, Update, Checkpoint, Final, Error, PortfolioAck, ResetDone, Stats, PairResults, ExploiterResult)
}

# ---------------------------------------------------------------- commands (from the coordinator)


@dataclass
class Stop:
    cmd: ClassVar[str] = "stop"


@dataclass
class Counters:
    """The run's counters, stored by the main learner in its checkpoints."""

    cmd: ClassVar[str] = "counters"
    counters: dict = field(default_factory=dict)


@dataclass
class LeagueView:
    """The league as the simulator's matchmakers need it."""

    cmd: ClassVar[str] = "league"
    league: dict = field(default_factory=dict)


@dataclass
class SetPortfolio:
    """``members``: [member id, checkpoint path] pairs for learner ``to``; ``weights``:
    one Nash weight per member (strategy nash: regularise toward their weighted
    mixture), or empty (toward the closest by KL)."""

    cmd: ClassVar[str] = "portfolio"
    to: str = "learner"
    members: list = field(default_factory=list)
    weights: list = field(default_factory=list)


@dataclass
class Reset:
    """Learner ``to`` goes back to its initial weights (league exploiters)."""

    cmd: ClassVar[str] = "reset"
    to: str = ""


@dataclass
class EvalRound:
    """``pairs``: [{"a": member, "b": member}, ...] (see LeagueManager.eval_round)."""

    cmd: ClassVar[str] = "eval_round"
    pairs: list = field(default_factory=list)
    games: int = 0


@dataclass
class ExploiterTrain:
    """Lane ``lane``: main exploiter ``id`` plays ``team`` against the checkpoint ``victim``."""

    cmd: ClassVar[str] = "exploiter_train"
    lane: int = 0
    id: str = ""
    victim: str = ""
    team: str = ""


@dataclass
class ExploiterEvaluate:
    """Lane ``lane``: main exploiter ``id``'s final ``checkpoint`` plays its victim for admission."""

    cmd: ClassVar[str] = "exploiter_eval"
    lane: int = 0
    id: str = ""
    victim: str = ""
    team: str = ""
    checkpoint: str = ""


@dataclass
class ExploiterStop:
    cmd: ClassVar[str] = "exploiter_stop"
    lane: int = 0


@dataclass
class Hold:
    """Learner ``to`` stops updating: the run is due (``run.max_minutes`` or
    ``run.max_updates``) and waits for an exploiter in flight to finish. It frees the slots
    that fill meanwhile without learning from them (battles go on finishing, so no
    simulator reads as stalled), and writes its final checkpoint at the stop as before."""

    cmd: ClassVar[str] = "hold"
    to: str = "learner"


@dataclass
class LeagueExploiterTrain:
    cmd: ClassVar[str] = "league_exploiter_train"
    lane: int = 0
    id: str = ""


# every command, as a type; COMMANDS: each by its name on the wire
Command = (
    Stop
    | Counters
    | LeagueView
    | SetPortfolio
    | Reset
    | EvalRound
    | ExploiterTrain
    | ExploiterEvaluate
    | ExploiterStop
    | Hold
    | LeagueExploiterTrain
)
COMMANDS = {c.cmd: c for c in get_args(Command)}


# ---------------------------------------------------------------- encoding


def shard_name(k: int) -> str:
    """A simulator shard's sender name: "sim" (shard 0, the only one by default), "sim:k"."""
    return "sim" if k == 0 else f"sim:{k}"


def shard_of(sender: str) -> int | None:
    """The shard a sender name is ("sim" -> 0, "sim:2" -> 2), or None (not a simulator)."""
    if sender == "sim":
        return 0
    if sender.startswith("sim:"):
        return int(sender[4:])
    return None


@dataclass
class Envelope:
    sender: str
    pid: int


def _payload(msg) -> dict:
    return {f.name: getattr(msg, f.name) for f in fields(msg)}


@dataclass
class SlotMessage:
    """A filled shared-memory slot, simulator -> learner on the experience socket
    (league/transport/experience.py): which slot, whose trajectory, its length and outcome."""

    slot: int
    agent: str
    version: int
    length: int
    reward: float
    opponent: str
    battle: int = 0  # self-play pairing key (Trajectory.battle)

    def to_wire(self) -> bytes:
        return msgpack.packb(self.__dict__)

    @classmethod
    def from_wire(cls, data: bytes) -> SlotMessage:
        """BadMessage for bytes that are not one (the learner counts and drops them)."""
        try:
            d = msgpack.unpackb(data)
        except Exception as e:
            raise BadMessage(f"not msgpack ({type(e).__name__})") from e
        if not isinstance(d, dict):
            raise BadMessage("not a slot message")
        m = _build(cls, d)
        if not (isinstance(m.slot, int) and isinstance(m.agent, str) and m.slot >= 0):
            raise BadMessage("slot message without a slot or an agent")
        return m


def encode_report(msg, sender: str, pid: int) -> bytes:
    return msgpack.packb({"from": sender, "pid": pid, "kind": msg.kind, **_payload(msg)})


class BadMessage(ValueError):
    """Bytes that are no message of ours: not msgpack, an unknown kind, fields missing."""


def _decode(data: bytes, key: str, table: dict) -> tuple[dict, type]:
    try:
        d = msgpack.unpackb(data)
    except Exception as e:
        raise BadMessage(f"not msgpack ({type(e).__name__})") from e
    if not isinstance(d, dict) or d.get(key) not in table:
        raise BadMessage(f"no known {key!r}")
    return d, table[d.pop(key)]


def _build(cls: type[Any], d: dict):
    names = {f.name for f in fields(cls)}
    try:
        return cls(**{k: v for k, v in d.items() if k in names})
    except TypeError as e:
        raise BadMessage(f"{cls.__name__}: {e}") from e


def decode_report(data: bytes) -> tuple[Envelope, object]:
    """-> (sender, report); BadMessage for bytes that are not one."""
    d, cls = _decode(data, "kind", REPORTS)
    sender, pid = d.pop("from", None), d.pop("pid", 0)
    if not isinstance(sender, str) or not isinstance(pid, int):
        raise BadMessage("no sender")
    return Envelope(sender, pid), _build(cls, d)


def encode_command(msg) -> bytes:
    return msgpack.packb({"cmd": msg.cmd, **_payload(msg)})


def decode_command(data: bytes):
    """-> the command; BadMessage for bytes that are not one."""
    d, cls = _decode(data, "cmd", COMMANDS)
    return _build(cls, d)


__all__ = [
    *(c.__name__ for c in REPORTS.values()),
    *(c.__name__ for c in COMMANDS.values()),
    "Command",
    "Envelope",
    "shard_name",
    "shard_of",
    "encode_report",
    "decode_report",
    "encode_command",
    "decode_command",
    "BadMessage",
]
