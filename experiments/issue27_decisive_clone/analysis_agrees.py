"""Does the observation's own analysis see the look-ahead's corrections? (issue 27)

Replays the decisive teacher's logs (policy ``search``) with the reference network acting
on the same observations, and at each move request where the teacher chose otherwise
(a correction) scores both joint orders with the damage analysis the network reads:
``heuristic``'s joint score (expected damage, knock-outs, no overkill) and ``maxdamage``'s
(expected damage alone). Prints JSON: how often each score prefers the teacher's pick,
ties, or prefers the network's choice; the same for a random other legal order (what
"prefers" means by chance); ``heuristic``'s split by whether the correction changes
attacks only (move, target, tera) or adds a Protect or a switch (which the analysis
scores at 0 and -1); and the kinds of change per slot.

    python experiments/issue27_decisive_clone/analysis_agrees.py runs/decisive_clone/heldout_logs league/agents/regc.pt
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS, decode_slot, split_joint
from league.battle.context import make_decision
from league.battle.moves import _PROTECT_LIKE
from league.battle.replay import replay
from league.bc.dataset import split_sides
from league.checkpoint import load_policy_net
from league.players.heuristic import _slot_tables, joint_scores
from league.players.maxdamage import slot_scores


def _kind(view, slot: int, a: int) -> str:
    kind, i, _t, _tera = decode_slot(a)
    if kind != "move":
        return kind
    moves = view.active[slot].get("moves", []) if slot < len(view.active) and view.active[slot] else []
    return "protect" if i < len(moves) and moves[i].get("id", "") in _PROTECT_LIKE else "attack"


def change(view, a: int, b: int) -> str:
    """How order ``b`` differs from ``a``, slot by slot (the differing slots' kinds)."""
    out = []
    for slot, (x, y) in enumerate(zip(split_joint(a), split_joint(b), strict=True)):
        if x == y:
            continue
        kx, ky = _kind(view, slot, x), _kind(view, slot, y)
        if kx == ky == "attack":
            (_, i0, t0, b0), (_, i1, t1, b1) = decode_slot(x), decode_slot(y)
            what = "move" if i0 != i1 else ("target" if t0 != t1 else "")
            what += ("+" if what else "") + ("tera" if b0 != b1 else "") if b0 != b1 else ""
            out.append(what or "same")
        else:
            out.append(f"{kx}->{ky}")
    return ",".join(sorted(out))


def side(score: float, other: float) -> str:
    return "pick" if score > other + 1e-9 else ("network" if other > score + 1e-9 else "tie")


def main(argv: list[str]) -> None:
    log_dir, ref = Path(argv[0]), argv[1]
    net = load_policy_net(ref)
    rng = random.Random(0)
    prefer = {k: Counter() for k in ("heuristic", "maxdamage", "heuristic_random", "maxdamage_random")}
    kinds: Counter = Counter()
    by_kind: dict[str, Counter] = {}  # attacks only (no protect or switch in the change) or not
    n_move = n_corr = 0
    for path in sorted(log_dir.glob("*.log")):
        _, sides = split_sides(path, path.read_text())
        for username, policy, first, lines in sides:
            if policy != "search":
                continue
            labels, last = {}, None
            for no, line in enumerate(lines, first):
                if line.startswith("|request|"):
                    last = no
                elif line.startswith("|choose|"):
                    labels[last] = int(line.split("|")[3])
            h = net.initial_state(1)
            for battle, ctx in replay(lines, username, first_line=first):
                if ctx.line not in labels:
                    continue
                d = make_decision(battle, ctx, encode=True)
                mask = np.zeros(JOINT_ACTIONS, dtype=bool)
                mask[: len(d.mask)] = d.mask
                obs = torch.from_numpy(d.obs.astype(np.float16).astype(np.float32))[None, None]  # as the data set
                m = torch.from_numpy(mask)[None, None]
                with torch.no_grad():
                    logits, _, h = net(obs, m, torch.tensor([[d.kind == "preview"]]), h)
                a_net = int(logits[0, 0].float().masked_fill(~m[0, 0], float("-inf")).argmax())
                a_t = labels[ctx.line]
                if d.kind == "preview" or d.view.kind != "move":
                    continue
                n_move += 1
                if a_t == a_net:
                    continue
                n_corr += 1
                kinds[change(d.view, a_net, a_t)] += 1
                opp = battle.opponent_active_pokemon
                hp = [
                    m_.current_hp_fraction if m_ is not None and not m_.fainted else None
                    for m_ in (opp[f] if f < len(opp) else None for f in range(2))
                ]
                hj = joint_scores(*_slot_tables(battle, d), hp).reshape(-1)
                s0, s1 = slot_scores(battle, d)
                mj = (s0[:, None] + s1[None, :]).reshape(-1)
                legal = [a for a in np.flatnonzero(mask) if a != a_net]
                a_r = rng.choice(legal)
                prefer["heuristic"][side(hj[a_t], hj[a_net])] += 1
                ch = change(d.view, a_net, a_t)
                group = "attacks only" if "->" not in ch else "protect or switch"
                by_kind.setdefault(group, Counter())[side(hj[a_t], hj[a_net])] += 1
                prefer["maxdamage"][side(mj[a_t], mj[a_net])] += 1
                prefer["heuristic_random"][side(hj[a_r], hj[a_net])] += 1
                prefer["maxdamage_random"][side(mj[a_r], mj[a_net])] += 1
    share = lambda c: {k: round(c[k] / max(sum(c.values()), 1), 3) for k in ("pick", "tie", "network")}  # noqa: E731
    print(
        json.dumps(
            {
                "move_requests": n_move,
                "corrected": n_corr,
                "analysis_prefers": {k: share(c) for k, c in prefer.items()},
                "heuristic_prefers_by_change": {
                    k: {**share(c), "corrections": sum(c.values())} for k, c in by_kind.items()
                },
                "changes": {k: round(v / max(n_corr, 1), 3) for k, v in kinds.most_common(12)},
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
