"""A network player that looks one turn ahead before it moves (``search:SPEC``).

At each move request the network (``SPEC``: ``agent:NAME`` or ``checkpoint:PATH``) names its
``k`` likeliest legal joint actions. For each, the stream worker that hosts the battle plays
the coming turn on copies of it (``StreamClient.fork``: Showdown's own simulation, a fresh
PRNG per copy, the foe choosing by a damage-greedy model), ``samples`` times, and scores what
follows for this side: +1 won, -1 lost, else the material difference (each Pokémon 0
fainted, 0.5 + 0.5 x its HP share alive; own less the foe's, over the team size). The player
takes the candidate of the best score + ``prior`` x its log-probability, the likelier on a
tie. ``prior`` 0 (the default) leaves the network only the choice of candidates and the ties:
a trained network is near-deterministic (its candidates' log-probabilities lie nats apart),
so a weight that lets them count drowns the look-ahead (with 0.05, 1 choice in 26 changed
on a probe against `maxdamage`).
Team preview, forced switches and a battle the worker cannot copy are the network's own
greedy choice.

What the copies would know that a player does not: the foe's exact stats and HP (its
spread and nature), and its moves, items and abilities before they are revealed. In a
format with open team sheets (VGC's) only the spread and exact HP are hidden from a
player; elsewhere the look-ahead reads more. ``foe_spread="even"`` (the default) takes the
spread away: the copies' foes get the even spread the network's own features assume
(league/battle/dex.py: 84 EVs in every stat, 11 stat points in Champions; neutral nature)
and the HP share their health line shows. ``"exact"`` leaves them as they are (against
`maxdamage` on the 238 shared Reg C teams: 0.796 even, 0.8225 exact over the same 800
draws, experiments/issue27_search_spread). The foe model is `maxdamage`'s idea of play: against `maxdamage`
itself the model is nearly exact, so that pairing flatters the search; it is a fixed
model, not the foe's policy. Only the ``stream`` backend hosts battles this player can
copy: the tools refuse ``search:`` on a server before they start (``player_factory``'s
``backend``), and a search player that finds itself on one raises :class:`SearchError` at
its first move request.
"""

from __future__ import annotations

import random

from league.battle.dex import OPP_EV, OPP_SP, mechanics_of
from league.sim.lookahead import look_ahead
from league.sim.policy import NeuralPlayer

DEFAULT_K = 16
DEFAULT_SAMPLES = 2
DEFAULT_PRIOR = 0.0
FOE_SPREADS = ("exact", "even")
DEFAULT_FOE_SPREAD = "even"


def check_settings(
    k: int = DEFAULT_K,
    samples: int = DEFAULT_SAMPLES,
    prior: float = DEFAULT_PRIOR,
    foe_spread: str = DEFAULT_FOE_SPREAD,
) -> None:
    """ValueError naming each setting out of range."""
    bad = [
        f"{n} {v} (needs {need})"
        for n, v, ok, need in (
            ("k", k, k >= 1, ">= 1"),
            ("samples", samples, samples >= 1, ">= 1"),
            ("prior", prior, prior >= 0, ">= 0"),
            ("foe_spread", foe_spread, foe_spread in FOE_SPREADS, " or ".join(FOE_SPREADS)),
        )
        if not ok
    ]
    if bad:
        raise ValueError("search settings out of range: " + ", ".join(bad))


class SearchError(RuntimeError):
    """A search player on a backend whose battles it cannot copy."""


class SearchPlayer(NeuralPlayer):
    """:class:`NeuralPlayer` (one policy, greedy candidates) whose move requests go through
    a one-turn look-ahead on the stream worker (module docstring)."""

    def __init__(
        self,
        *args,
        k: int = DEFAULT_K,
        samples: int = DEFAULT_SAMPLES,
        prior: float = DEFAULT_PRIOR,
        foe_spread: str = DEFAULT_FOE_SPREAD,
        **kwargs,
    ):
        check_settings(k, samples, prior, foe_spread)
        super().__init__(*args, **kwargs)
        self.k, self.samples, self.prior, self.foe_spread = k, samples, prior, foe_spread
        self.search_rng = random.Random(self.rng.random())
        # counts (tools.battle's JSON): move requests searched, those where the look-ahead
        # changed the network's first choice, and those it could not search
        self.searched = 0
        self.search_changed = 0
        self.search_skipped = 0

    def search_counts(self) -> dict[str, int]:
        """What :class:`~league.match.MatchResult` adds up per side."""
        return {"searched": self.searched, "changed": self.search_changed, "skipped": self.search_skipped}

    def search_settings(self) -> dict:
        """The settings tools.battle's JSON reports beside the counts."""
        return {"k": self.k, "samples": self.samples, "prior": self.prior, "foe_spread": self.foe_spread}

    def choose_turn(self, battle, decision):
        return self._search(battle, decision)

    async def _search(self, battle, decision) -> int:
        if decision.view.kind != "move" or self.policy is None:
            return await self._decide(battle, decision, False)
        fork = getattr(self.ps_client, "fork", None)
        if fork is None:
            raise SearchError(
                f"{self.username}: a search player copies battles on the stream backend only (this one is "
                f"played on {type(self.ps_client).__name__}); use --backend stream"
            )
        tag = battle.battle_tag
        actions, logps = await self.policy.act_top(
            self.username + "|" + tag, decision.obs, decision.mask, False, self.k
        )
        if len(actions) < 2:
            return actions[0]
        foe_ev = None
        if self.foe_spread == "even":
            foe_ev = OPP_SP if mechanics_of(battle.format).stat_points else OPP_EV
        best = await look_ahead(
            fork, tag, decision.view, actions, logps, self.samples, self.search_rng, self.prior, foe_ev=foe_ev
        )
        if best is None:
            self.search_skipped += self.in_play(battle)
            return actions[0]
        self.searched += 1
        self.search_changed += best != 0
        return actions[best]
