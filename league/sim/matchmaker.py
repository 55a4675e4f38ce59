"""Per-episode matchmaking inside the simulator.

For every battle of the main agent the matchmaker draws an opponent seat with the
configured sampler over the league the main process last described (members, pools
by category, the main agent's win rates), with that member's team (an exploiter
always plays its own; others draw from the pool). Frozen members' networks are loaded
lazily from their checkpoints and kept in a least-recently-used cache. Results are
queued for the main process, which owns the payoff table and ratings.
"""

from __future__ import annotations

import random
from collections import Counter, OrderedDict

from league.population.sampling import OpponentSampler
from league.sim.policy import PolicyServer, Seat


class Matchmaker:
    def __init__(
        self,
        main: PolicyServer,
        teams: list[str],
        sampler: OpponentSampler,
        *,
        seed: int = 0,
        cache_size: int = 8,
        loader=None,
        agent: str = "main",
        learn_from_members: bool = False,
    ):
        from league.checkpoint import load_policy_net

        self.main = main  # the learning policy this matchmaker finds opponents for
        self.agent = agent  # its member id (the main agent, or a league exploiter)
        self.learn_from_members = learn_from_members  # frozen networks' seats are (off-policy) learning data
        self.teams = teams
        self.sampler = sampler
        self.rng = random.Random(seed)
        self.cache_size = cache_size
        self.loader = loader or load_policy_net
        self.members: dict[str, dict] = {}
        self.pools: dict[str, list[str]] = {}
        self.win_rates: dict[str, float] = {}
        self.cache: OrderedDict[str, PolicyServer] = OrderedDict()
        self.results: list[tuple[str, float]] = []
        self.draws: Counter[str] = Counter()
        self.loads = 0

    def update(self, league: dict) -> None:
        """League view from the main process: {members: {id: {role, checkpoint, team}}, pools, win_rates}."""
        self.members = league["members"]
        self.pools = league["pools"]
        self.win_rates = league["win_rates"]
        for mid in [m for m in self.cache if m not in self.members]:
            del self.cache[mid]

    def _policy(self, mid: str) -> PolicyServer:
        pol = self.cache.get(mid)
        if pol is None:
            pol = PolicyServer(
                self.loader(self.members[mid]["checkpoint"]),
                mid,
                seed=self.rng.randrange(2**31),
                min_batch=self.main.min_batch,
                max_wait_s=self.main.max_wait_s,  # as main
                device=self.main.device,
                compile=self.main.compiled,
            )
            self.cache[mid] = pol
            self.loads += 1
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(mid)
        return pol

    def draw(self) -> tuple[Seat, str]:
        mid = self.sampler.sample(self.agent, self.pools, lambda a, b: self.win_rates.get(b, 0.5))
        self.draws[mid] += 1
        if mid == self.agent or mid not in self.members:
            return Seat(self.agent, self.main, learn=True, agent=self.agent), self.rng.choice(self.teams)
        info = self.members[mid]
        team = info.get("team") or self.rng.choice(self.teams)
        if info["role"] in ("random", "maxdamage"):
            return Seat(mid, None, baseline=info["role"]), team
        return Seat(mid, self._policy(mid), learn=self.learn_from_members, agent=self.agent), team

    def report(self, member: str, main_score: float) -> None:
        """One finished battle against ``member``, scored from this matchmaker's agent's side."""
        self.results.append((member, main_score))

    def drain_results(self) -> list[tuple[str, float]]:
        out, self.results = self.results, []
        return out
