"""Players that record a battle's protocol and their own choices, and the log format.

A battle log (``<battle tag>.log``) is Showdown's protocol as each side received it,
with each of that side's choices on a line of its own right after the request it
answers::

    >meta {"format": "gen9vgc2023regc", "p1": "maxdamage", "p2": "random", ...}
    >side <username> <policy>
    |request|{...}
    |choose|preview|<action index>|/team 1234
    ...
    |choose|turn|<action index>|/choose move 1 2, switch 3
    ...
    >side <other username> <policy>
    ...

Action indices are the codec's (league/battle/actions.py): 0..89 for team preview,
0..2024 for a turn's joint order.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TYPE_CHECKING

from league.atomic import atomic_write_text
from league.battle.replay import RecordingMixin
from league.players import MaxDamagePlayer, RandomPlayer
from league.players.base import sample_legal
from league.players.maxdamage import maxdamage_preview, maxdamage_turn
from league.seeding import stable_seed

if TYPE_CHECKING:  # what the recorder is mixed into (at run time: any LeaguePlayer)
    from league.players.base import LeaguePlayer as _Recorded
else:
    _Recorded = object


class ChoiceRecorder(RecordingMixin, _Recorded):
    """Mix into a LeaguePlayer (synchronous or not): keeps the protocol and its choices,
    each filed under its own battle (``ctx.tag``), so concurrent battles do not mix."""

    kind = "?"  # the policy's name in the logs (no spaces)

    def _finish_preview(self, idx, d, ctx):
        msg = super()._finish_preview(idx, d, ctx)
        self.recordings.setdefault(ctx.tag, []).append(f"|choose|preview|{idx}|{msg}")
        return msg

    def _finish_turn(self, j, d, ctx):
        order = super()._finish_turn(j, d, ctx)
        self.recordings.setdefault(ctx.tag, []).append(f"|choose|turn|{j}|{order.message}")
        return order


class RecordingMaxDamage(ChoiceRecorder, MaxDamagePlayer):
    kind = "maxdamage"


class RecordingRandom(ChoiceRecorder, RandomPlayer):
    kind = "random"


class RecordingMixed(ChoiceRecorder, MaxDamagePlayer):
    """Max-damage, but a uniformly random legal choice with probability ``epsilon``."""

    kind = "mixed"
    epsilon = 0.3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rng = random.Random(stable_seed(self.username))

    def choose_preview(self, battle, decision) -> int:
        if self.rng.random() < self.epsilon:
            return sample_legal(decision.mask, self.rng)
        return maxdamage_preview(battle, decision)

    def choose_turn(self, battle, decision) -> int:
        if self.rng.random() < self.epsilon:
            return sample_legal(decision.mask, self.rng)
        return maxdamage_turn(battle, decision)


RECORDERS = {"maxdamage": RecordingMaxDamage, "random": RecordingRandom, "mixed": RecordingMixed}


def recording_factory(
    spec: str, seed: int = 0, greedy: bool = False, format_id: str | None = None, backend: str | None = None
):
    """A poke-env player factory for a player SPEC whose players record their battles:
    ``maxdamage``, ``random``, ``mixed`` (epsilon-maxdamage), ``checkpoint:PATH`` /
    ``agent:NAME`` (with ``format_id``: refused unless trained on that format's game data)
    or ``search:SPEC`` (the network looking one turn ahead, on the ``stream`` backend only:
    its logs' policy is ``search``, for ``tools.bc train --imitate search``)."""
    if spec in RECORDERS:
        return RECORDERS[spec]
    from league.players import PlayerSpecError
    from league.specs import player_factory, policy_path

    inner = spec.removeprefix("search:")
    if policy_path(inner) is None:
        raise PlayerSpecError(
            f"unknown player spec {spec!r} for recording: expected one of {sorted(RECORDERS)} checkpoint:PATH, "
            "agent:NAME or search:SPEC"
        )
    kind = "search" if spec.startswith("search:") else "checkpoint"
    recorder = type(f"Recording{kind.title()}", (ChoiceRecorder,), {"kind": kind})
    return player_factory(spec, seed=seed, greedy=greedy, mixin=recorder, format_id=format_id, backend=backend)


def write_battle_logs(out_dir: Path, players: list, battle_format: str) -> int:
    """One log per finished battle recorded by two of ``players``. Returns the count.
    Battle tags repeat across servers (each numbers its rooms from 1): a battle is
    (server, tag), and its file name carries the server's port."""
    out_dir.mkdir(parents=True, exist_ok=True)
    by_tag: dict[tuple[str, str], list] = {}
    for p in players:
        server = p.ps_client.websocket_url
        for tag, lines in p.recordings.items():
            by_tag.setdefault((server, tag), []).append((p, lines))
    n = 0
    for (server, tag), sides in sorted(by_tag.items()):
        if len(sides) != 2 or not all(any(x.startswith(("|win|", "|tie")) for x in lines) for _, lines in sides):
            continue  # unfinished (server crash, stop): not a usable log
        (p1, l1), (p2, l2) = sides
        port = server.split(":")[-1].split("/")[0] or server.split("//")[-1].split("/")[0]  # ws port, or worker-K
        meta = {
            "format": battle_format,
            "p1": p1.kind,
            "p2": p2.kind,
            "p1_user": p1.username,
            "p2_user": p2.username,
            "tag": tag,
            "server": server,
        }
        text = [
            f">meta {json.dumps(meta)}",
            f">side {p1.username} {p1.kind}",
            *l1,
            f">side {p2.username} {p2.kind}",
            *l2,
        ]
        atomic_write_text(out_dir / f"{tag}-{port}-{p1.username}.log", "\n".join(text) + "\n")
        n += 1
    return n


def read_log(path) -> str:
    """A recorded battle log's text (``.log``, or gzipped ``.log.gz``)."""
    import gzip

    path = Path(path)
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def as_replay(path, sheets: bool = True) -> str:
    """A recorded battle log (tools.bc generate) as a replay shows it: side p1's protocol
    without its requests and choices, both sides' open team sheets (from their first
    requests) after |teampreview| (``sheets=False``: none, as a ladder game whose players
    did not agree to open team sheets). (p1's own HP stays exact where a replay shows
    /100: the parser reads both.)"""
    from league.bc.dataset import split_sides

    _, sides = split_sides(path, read_log(path))
    shown = {}
    for _, _, _, lines in sides:
        req = json.loads(next(x for x in lines if x.startswith("|request|{"))[9:])
        mons = []
        for p in req["side"]["pokemon"]:
            species, *rest = p["details"].split(", ")
            gender = next((x for x in rest if x in ("M", "F")), "")
            level = next((x[1:] for x in rest if x.startswith("L")), "100")
            mons.append(
                f"{species}||{p['item']}|{p['baseAbility']}|{','.join(p['moves'])}|||{gender}|||{level}|"
                f",,,,,{p.get('teraType', '')}"
            )  # Pokemon Champions: no tera type
        shown[req["side"]["id"]] = "]".join(mons)
    out = []
    for line in sides[0][3]:
        if not line.startswith(("|request|", "|choose|")):
            out.append(line)
        if line.startswith("|teampreview") and sheets:
            out += [f"|showteam|p1|{shown['p1']}", f"|showteam|p2|{shown['p2']}"]
    return "\n".join(out)


def write_replays(logs, out_dir, sheets: bool = True) -> list[Path]:
    """Recorded battle logs as the replay site serves replays: ``OUT_DIR/<log name>.json``
    holding ``{"id", "formatid", "log"}`` (``as_replay``: the public protocol, both open
    team sheets, or none with ``sheets=False``). What ``tools.bc parse-replays`` reads,
    for checks on battles whose choices are known."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in logs:
        path = Path(path)
        name = path.name.removesuffix(".gz").removesuffix(".log")
        fmt = json.loads(read_log(path).split("\n", 1)[0][6:]).get("format", "")
        out = out_dir / f"{name}.json"
        atomic_write_text(out, json.dumps({"id": name, "formatid": fmt, "log": as_replay(path, sheets)}))
        written.append(out)
    return written
