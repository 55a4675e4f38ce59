"""Supervised training of the policy-value network on parsed battle logs.

The network is the RL one (league/model/net.py), run over whole trajectories so the
recurrent core sees the same history as when acting. Policy: cross-entropy of the
recorded action under the masked distribution, on the decisions of the imitated
policies only (default: maxdamage, mixed and human replays, not random); value: squared error to the
trajectory's outcome, on every trajectory. A replay's partial label (one slot's order
shown, the other not; team preview's leads without all the backs; a move whose target
is not shown) is a set L of joint actions, and its loss is -log sum_{a in L} pi(a): the
joint policy marginalised over what the log does not show (``label_log_likelihood``).
Held-out chunks give the loss, top-1 accuracy (the most likely legal action is in the
label's set: the recorded action for a whole label) and, on the same decisions, the
top-1 of a uniform choice over the legal actions (#label / #legal). The network reads the game data of the data set's formats (one
family: league/bc/dataset.py ``check_formats``) and its checkpoint records them. The
result is a league checkpoint: ``checkpoint:PATH`` plays it,
``run.init_checkpoint=PATH`` starts the main agent from it, ``league.bc_checkpoint=PATH``
adds it to the league as the fixed ``bc`` member (for a format of the same game data).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from league.battle.dex import data_of
from league.bc.dataset import check_formats, chunk_path, dataset_formats, read_manifest, unpack_mask
from league.checkpoint import safe_load
from league.learn.augment import drop_ids
from league.learn.rnad import legal_log_policy
from league.model.net import ModelConfig, PolicyValueNet, model_cfg_dict


@dataclass
class BCConfig:
    epochs: int = 10
    batch_trajectories: int = 32
    lr: float = 1e-3
    value_coef: float = 0.5
    grad_clip_norm: float = 5.0
    imitate: tuple[str, ...] = ("maxdamage", "mixed", "human")  # human: tools.bc parse-replays
    seed: int = 0
    device: str = "cpu"
    # Training only: each known species, item, ability and move id becomes "unknown"
    # with this probability, so the network learns to act from what a Pokemon is (stats,
    # types, move features), not from which team it has memorised. Measured on
    # maxdamage logs of unseen teams (experiments/bc_maxdamage_v2): top-1 0.877 at 0,
    # 0.909 at 0.2, 0.867 at 0.4 (team preview 0.54 / 0.72 / 0.50; 0.998 on the
    # training teams without it).
    id_dropout: float = 0.2


def label_log_likelihood(logp: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """log sum_{a in L} pi(a) per step: ``logp`` [..., A] the log policy (legal_log_policy:
    0 on illegal actions), ``labels`` [..., A] bool, the set L (within the legal actions;
    one action for a whole label, where this is log pi(a)). For a turn with slot a's
    order x shown and slot b's not, L = {(x, y): y}: log sum_y pi(x, y), the marginal of
    the joint policy over the unknown slot."""
    assert logp.shape == labels.shape, (logp.shape, labels.shape)
    return torch.logsumexp(logp.masked_fill(~labels, -torch.inf), dim=-1)


def _trajectories(chunk: dict) -> list[dict]:
    """Split a chunk's concatenated steps back into trajectories."""
    out, start = [], 0
    mask = unpack_mask(chunk["mask"])
    labels = unpack_mask(chunk["labels"]) if "labels" in chunk else None  # partial labels' sets
    for i, n in enumerate(chunk["lengths"].tolist()):
        sl = slice(start, start + n)
        out.append(
            {
                "obs": chunk["obs"][sl].float(),
                "mask": mask[sl],
                "is_preview": chunk["is_preview"][sl],
                "actions": chunk["actions"][sl],
                "labels": labels[sl] if labels is not None else None,
                "outcome": float(chunk["outcome"][i]),
                "policy": chunk["policy"][i],
                "team": chunk.get("team", [""] * len(chunk["policy"]))[i],
            }
        )
        start += n
    return out


def _batch(trajs: list[dict], imitate: tuple[str, ...], device) -> dict:
    T, B = max(len(t["actions"]) for t in trajs), len(trajs)
    obs = torch.zeros(T, B, trajs[0]["obs"].shape[-1])
    mask = torch.zeros(T, B, trajs[0]["mask"].shape[-1], dtype=torch.bool)
    mask[:, :, 0] = True  # padding steps keep one legal action (finite log-softmax)
    is_preview = torch.zeros(T, B, dtype=torch.bool)
    actions = torch.zeros(T, B, dtype=torch.long)
    labels = torch.zeros(T, B, trajs[0]["mask"].shape[-1], dtype=torch.bool)
    labels[:, :, 0] = True  # padding steps: action 0
    valid = torch.zeros(T, B, dtype=torch.bool)
    value_target = torch.zeros(T, B)
    imit = torch.zeros(B, dtype=torch.bool)
    for b, t in enumerate(trajs):
        n = len(t["actions"])
        obs[:n, b], mask[:n, b], is_preview[:n, b], actions[:n, b] = t["obs"], t["mask"], t["is_preview"], t["actions"]
        labels[:n, b, 0] = False
        if t.get("labels") is not None:
            labels[:n, b] = t["labels"]
        else:
            labels[:n, b] = torch.nn.functional.one_hot(t["actions"], labels.shape[-1]).bool()
        valid[:n, b] = True
        value_target[:n, b] = t["outcome"]
        imit[b] = t["policy"] in imitate
    d = dict(
        obs=obs,
        mask=mask,
        is_preview=is_preview,
        actions=actions,
        labels=labels & mask,
        valid=valid,
        value_target=value_target,
        imitate=valid & imit[None, :],
    )
    return {k: v.to(device) for k, v in d.items()}


def legal_top1(logits: torch.Tensor, mask: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """1.0 where the most likely *legal* action is the recorded one (``labels``: its index
    [...], or the set a partial label leaves [..., A] bool); illegal logits ignored."""
    best = logits.float().masked_fill(~mask, -torch.inf).argmax(-1)
    if labels.dtype == torch.bool:
        return labels.gather(-1, best[..., None]).squeeze(-1).float()
    return (best == labels).float()


def _losses(net: PolicyValueNet, b: dict) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """Policy loss (over the imitated sides' decisions), value loss, and counts."""
    h0 = net.initial_state(b["obs"].shape[1], b["obs"].device)
    logits, v, _ = net(b["obs"], b["mask"], b["is_preview"], h0)
    logp = legal_log_policy(logits.float(), b["mask"])
    nll = -label_log_likelihood(logp, b["labels"])
    w = b["imitate"].float()
    n_pol = w.sum().clamp(min=1.0)
    loss_pi = (nll * w).sum() / n_pol
    loss_v = (((v.float() - b["value_target"]) ** 2) * b["valid"].float()).sum() / b["valid"].float().sum().clamp(
        min=1.0
    )
    with torch.no_grad():
        top1 = (legal_top1(logits, b["mask"], b["labels"]) * w).sum()
        uniform = ((b["labels"].sum(-1) / b["mask"].sum(-1).clamp(min=1)).float() * w).sum()
    return loss_pi, loss_v, {"top1_sum": float(top1), "uniform_sum": float(uniform), "n": float(w.sum())}


def evaluate(net: PolicyValueNet, chunks: list[dict], cfg: BCConfig) -> dict:
    net.eval()
    tot = {"nll": 0.0, "top1": 0.0, "uniform": 0.0, "n": 0.0, "v": 0.0, "nb": 0}
    with torch.no_grad():
        for chunk in chunks:
            trajs = _trajectories(chunk)
            for i in range(0, len(trajs), cfg.batch_trajectories):
                b = _batch(trajs[i : i + cfg.batch_trajectories], cfg.imitate, cfg.device)
                loss_pi, loss_v, m = _losses(net, b)
                tot["nll"] += float(loss_pi) * m["n"]
                tot["top1"] += m["top1_sum"]
                tot["uniform"] += m["uniform_sum"]
                tot["n"] += m["n"]
                tot["v"] += float(loss_v)
                tot["nb"] += 1
    net.train()
    n = max(tot["n"], 1.0)
    return {
        "loss": tot["nll"] / n,
        "top1": tot["top1"] / n,
        "uniform_top1": tot["uniform"] / n,
        "value_loss": tot["v"] / max(tot["nb"], 1),
        "decisions": int(tot["n"]),
    }


def train_bc(
    data_dir: str | Path,
    out_dir: str | Path,
    model_cfg: ModelConfig,
    cfg: BCConfig,
    log=print,
    init: PolicyValueNet | None = None,
) -> dict:
    """Train on ``data_dir``'s parsed logs; ``init``: start from this network's weights (and
    its sizes, not ``model_cfg``'s), e.g. an agent fine-tuned on another player's choices."""
    from torch.utils.tensorboard import SummaryWriter

    from league.checkpoint import atomic_torch_save

    data_dir, out_dir = Path(data_dir), Path(out_dir)
    manifest = read_manifest(data_dir)
    train_files = [chunk_path(data_dir, c["file"]) for c in manifest["chunks"]["train"]]
    held_files = [chunk_path(data_dir, c["file"]) for c in manifest["chunks"]["heldout"]]
    if not train_files or not held_files:
        raise ValueError(
            f"{data_dir}: needs train and held-out chunks (got {len(train_files)} and {len(held_files)}); "
            "generate more battles"
        )
    formats = dataset_formats(manifest)
    check_formats(formats, data_dir)
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    gen = torch.Generator(device=cfg.device).manual_seed(cfg.seed)
    if init is not None:
        if init.data != data_of(formats[0]):
            raise ValueError(
                f"--init: the network plays {init.data!r} game data, the data set {data_of(formats[0])!r}; "
                "start from a network of the data set's game"
            )
        model_cfg = init.cfg
        net = init.train().to(cfg.device)
    else:
        net = PolicyValueNet(model_cfg, data=data_of(formats[0])).to(cfg.device)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    out_dir.mkdir(parents=True, exist_ok=True)
    tb = SummaryWriter(str(out_dir / "tb"))
    held = [safe_load(f, "BC chunk") for f in held_files]
    step, t0 = 0, time.monotonic()
    train_teams: set[str] = set()
    for epoch in range(cfg.epochs):
        order = list(train_files)
        rng.shuffle(order)
        for f in order:  # one chunk in memory at a time
            trajs = _trajectories(safe_load(f, "BC chunk"))
            train_teams.update(t["team"] for t in trajs if t["team"])
            rng.shuffle(trajs)
            for i in range(0, len(trajs), cfg.batch_trajectories):
                b = _batch(trajs[i : i + cfg.batch_trajectories], cfg.imitate, cfg.device)
                b["obs"] = drop_ids(b["obs"], cfg.id_dropout, gen)
                loss_pi, loss_v, m = _losses(net, b)
                loss = loss_pi + cfg.value_coef * loss_v
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.grad_clip_norm)
                opt.step()
                step += 1
                tb.add_scalar("bc/train_policy_loss", float(loss_pi.detach()), step)
                tb.add_scalar("bc/train_value_loss", float(loss_v.detach()), step)
                tb.add_scalar("bc/train_top1", m["top1_sum"] / max(m["n"], 1.0), step)
        ev = evaluate(net, held, cfg)
        for k in ("loss", "top1", "uniform_top1", "value_loss"):
            tb.add_scalar(f"bc/heldout_{k}", ev[k], step)
        log(
            f"epoch {epoch + 1}/{cfg.epochs}: held-out loss {ev['loss']:.3f} top-1 {ev['top1']:.3f} "
            f"(uniform {ev['uniform_top1']:.3f}) over {ev['decisions']} decisions, {time.monotonic() - t0:.0f} s"
        )
    tb.close()
    summary = {
        "top1": round(ev["top1"], 4),
        "uniform_top1": round(ev["uniform_top1"], 4),
        "decisions": ev["decisions"],
        "heldout_loss": round(ev["loss"], 4),
        "updates": step,
        "train_trajectories": sum(c["trajectories"] for c in manifest["chunks"]["train"]),
    }
    path = out_dir / "bc.pt"
    state = {
        "learner": {"net": net.state_dict(), "steps": 0},
        "model_cfg": model_cfg_dict(model_cfg, formats),
        "bc": summary,
        "train_teams": sorted(train_teams),
        "counters": {},
    }
    atomic_torch_save(state, path)
    summary["checkpoint"] = str(path)
    return summary


def eval_bc(
    checkpoint: str | Path,
    data_dir: str | Path,
    policies: tuple[str, ...] = ("maxdamage",),
    batch_trajectories: int = 32,
    device: str = "cpu",
) -> dict:
    """Top-1 agreement of a network with the recorded choices of ``policies`` over every
    decision of a parsed data set (all of its chunks: logs the network never trained on),
    next to a uniform choice over the legal actions. Split by kind of decision and by
    whether the side's team was among the teams the network was trained on (BC
    checkpoints record them)."""
    from league.checkpoint import check_data, load_checkpoint, load_policy_net

    data_dir = Path(data_dir)
    manifest = read_manifest(data_dir)
    files = [chunk_path(data_dir, c["file"]) for split in ("train", "heldout") for c in manifest["chunks"][split]]
    state = load_checkpoint(checkpoint)
    seen_teams = set(state.get("train_teams", []))
    for fmt in dataset_formats(manifest):  # the network plays the data set's game data
        check_data(state["model_cfg"], fmt, checkpoint)
    net = load_policy_net(checkpoint).to(device).eval()
    keys = ("all", "preview", "turn", "seen", "unseen")
    hit = dict.fromkeys(keys, 0.0)
    n = dict.fromkeys(keys, 0.0)
    uniform = 0.0
    with torch.no_grad():
        for f in files:
            trajs = [t for t in _trajectories(safe_load(f, "BC chunk")) if t["policy"] in policies]
            for i in range(0, len(trajs), batch_trajectories):
                part = trajs[i : i + batch_trajectories]
                b = _batch(part, policies, device)
                h0 = net.initial_state(b["obs"].shape[1], device)
                logits, _, _ = net(b["obs"], b["mask"], b["is_preview"], h0)
                top1 = legal_top1(logits, b["mask"], b["labels"])
                w = b["imitate"].float()
                seen = torch.tensor([t["team"] in seen_teams for t in part], device=device)[None, :].float()
                prev = b["is_preview"].float()
                for k, sel in (
                    ("all", w),
                    ("preview", w * prev),
                    ("turn", w * (1 - prev)),
                    ("seen", w * seen),
                    ("unseen", w * (1 - seen)),
                ):
                    hit[k] += float((top1 * sel).sum())
                    n[k] += float(sel.sum())
                uniform += float(((b["labels"].sum(-1) / b["mask"].sum(-1).clamp(min=1)).float() * w).sum())
    if n["all"] == 0:
        raise ValueError(f"{data_dir}: no recorded decision of {', '.join(policies)} to evaluate")
    rate = lambda k: round(hit[k] / n[k], 4) if n[k] else None  # noqa: E731
    return {
        "top1": rate("all"),
        "uniform_top1": round(uniform / n["all"], 4),
        "decisions": int(n["all"]),
        "top1_preview": rate("preview"),
        "top1_turn": rate("turn"),
        "top1_unseen_teams": rate("unseen"),
        "top1_seen_teams": rate("seen"),
        "decisions_unseen_teams": int(n["unseen"]),
        "decisions_seen_teams": int(n["seen"]),
        "policies": list(policies),
        "checkpoint": str(checkpoint),
    }
