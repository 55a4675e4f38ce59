"""How repeatable is the look-ahead's pick? A search player (search:agent:regc, k and
samples as given) against maxdamage on a team pool; at each move request it searches twice
with independent seeds and plays the first pick. Prints JSON: requests searched twice,
the share where the two picks agree, and the share where the first pick is the network's
own likeliest action. A learner imitating the picks cannot predict them better than they
repeat (tools.bc train --imitate search: held-out top-1).

    python experiments/issue27_exit_screen/consistency.py -n 100 --k 16 --samples 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile

from league.checkpoint import load_policy_net
from league.match import play_matches
from league.players import MaxDamagePlayer
from league.players.search import SearchPlayer
from league.showdown import StreamFleet, locate_showdown
from league.sim.lookahead import look_ahead
from league.sim.policy import PolicyServer
from league.specs import policy_path
from league.teams import TeamRepository

FORMAT = "gen9vgc2023regc"


class TwiceSearch(SearchPlayer):
    pairs: list = []

    async def _search(self, battle, decision) -> int:
        if decision.view.kind != "move":
            return await self._decide(battle, decision, False)
        tag = battle.battle_tag
        actions, logps = await self.policy.act_top(
            self.username + "|" + tag, decision.obs, decision.mask, False, self.k
        )
        if len(actions) < 2:
            return actions[0]
        fork = self.ps_client.fork
        a = await look_ahead(fork, tag, decision.view, actions, logps, self.samples, self.search_rng)
        b = await look_ahead(fork, tag, decision.view, actions, logps, self.samples, self.search_rng)
        if a is None or b is None:
            return actions[0]
        self.pairs.append((a, b))
        return actions[a]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    install = locate_showdown()
    teams = [t.packed for t in TeamRepository(install).load(FORMAT, args.teams)]
    # the search player's network as player_factory builds it: greedy (preview, forced switches)
    net = load_policy_net(policy_path("agent:regc"), format_id=FORMAT, name="agent:regc")
    server = PolicyServer(net, "agent:regc", greedy=True, seed=args.seed)

    def make_twice(**kw):
        return TwiceSearch(policy=server, k=args.k, samples=args.samples, **kw)

    with tempfile.TemporaryDirectory() as tmp, StreamFleet(2, tmp, install=install) as fleet:
        r = asyncio.run(
            play_matches(
                fleet,
                make_twice,
                MaxDamagePlayer,
                args.n,
                teams,
                teams,
                battle_format=FORMAT,
                concurrency=8,
                seed=args.seed,
            )
        )
    pairs = TwiceSearch.pairs
    n = len(pairs)
    print(
        json.dumps(
            {
                "k": args.k,
                "samples": args.samples,
                "battles": r.battles,
                "p1_win_rate": round(r.p1_wins / max(r.battles, 1), 3),
                "searched_twice": n,
                "picks_agree": round(sum(a == b for a, b in pairs) / max(n, 1), 3),
                "first_pick_is_network_top1": round(sum(a == 0 for a, _ in pairs) / max(n, 1), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
