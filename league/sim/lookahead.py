"""One turn of look-ahead among a network's candidates, on copies of a live battle.

Shared by the search player (``search:SPEC``, league/players/search.py), which plays the
look-ahead's pick, and the learning player (``sim.search_share``, league/sim/policy.py),
which plays its own draw and keeps the pick as a target for the learner
(``learner.search_coef``). The copies are the stream worker's (``StreamClient.fork``):
Showdown's own simulation of the coming turn, a fresh PRNG per copy, the foe choosing by a
damage-greedy model; each candidate's score is the mean value of what follows for this
side (+1 won, -1 lost, else the material difference).
"""

from __future__ import annotations

import random

from league.battle.actions import joint_message


async def look_ahead(
    fork, tag: str, view, actions: list[int], logps: list[float], samples: int, rng: random.Random, prior: float = 0.0
) -> int | None:
    """The index in ``actions`` (joint actions of the request ``view``, likeliest first,
    their log-probs ``logps``) of the candidate scoring best after one turn played
    ``samples`` times on copies of battle ``tag`` (``fork``: a StreamClient's), its score
    plus ``prior`` x its log-prob, the likelier on a tie; None when the worker could not
    copy the battle or refused every candidate. The copies' seed is drawn from ``rng``."""
    choices = [joint_message(view, a).removeprefix("/choose ") for a in actions]
    seed = [rng.randrange(1 << 16) for _ in range(4)]
    values = await fork(tag, choices, samples, seed)
    if values is None or all(v is None for v in values):
        return None
    return max((i for i, v in enumerate(values) if v is not None), key=lambda i: values[i] + prior * logps[i])
