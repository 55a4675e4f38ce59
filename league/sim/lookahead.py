"""One turn of look-ahead among a network's candidates, on copies of a live battle.

Shared by the search player (``search:SPEC``, league/players/search.py), which plays the
look-ahead's pick, and the learning player (``sim.search_share``, league/sim/policy.py),
which plays its own draw and keeps the pick as a target for the learner
(``learner.search_coef``). The copies are the stream worker's (``StreamClient.fork``):
Showdown's own simulation of the coming turn, a fresh PRNG per copy, the foe choosing by a
damage-greedy model; each candidate's score is the mean value of what follows for this
side (+1 won, -1 lost, else the material difference).

With ``tau`` > 0 the pick is drawn instead of taken: candidate i with probability
proportional to exp(logp_i + value_i / tau), the network's own prior reweighted by the
values (MPO's non-parametric policy). Near-ties then keep the network's odds between them
instead of a tie-break of the rolls, and a candidate a full knock-out (0.25) worse than
another is ~e^(0.25/tau) times less likely; as tau -> 0 it is the argmax.
"""

from __future__ import annotations

import math
import random

from league.battle.actions import joint_message


async def look_ahead(
    fork,
    tag: str,
    view,
    actions: list[int],
    logps: list[float],
    samples: int,
    rng: random.Random,
    prior: float = 0.0,
    tau: float = 0.0,
    foe_ev: int | None = None,
    margin: float = 0.0,
) -> int | None:
    """The index in ``actions`` (joint actions of the request ``view``, likeliest first,
    their log-probs ``logps``) of the candidate scoring best after one turn played
    ``samples`` times on copies of battle ``tag`` (``fork``: a StreamClient's), its score
    plus ``prior`` x its log-prob, the likelier on a tie; None when the worker could not
    copy the battle or refused every candidate. The copies' seed is drawn from ``rng``; with
    ``tau`` > 0 the index is drawn from ``rng`` by :func:`soft_pick` (``prior`` unused).
    ``foe_ev``: the copies' foes get that even spread instead of their own (``fork``'s).
    ``margin`` > 0: a pick other than the likeliest that does not beat it by at least
    ``margin`` (:func:`decisive`: a near-tie) is -1, no pick."""
    choices = [joint_message(view, a).removeprefix("/choose ") for a in actions]
    seed = [rng.randrange(1 << 16) for _ in range(4)]
    values = await fork(tag, choices, samples, seed, foe_ev=foe_ev)
    if values is None or all(v is None for v in values):
        return None
    if tau > 0:
        best = soft_pick(values, logps, tau, rng)
    else:
        best = max((i for i, v in enumerate(values) if v is not None), key=lambda i: values[i] + prior * logps[i])
    return best if margin <= 0 or best == 0 or decisive(values, best, margin) else -1


def decisive(values: list[float | None], best: int, margin: float) -> bool:
    """Whether candidate ``best`` beats the likeliest (index 0) by at least ``margin`` in
    ``values`` (one-turn material); a likeliest the worker refused (None) is beaten by any
    candidate with a value, and the likeliest never beats itself."""
    pick, first = values[best], values[0]
    if best == 0 or pick is None:
        return False
    return first is None or pick - first >= margin - 1e-9  # 0.6 - 0.5 is 0.0999...


def soft_pick(values: list[float | None], logps: list[float], tau: float, rng: random.Random) -> int:
    """Index i drawn with probability proportional to exp(logps[i] + values[i] / tau) among
    the candidates with a value (at least one has one)."""
    scores = {i: logps[i] + v / tau for i, v in enumerate(values) if v is not None}
    top = max(scores.values())
    weights = {i: math.exp(s - top) for i, s in scores.items()}
    u = rng.random() * sum(weights.values())
    for i, w in weights.items():
        u -= w
        if u < 0:
            return i
    return max(weights, key=weights.__getitem__)  # rounding left u at ~0: the heaviest
