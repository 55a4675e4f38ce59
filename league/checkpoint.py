"""Checkpoints: written atomically, named and ordered by update number.

``<run_dir>/checkpoints/ckpt_000001200.pt`` holds the learner's whole state (online,
target and both regularisation networks, optimizer, GradScaler, step counters), the
run's counters, RNG states, the model config (sizes, encoder version, the format and its
game data: league/model/net.py ``model_cfg_dict``) and the run config. A checkpoint is
written to a temporary file in the same directory, fsynced, then renamed over:
a crash mid-write leaves the previous checkpoints intact.

Every file is read with ``torch.load(weights_only=True)`` (:func:`safe_load`): tensors and
plain data only, never a pickled callable, so a crafted file cannot run code. The state
is written that way (the config as a dict, numpy's RNG state as a tensor); files of
earlier releases, which held the config dataclasses and numpy arrays, load through an
allow-list of exactly those data types (:data:`LEGACY_NUMPY`, league's config dataclasses).
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import random
import re
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

from league.atomic import atomic_write

_NAME = re.compile(r"ckpt_(\d+)\.pt$")


class CheckpointError(RuntimeError):
    pass


def checkpoint_dir(run_dir: str | Path) -> Path:
    return Path(run_dir) / "checkpoints"


def list_checkpoints(run_dir: str | Path) -> list[Path]:
    d = checkpoint_dir(run_dir)
    if not d.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in d.iterdir() if (m := _NAME.search(p.name))]
    return [p for _, p in sorted(found)]


def set_aside_from(run_dir: str | Path, step: int) -> list[Path]:
    """Move the run's checkpoints written at update ``step`` or later into
    ``checkpoints/diverged/`` (kept, never deleted: a resume and latest_checkpoint then
    see the ones before them); returns their new paths, oldest first."""
    late = [p for p in list_checkpoints(run_dir) if (checkpoint_step(p) or 0) >= step]
    if not late:
        return []
    aside = checkpoint_dir(run_dir) / "diverged"
    aside.mkdir(exist_ok=True)
    moved = []
    for p in late:
        p.replace(aside / p.name)  # one rename each (same folder tree): a file is in one place or the other
        moved.append(aside / p.name)
    return moved


def checkpoint_step(path: str | Path) -> int | None:
    """The learner update a checkpoint was written at (from its name), or None."""
    m = _NAME.search(Path(path).name)
    return int(m.group(1)) if m else None


def resume_point(run_dir: str | Path, model_cfg) -> tuple[str, dict]:
    """The checkpoint a ``resume=true`` run goes on from and its counters; a directory
    with none, or one of other network sizes than ``model_cfg``, is a CheckpointError."""
    found = latest_checkpoint(run_dir)
    if found is None:
        raise CheckpointError(
            f"resume=true but {checkpoint_dir(run_dir)} holds no checkpoint (set hydra.run.dir to the run to resume)"
        )
    if what := model_mismatch(found, model_cfg):
        raise CheckpointError(
            f"resume=true: {found}'s network sizes are not model.*'s ({what}, checkpoint vs config): resume "
            "with the model.* settings the run was started with"
        )
    return str(found), load_checkpoint(found).get("counters", {})


def adopt_model_sizes(run_dir: str | Path, model_cfg, named: set[str]) -> list[str]:
    """resume=true: the run's network is its newest checkpoint's. Each model.* size the
    command line did not name (``named``: ModelConfig field names) takes the checkpoint's
    value, so a default changed since the run started does not refuse the resume (a
    size named on the command line and different stays an error, resume_point's).
    Changes ``model_cfg`` in place; returns what changed, "key: config -> checkpoint"."""
    from league.model.net import INIT_FIELDS, model_sizes

    found = latest_checkpoint(run_dir)
    if found is None:
        return []
    changed = []
    for key, value in model_sizes(load_checkpoint(found)["model_cfg"]).items():
        if key in INIT_FIELDS or key in named or not hasattr(model_cfg, key):
            continue
        if getattr(model_cfg, key) != value:
            changed.append(f"model.{key}: {getattr(model_cfg, key)} -> {value}")
            setattr(model_cfg, key, value)
    return changed


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    ckpts = list_checkpoints(run_dir)
    return ckpts[-1] if ckpts else None


def rng_state() -> dict:
    """The three RNGs' states as tensors and plain data (loadable with weights_only)."""
    # the legacy form (the default) is this tuple; the dict form is legacy=False's
    state = cast("tuple[str, np.ndarray, int, int, float]", np.random.get_state(legacy=True))
    name, key, pos, has_gauss, gauss = state
    return {
        "torch": torch.get_rng_state(),
        "numpy": {
            "name": name,
            "key": torch.from_numpy(key.astype(np.int64)),
            "pos": int(pos),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(gauss),
        },
        "python": random.getstate(),
    }


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    n = state["numpy"]
    if isinstance(n, dict):
        n = (n["name"], n["key"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["cached_gaussian"])
    np.random.set_state(n)  # a tuple: a checkpoint of an earlier release
    random.setstate(state["python"])


# what earlier releases' checkpoints held besides tensors: numpy's RNG key (an array) and
# the config dataclasses (league.*: data only, no __reduce__ of their own)
LEGACY_NUMPY = {
    "numpy._core.multiarray._reconstruct",
    "numpy.core.multiarray._reconstruct",
    "numpy.ndarray",
    "numpy.dtype",
    "numpy.dtypes.UInt32DType",
}


def _legacy_global(name: str):
    """The object a legacy global names, if it is on the allow-list, else None."""
    if name not in LEGACY_NUMPY and not name.startswith("league."):
        return None
    module, _, attr = name.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        return None
    if name in LEGACY_NUMPY or (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        return obj
    return None


def safe_load(path: str | Path, what: str = "file") -> Any:
    """``torch.load`` that never runs code: tensors and plain data, or an earlier league
    checkpoint's allow-listed data types. Anything else: CheckpointError naming the file,
    the types it asked for, and what to do."""
    path = Path(path)
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        pass
    except Exception as e:
        raise CheckpointError(
            f"{what} {path} cannot be read ({type(e).__name__}: {e}); "
            "delete it to fall back to the previous one, or name another file"
        ) from e
    try:
        names = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    except Exception as e:
        raise CheckpointError(f"{what} {path} cannot be read ({type(e).__name__}: {e})") from e
    allowed = {n: _legacy_global(n) for n in names}
    refused = sorted(n for n, o in allowed.items() if o is None)
    if refused:
        raise CheckpointError(
            f"refused {what} {path}: it asks to unpickle {', '.join(refused[:5])}"
            f"{' ...' if len(refused) > 5 else ''}, which league never does (a file can run code that way). "
            "Use a file written by league (checkpoints, tools.export, tools.bc), or re-save its tensors with "
            "torch.save of a dict of tensors and plain data"
        )
    try:
        numpy_types = [o for o in map(_legacy_global, sorted(LEGACY_NUMPY)) if o is not None]
        with torch.serialization.safe_globals([*allowed.values(), *numpy_types]):
            return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise CheckpointError(f"{what} {path} cannot be read ({type(e).__name__}: {e})") from e


def plain_config(cfg) -> Any:
    """The run config as plain data (dicts, lists, numbers, strings) for a checkpoint."""
    return dataclasses.asdict(cfg) if dataclasses.is_dataclass(cfg) and not isinstance(cfg, type) else cfg


def atomic_torch_save(obj: Any, path: Path) -> None:
    atomic_write(path, lambda f: torch.save(obj, f), binary=True)


def learner_state(learner, counters: dict, cfg, weights_version: int) -> dict:
    """Everything a checkpoint holds, from a Learner and the run's counters."""
    from league.model.net import model_cfg_dict

    return {
        "learner": learner.state_dict(),
        "counters": {**counters, "updates": learner.steps},
        "rng": rng_state(),
        "model_cfg": model_cfg_dict(cfg.model, cfg.showdown.format),
        "config": plain_config(cfg),
        "weights_version": weights_version,
    }


def restore_learner(learner, cfg, resume_from: str | Path | None) -> dict:
    """Resume a Learner from a checkpoint (or start its networks from run.init_checkpoint).
    Returns the checkpoint's counters ({} when starting fresh)."""
    if resume_from is not None:
        state = load_checkpoint(resume_from)
        learner.load_state_dict(state["learner"])
        set_rng_state(state["rng"])
        return dict(state.get("counters", {}))
    if cfg.run.init_checkpoint:
        net = load_policy_net(cfg.run.init_checkpoint, format_id=cfg.showdown.format, name="run.init_checkpoint")
        for m in (learner.net, learner.target, learner.reg, learner.reg_prev):
            m.load_state_dict(net.state_dict())
    return {}


def save_checkpoint(run_dir: str | Path, state: dict, step: int, keep: int = 3) -> Path:
    path = checkpoint_dir(run_dir) / f"ckpt_{step:09d}.pt"
    atomic_torch_save(state, path)
    for old in list_checkpoints(run_dir)[:-keep]:
        old.unlink(missing_ok=True)
    return path


def load_checkpoint(path: str | Path) -> dict:
    path = Path(path)
    state = safe_load(path, "checkpoint")
    if not isinstance(state, dict) or "learner" not in state or "model_cfg" not in state:
        raise CheckpointError(f"{path} is not a league checkpoint (missing 'learner'/'model_cfg')")
    check_encoder_version(state["model_cfg"], path)
    return state


def check_encoder_version(model_cfg: dict, path) -> None:
    """A network trained on another observation layout cannot be loaded: say which."""
    from league.battle.obs import ENCODER_VERSION, READABLE_VERSIONS

    found = model_cfg.get("encoder_version", 1) if isinstance(model_cfg, dict) else 1
    if found not in READABLE_VERSIONS:
        raise CheckpointError(
            f"{path} was trained with observation encoder version {found}; this code encodes version "
            f"{ENCODER_VERSION} and runs networks of versions {', '.join(map(str, READABLE_VERSIONS))} "
            f"(league/battle/obs.py: READABLE_VERSIONS), not it. Train a new network "
            f"(or behaviour-clone one: tools.bc), or use the release that wrote it."
        )


def check_data(model_cfg: dict, format_id: str, name) -> None:
    """A network reads the static move rows of the game data it was trained on
    (league/model/net.py): one trained on Scarlet/Violet data cannot play a Pokemon
    Champions format, nor the reverse. ``name`` says which network (a SPEC, a setting)."""
    from league.battle.dex import DATA_NAMES, data_of
    from league.model.net import model_data

    have, want = model_data(model_cfg), data_of(format_id)
    if have == want:
        return
    formats = model_cfg.get("formats")
    trained = (
        f"was trained for {', '.join(formats)} ({DATA_NAMES.get(have, have)} data)"
        if formats
        else f"was trained on {DATA_NAMES.get(have, have)} data (its file records no format)"
    )
    raise CheckpointError(
        f"{name} {trained}; {format_id} plays on {DATA_NAMES[want]} data and needs a network trained on a "
        f"{DATA_NAMES[want]} format: train one (python -m league.run showdown.format={format_id}, or tools.bc on "
        f"its battles) or pick a network trained for it"
    )


def model_mismatch(path: str | Path, model_cfg) -> str:
    """How a checkpoint's model sizes differ from ``model_cfg`` (a ModelConfig), or ""."""
    from dataclasses import asdict

    from league.model.net import INIT_FIELDS, READ_FIELDS, model_sizes

    stored = model_sizes(load_checkpoint(path)["model_cfg"])
    want = asdict(model_cfg)
    keys = sorted((set(stored) | set(want)) - set(INIT_FIELDS) - set(READ_FIELDS))
    return ", ".join(f"{k} {stored.get(k)} vs {want.get(k)}" for k in keys if stored.get(k) != want.get(k))


def load_policy_net(path: str | Path, which: str = "net", format_id: str | None = None, name: str | None = None):
    """A PolicyValueNet with a checkpoint's weights and the static tables of the game
    data it was trained on (eval mode, CPU). With ``format_id``: refused (CheckpointError,
    naming ``name`` or the path) when that format plays on other data."""
    from league.model.net import ModelConfig, PolicyValueNet, model_data, model_sizes

    state = load_checkpoint(path)
    if format_id is not None:
        check_data(state["model_cfg"], format_id, name or str(path))
    sizes = model_sizes(state["model_cfg"])
    try:
        net = PolicyValueNet(ModelConfig(**sizes), data=model_data(state["model_cfg"]))
    except (TypeError, ValueError) as e:
        raise CheckpointError(
            f"checkpoint {path}: model settings {sorted(state['model_cfg'])} do not fit this model ({e})"
        ) from e
    try:
        net.load_state_dict(state["learner"][which])
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint {path}: weights do not fit this model ({e})") from e
    return net.eval()
