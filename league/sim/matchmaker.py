"""Per-episode matchmaking inside the simulator.

For every battle of the main agent the matchmaker draws an opponent seat with the
configured sampler over the league the main process last described (members, pools
by category, the main agent's win rates), with that member's team (an exploiter
always plays its own; others draw from the pool; with ``TeamPairs`` the agent's team and
its opponent's are drawn together, toward the pairs it loses). Frozen members' networks are loaded
lazily from their checkpoints and kept in a least-recently-used cache. Results are
queued for the main process, which owns the payoff table and ratings.
"""

from __future__ import annotations

import random
from collections import Counter, OrderedDict, deque

from league.population.registry import SCRIPTED_ROLES
from league.population.sampling import OpponentSampler, TeamPairs
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
        pairs: TeamPairs | None = None,
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
        self.pairs = pairs  # None: each side's team drawn on its own
        self._foes: deque[tuple[int, int]] = deque()  # pairs drawn by own_team, awaiting their draw()

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

    def own_team(self) -> str:
        """The agent's team for its next battle, with ``pairs``: the pair is drawn here and
        its foe team goes to the next ``draw`` (the stream backend asks both sides' teams
        of a battle one after the other)."""
        assert self.pairs is not None, "own_team draws pairs: give the matchmaker TeamPairs"
        pair = self.pairs.draw()
        self._foes.append(pair)
        return self.teams[pair[0]]

    def draw(self) -> tuple[Seat, str]:
        """The opponent's seat and team for the agent's next battle."""
        pair = self._foes.popleft() if self._foes else None
        mid = self.sampler.sample(self.agent, self.pools, lambda a, b: self.win_rates.get(b, 0.5))
        self.draws[mid] += 1
        pool_team = self.teams[pair[1]] if pair is not None else None
        if mid == self.agent or mid not in self.members:
            return Seat(self.agent, self.main, learn=True, agent=self.agent), pool_team or self.rng.choice(self.teams)
        info = self.members[mid]
        own = info.get("team")
        team = own or pool_team or self.rng.choice(self.teams)
        pair = None if own else pair  # a member with its own team: not a pair of the pool
        if info["role"] in SCRIPTED_ROLES:
            return Seat(mid, None, baseline=info["role"], pair=pair), team
        return Seat(mid, self._policy(mid), learn=self.learn_from_members, agent=self.agent, pair=pair), team

    def report(self, member: str, main_score: float, pair: tuple[int, int] | None = None) -> None:
        """One finished battle against ``member``, scored from this matchmaker's agent's
        side; ``pair``: the (own, foe) teams it was drawn with (the seat's), learnt by
        ``pairs`` (never from the agent's battles against itself)."""
        self.results.append((member, main_score))
        if pair is not None and self.pairs is not None and member != self.agent:
            self.pairs.report(pair[0], pair[1], main_score)

    def drain_results(self) -> list[tuple[str, float]]:
        out, self.results = self.results, []
        return out
