"""Battle logs -> supervised trajectories, through the same encoder and codec as RL.

Each side of each log is replayed into a fresh poke-env ``DoubleBattle``
(``league.battle.replay``); at every request that side answered, the observation and
the legality mask come from ``make_decision`` (exactly what a live player computes) and
the label is the recorded ``|choose|`` action, checked against the mask. A side gives
one trajectory: team preview and every turn, in order, with the battle's outcome from
its view (+1 win, -1 loss, 0 tie).

On disk (``build_dataset``): chunks of trajectories, ``train_NNNN.pt`` and
``heldout_NNNN.pt`` (the held-out battles are the ``round(share * n)`` logs, at least one
when there are two or more, whose name hashes lowest: a fixed split for a fixed log set),
each a dict of concatenated steps (obs float16, mask bit-packed, is_preview, action;
``labels`` bit-packed like the mask where some step's label is partial, a replay's:
league/bc/replay_labels.py) plus per-trajectory lengths, outcomes and policies; ``manifest.json`` lists them with
counts and the formats of the battles (``formats``: one game's data, as a network plays
one: league/model/net.py). A malformed log is reported (file and line) and skipped; the
rest is built.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS
from league.battle.context import make_decision
from league.battle.obs import ENCODER_VERSION, OBS_DIM
from league.battle.replay import ReplayError, replay
from league.bc.replay_sources import to_id


class LogError(ValueError):
    """A malformed battle log: names the file and the line."""


@dataclass
class SideTrajectory:
    policy: str  # the recorded player's policy (maxdamage, random, mixed)
    outcome: float
    team: str = ""  # team_key of the side's team
    obs: list = field(default_factory=list)
    mask: list = field(default_factory=list)  # bool (2025,) each; preview masks padded
    is_preview: list = field(default_factory=list)
    actions: list = field(default_factory=list)
    # per step, None where ``actions`` is the label; else bool (2025,): the actions a
    # partial label leaves possible (replays: league/bc/replay_labels.py)
    labels: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)


def split_sides(path: Path, text: str) -> tuple[dict, list[tuple[str, str, int, list[str]]]]:
    lines = text.split("\n")
    if not lines or not lines[0].startswith(">meta "):
        raise LogError(f"{path}:1: a battle log starts with '>meta {{...}}'")
    try:
        meta = json.loads(lines[0][6:])
    except ValueError as e:
        raise LogError(f"{path}:1: bad >meta JSON ({e})") from None
    sides: list[tuple[str, str, int, list[str]]] = []
    cur: tuple[str, str, int, list[str]] | None = None
    for no, line in enumerate(lines[1:], 2):
        if line.startswith(">side "):
            parts = line.split(" ")
            if len(parts) != 3:
                raise LogError(f"{path}:{no}: expected '>side <username> <policy>', got {line!r}")
            cur = (parts[1], parts[2], no + 1, [])
            sides.append(cur)
        elif cur is not None:
            cur[3].append(line)  # empty lines too: line numbers stay the file's
        elif line:
            raise LogError(f"{path}:{no}: protocol line before any '>side' header")
    if len(sides) != 2:
        raise LogError(f"{path}: expected 2 sides, found {len(sides)}")
    return meta, sides


def team_key(request: dict) -> str:
    """A short hash naming one side's team (species, item, ability, moves, tera type of
    each Pokemon, in any order), read from a request: what a model trained on."""
    mons = []
    for p in request.get("side", {}).get("pokemon", []):
        species = p.get("details", "").split(",")[0]
        mons.append(
            "|".join(
                [
                    species,
                    p.get("item", ""),
                    p.get("baseAbility", ""),
                    ",".join(sorted(p.get("moves", []))),
                    p.get("teraType", "") or "",
                ]
            )
        )
    return hashlib.sha1("\n".join(sorted(mons)).encode()).hexdigest()[:16]


def log_format(path: str | Path) -> str:
    """The format id a battle log's ``>meta`` line records."""
    path = Path(path)
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    try:
        fmt = json.loads(first[6:]).get("format") if first.startswith(">meta ") else None
    except (ValueError, AttributeError):
        fmt = None
    if not isinstance(fmt, str):
        raise LogError(f"{path}:1: no '>meta {{\"format\": ...}}' line naming the battle's format")
    return fmt


def parse_log(path: str | Path) -> list[SideTrajectory]:
    """Both sides' trajectories of one battle log (raises LogError naming file:line)."""
    path = Path(path)
    _, sides = split_sides(path, path.read_text())
    out = []
    for username, policy, first, lines in sides:
        # the recorded choice of each request: the first |choose| after it
        labels: dict[int, tuple[str, int, int]] = {}
        last_request, outcome = None, None
        for no, line in enumerate(lines, first):
            if line.startswith("|request|"):
                last_request = no
            elif line.startswith("|choose|"):
                parts = line.split("|")
                if len(parts) < 4 or parts[2] not in ("preview", "turn") or not parts[3].isdigit():
                    raise LogError(f"{path}:{no}: malformed choice line {line[:80]!r}")
                if last_request is None:
                    raise LogError(f"{path}:{no}: a choice before any request")
                labels[last_request] = (parts[2], int(parts[3]), no)
            elif line.startswith("|win|"):
                outcome = 1.0 if to_id(line[5:]) == to_id(username) else -1.0
            elif line.startswith("|tie"):
                outcome = 0.0
        if outcome is None:
            raise LogError(f"{path}: side {username}: the battle never ends (no |win| or |tie|)")
        first_request = next((line for line in lines if line.startswith("|request|{")), None)
        try:
            team = team_key(json.loads(first_request[9:])) if first_request else ""
        except ValueError:
            team = ""  # the replay below names the broken line
        traj = SideTrajectory(policy, outcome, team)
        try:
            for battle, ctx in replay(lines, username, source=str(path), first_line=first):
                label = labels.get(ctx.line)
                if label is None:
                    continue  # a request this side did not answer (recording cut short)
                kind, action, line_no = label
                d = make_decision(battle, ctx, encode=True)
                if d is None or d.kind != kind:
                    raise LogError(
                        f"{path}:{line_no}: recorded a {kind} choice where the request asks for "
                        f"{'nothing' if d is None else d.kind}"
                    )
                if not (0 <= action < len(d.mask)) or not d.mask[action]:
                    raise LogError(f"{path}:{line_no}: recorded action {action} is illegal for its request")
                mask = np.zeros(JOINT_ACTIONS, dtype=bool)
                mask[: len(d.mask)] = d.mask
                assert d.obs is not None  # make_decision(encode=True) encodes
                traj.obs.append(d.obs.astype(np.float16))
                traj.mask.append(mask)
                traj.is_preview.append(kind == "preview")
                traj.actions.append(action)
        except ReplayError as e:
            raise LogError(str(e)) from e
        out.append(traj)
    return out


def heldout_names(names: list[str], share: float) -> set[str]:
    """The held-out part of a log set: ``round(share * n)`` names (at least one when n >= 2
    and share > 0, never all of them), those whose SHA-1 is lowest. Depends only on the
    names, so the same logs always split the same way."""
    n = len(names)
    if n < 2 or share <= 0:
        return set()
    k = min(n - 1, max(1, round(share * n)))
    return set(sorted(names, key=lambda s: hashlib.sha1(s.encode()).hexdigest())[:k])


def _label_sets(t: SideTrajectory) -> list[np.ndarray]:
    """Each step's label as a set of actions: a partial label's set, else the one action."""
    out = []
    for k, a in enumerate(t.actions):
        s = t.labels[k] if k < len(t.labels) else None
        if s is None:
            s = np.zeros(JOINT_ACTIONS, dtype=bool)
            s[a] = True
        out.append(s)
    return out


def _pack(trajs: list[SideTrajectory]) -> dict:
    """A chunk: steps concatenated; ``labels`` (bit-packed, like ``mask``) only where some
    step's label is partial."""
    partial = any(s is not None for t in trajs for s in t.labels)
    return {
        "obs": torch.from_numpy(np.concatenate([np.stack(t.obs) for t in trajs])),
        "mask": torch.from_numpy(np.packbits(np.concatenate([np.stack(t.mask) for t in trajs]), axis=-1)),
        "is_preview": torch.tensor([p for t in trajs for p in t.is_preview]),
        "actions": torch.tensor([a for t in trajs for a in t.actions], dtype=torch.long),
        "lengths": torch.tensor([len(t) for t in trajs], dtype=torch.long),
        "outcome": torch.tensor([t.outcome for t in trajs], dtype=torch.float32),
        "policy": [t.policy for t in trajs],
        "team": [t.team for t in trajs],
    } | (
        {"labels": torch.from_numpy(np.packbits(np.concatenate([np.stack(_label_sets(t)) for t in trajs]), axis=-1))}
        if partial
        else {}
    )


def dataset_matches(data_dir: Path, n_logs: int) -> bool:
    """A parsed data set under ``data_dir`` can be reused: same number of logs, same encoder."""
    m = data_dir / "manifest.json"
    if not m.exists():
        return False
    man = json.loads(m.read_text())
    return man.get("logs") == n_logs and man.get("encoder_version") == ENCODER_VERSION


def unpack_mask(packed: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.unpackbits(packed.numpy(), axis=-1, count=JOINT_ACTIONS).astype(bool))


class ChunkWriter:
    """Trajectories -> ``train_NNNN.pt`` / ``heldout_NNNN.pt`` chunks under ``out_dir``, each
    written atomically once it holds ``chunk_trajectories`` (empty trajectories dropped)."""

    def __init__(self, out_dir: Path, chunk_trajectories: int = 400):
        self.out_dir, self.chunk_trajectories = out_dir, chunk_trajectories
        self.buffers: dict[str, list[SideTrajectory]] = {"train": [], "heldout": []}
        self.chunks: dict[str, list[dict]] = {"train": [], "heldout": []}

    def add(self, split: str, trajs: list[SideTrajectory]) -> None:
        self.buffers[split].extend(t for t in trajs if len(t))
        if len(self.buffers[split]) >= self.chunk_trajectories:
            self._flush(split)

    def _flush(self, split: str) -> None:
        from league.checkpoint import atomic_torch_save

        trajs = self.buffers[split]
        if not trajs:
            return
        name = f"{split}_{len(self.chunks[split]):04d}.pt"
        atomic_torch_save(_pack(trajs), self.out_dir / name)
        self.chunks[split].append({"file": name, "trajectories": len(trajs), "decisions": sum(len(t) for t in trajs)})
        self.buffers[split] = []

    def close(self) -> dict[str, list[dict]]:
        """Write what is left; -> the manifest's ``chunks``."""
        self._flush("train")
        self._flush("heldout")
        return self.chunks


def write_manifest(
    out_dir: Path, counts: dict, chunks: dict, errors: list[str], logs: int, formats: list[str], **extra
) -> dict:
    """``manifest.json`` (atomically): what ``league.bc.train`` reads."""
    from league.atomic import atomic_write_text

    manifest = {
        **counts,
        "obs_dim": OBS_DIM,
        "encoder_version": ENCODER_VERSION,
        "actions": JOINT_ACTIONS,
        "preview_actions": PREVIEW_ACTIONS,
        "formats": sorted(set(formats)),
        "chunks": chunks,
        "errors": errors,
        "logs": logs,
        **extra,
    }
    atomic_write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1))
    return manifest


class DatasetError(ValueError):
    """A parsed data set that cannot be read as it is: names the directory and the fix."""


def chunk_path(data_dir: Path, name) -> Path:
    """A chunk named in ``manifest.json``: a plain file name inside ``data_dir`` (a
    manifest naming ``../x`` or an absolute path is refused, not followed)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+\.pt", name) or name.startswith("."):
        raise DatasetError(
            f"{data_dir}/manifest.json names chunk {name!r}: a chunk is a plain file name "
            "(train_NNNN.pt) inside the data set; parse the logs again (tools.bc parse)"
        )
    return Path(data_dir) / name


def read_manifest(data_dir: Path) -> dict:
    """A data set's ``manifest.json``, checked to hold this code's observations (encoder
    version, observation size): else one DatasetError naming the fix."""
    m = Path(data_dir) / "manifest.json"
    try:
        manifest = json.loads(m.read_text())
    except (OSError, ValueError) as e:
        raise DatasetError(f"{m} cannot be read ({e}); parse the logs again (tools.bc parse)") from e
    if not isinstance(manifest, dict) or not isinstance(manifest.get("chunks"), dict):
        raise DatasetError(f"{m} is not a league data set manifest; parse the logs again (tools.bc parse)")
    have = (manifest.get("encoder_version", 1), manifest.get("obs_dim"))
    if have != (ENCODER_VERSION, OBS_DIM):
        raise DatasetError(
            f"{data_dir} holds observations of encoder version {have[0]} (size {have[1]}); this code "
            f"encodes version {ENCODER_VERSION} (size {OBS_DIM}): parse the logs again (tools.bc parse "
            "or parse-replays) into a new directory"
        )
    return manifest


def dataset_formats(manifest: dict) -> list[str]:
    """The formats of a data set's battles; a set parsed before they were recorded held
    Scarlet/Violet battles of the default format."""
    from league.config import ShowdownConf

    return manifest.get("formats") or [ShowdownConf.format]


def check_formats(formats: list[str], where) -> None:
    """One data set, one game's data (a network plays one: league/model/net.py)."""
    from league.battle.dex import data_of

    by: dict[str, list[str]] = {}
    for f in formats:
        by.setdefault(data_of(f), []).append(f)
    if len(by) > 1:
        what = "; ".join(f"{d}: {', '.join(fs)}" for d, fs in sorted(by.items()))
        raise LogError(
            f"{where}: battles of formats on different game data ({what}): a network plays one, "
            "so parse them into separate data sets"
        )


def build_dataset(
    log_dir: str | Path, out_dir: str | Path, chunk_trajectories: int = 400, heldout_share: float = 0.1, on_error=print
) -> dict:
    """Parse every ``*.log`` under ``log_dir`` into chunks under ``out_dir`` (all of one
    game's data: LogError otherwise)."""
    log_dir, out_dir = Path(log_dir), Path(out_dir)
    logs = sorted(log_dir.glob("*.log"))
    if not logs:
        raise LogError(f"{log_dir}: no *.log battle logs")
    formats: dict[Path, str | None] = {}
    for path in logs:
        try:
            formats[path] = log_format(path)
        except (LogError, OSError, UnicodeDecodeError):
            formats[path] = None  # reported when parsed below
    check_formats(sorted({f for f in formats.values() if f}), log_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    held = heldout_names([p.stem for p in logs], heldout_share)
    writer = ChunkWriter(out_dir, chunk_trajectories)
    errors: list[str] = []
    counts = {"battles": 0, "trajectories": 0, "decisions": 0}
    seen: set[str] = set()
    for path in logs:
        try:
            trajs = parse_log(path)
        except (LogError, OSError, UnicodeDecodeError) as e:
            errors.append(str(e))
            on_error(f"skipped: {e}")
            continue
        writer.add("heldout" if path.stem in held else "train", trajs)
        counts["battles"] += 1
        counts["trajectories"] += len(trajs)
        counts["decisions"] += sum(len(t) for t in trajs)
        fmt = formats[path]
        if fmt:
            seen.add(fmt)
    return write_manifest(out_dir, counts, writer.close(), errors, len(logs), sorted(seen))
