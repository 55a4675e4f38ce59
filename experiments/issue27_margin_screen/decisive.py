"""Are the look-ahead's decisive picks repeatable? (issue 27, before a margin on search
targets.) A search player (search:agent:regc, k and rolls as given) against maxdamage on a
team pool searches each move request twice with independent seeds and plays the first
pick. For each request it keeps the first search's margin: the value of its pick less the
value of the network's own likeliest action (one-turn material, league/sim/lookahead.py).
Prints JSON: per margin threshold, the share of requests at or above it and, among them,
how often the second search picks the same action, and whether the second search too finds
the first's pick better than the network's choice (the label a learner would imitate).

    python experiments/issue27_margin_screen/decisive.py -n 150 --k 8 --samples 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile

from league.battle.actions import joint_message
from league.checkpoint import load_policy_net
from league.match import play_matches
from league.players import MaxDamagePlayer
from league.players.search import SearchPlayer
from league.showdown import StreamFleet, locate_showdown
from league.sim.policy import PolicyServer
from league.specs import policy_path
from league.teams import TeamRepository

FORMAT = "gen9vgc2023regc"
MARGINS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)


async def values(fork, tag, view, actions, samples, rng):
    """The candidates' one-turn values as look_ahead computes them (None: refused)."""
    choices = [joint_message(view, a).removeprefix("/choose ") for a in actions]
    seed = [rng.randrange(1 << 16) for _ in range(4)]
    return await fork(tag, choices, samples, seed)


def best(vals) -> int:
    return max((i for i, v in enumerate(vals) if v is not None), key=lambda i: vals[i])


class TwiceSearch(SearchPlayer):
    # (margin of the first search, first pick, second pick, the first pick's margin over the
    # network's first choice in the second search, the first pick's regret in the second)
    rows: list = []

    async def _search(self, battle, decision) -> int:
        if decision.view.kind != "move":
            return await self._decide(battle, decision, False)
        tag = battle.battle_tag
        actions, _ = await self.policy.act_top(self.username + "|" + tag, decision.obs, decision.mask, False, self.k)
        if len(actions) < 2:
            return actions[0]
        fork = self.ps_client.fork
        va = await values(fork, tag, decision.view, actions, self.samples, self.search_rng)
        vb = await values(fork, tag, decision.view, actions, self.samples, self.search_rng)
        if va is None or vb is None or all(v is None for v in va) or all(v is None for v in vb) or va[0] is None:
            return actions[0]
        a, b = best(va), best(vb)
        if vb[a] is None or vb[0] is None:
            return actions[a]
        self.rows.append((va[a] - va[0], a, b, vb[a] - vb[0], vb[b] - vb[a]))
        return actions[a]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=150)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    install = locate_showdown()
    teams = [t.packed for t in TeamRepository(install).load(FORMAT, args.teams)]
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
    rows = TwiceSearch.rows
    n = len(rows)
    table = []
    for m in MARGINS:
        # margin 0: every request whose pick is not the network's first choice
        sel = [r for r in rows if (r[0] >= m if m > 0 else r[1] != 0)]
        table.append(
            {
                "margin_at_least": m,
                "share_of_requests": round(len(sel) / max(n, 1), 3),
                "second_search_agrees": round(sum(r[1] == r[2] for r in sel) / max(len(sel), 1), 3),
                # the label's worth, read by the independent second search: the pick beats the
                # network's first choice there too; its mean margin there; its mean regret there
                "second_search_pick_beats_first": round(sum(r[3] > 0 for r in sel) / max(len(sel), 1), 3),
                "second_search_margin_mean": round(sum(r[3] for r in sel) / max(len(sel), 1), 4),
                "second_search_regret_mean": round(sum(r[4] for r in sel) / max(len(sel), 1), 4),
                "requests": len(sel),
            }
        )
    print(
        json.dumps(
            {
                "k": args.k,
                "samples": args.samples,
                "battles": r.battles,
                "p1_win_rate": round(r.p1_wins / max(r.battles, 1), 3),
                "searched_twice": n,
                "first_pick_is_network_top1": round(sum(r[1] == 0 for r in rows) / max(n, 1), 3),
                "all_agree": round(sum(r[1] == r[2] for r in rows) / max(n, 1), 3),
                "by_margin": table,
            }
        )
    )


if __name__ == "__main__":
    main()
