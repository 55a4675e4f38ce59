"""How much of a battle do the two teams decide? (issue 27)

Draws K teams for each side from a pool (seeded, disjoint), plays N battles with
tools.battle (teams drawn per battle from each side's K, so K x K pairs), saves the
replays, reads back from each replay which team each side had (its team preview's
species) and who won, and writes the per-pair win counts with the spread of the per-pair
win rates (pairs.json). If the teams decided nothing, the per-pair rates would spread
only as binomial noise around the pooled rate; the variance beyond that is the matchup's.

    python experiments/issue27_matchups/run.py --p1 maxdamage --p2 maxdamage -k 6 -n 1800 --out runs/matchups/md
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.bc.replay_sources import to_id  # noqa: E402

def species_of_team(path: Path) -> frozenset[str]:
    """A PokePaste team's species (first line of each set: 'Name (Species) @ Item')."""
    out = set()
    for block in path.read_text().strip().split("\n\n"):
        head = block.strip().splitlines()[0].split(" @ ")[0].strip()
        head = re.sub(r" \((M|F)\)$", "", head)
        m = re.search(r"\(([^()]+)\)$", head)
        out.add(norm(m.group(1) if m else head))
    return frozenset(out)


def norm(species: str) -> str:
    return to_id(species.split(",")[0])


def read_replay(path: Path) -> tuple[frozenset[str], frozenset[str], str | None] | None:
    text = path.read_text(errors="replace")
    p1, p2, winner, names = set(), set(), None, {}
    for ln in text.splitlines():
        if ln.startswith("|poke|p1|"):
            p1.add(norm(ln.split("|")[3]))
        elif ln.startswith("|poke|p2|"):
            p2.add(norm(ln.split("|")[3]))
        elif ln.startswith("|player|p1|") or ln.startswith("|player|p2|"):
            f = ln.split("|")
            if len(f) > 3 and f[3]:
                names[f[3]] = f[2]
        elif ln.startswith("|win|"):
            winner = names.get(ln[5:].strip())
        elif ln.startswith("|tie"):
            winner = "tie"
    if not p1 or not p2:
        return None
    return frozenset(p1), frozenset(p2), winner


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--p1", default="maxdamage")
    ap.add_argument("--p2", default="maxdamage")
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("-k", type=int, default=6, help="teams per side")
    ap.add_argument("-n", type=int, default=1800, help="battles in all")
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--battle-seed", type=int, default=None, help="tools.battle's seed (default: --seed)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    pool = sorted(Path(a.teams).resolve().glob("*.txt"))
    rng = random.Random(a.seed)
    chosen = rng.sample(pool, 2 * a.k)
    sides = {"p1": chosen[: a.k], "p2": chosen[a.k :]}
    keys: dict[str, dict[frozenset[str], str]] = {}
    for side, teams in sides.items():
        d = out / f"teams_{side}"
        d.mkdir(exist_ok=True)
        keys[side] = {}
        for t in teams:
            link = d / t.name
            if not link.exists():
                link.symlink_to(t)
            keys[side][species_of_team(t)] = t.name
    cmd = [sys.executable, "-m", "tools.battle", "--p1", a.p1, "--p2", a.p2, "-n", str(a.n),
           "--p1-teams", str(out / "teams_p1"), "--p2-teams", str(out / "teams_p2"), "--seed", str(a.seed if a.battle_seed is None else a.battle_seed),
           "--save-replays", str(out / "replays"), "--out", str(out / "battle")]
    if a.greedy:
        cmd.append("--greedy")
    res = subprocess.run(cmd, capture_output=True, text=True)
    (out / "battle.log").write_text(res.stderr)
    if res.returncode != 0:
        sys.exit(f"tools.battle failed ({res.returncode}); see {out / 'battle.log'}")
    battle = json.loads(res.stdout.strip().splitlines()[-1])
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    unread = 0
    for f in sorted((out / "replays").glob("*.html")):
        r = read_replay(f)
        if r is None or r[2] is None:
            unread += 1
            continue
        t1 = next((v for k, v in keys["p1"].items() if r[0] <= k or k <= r[0]), None)
        t2 = next((v for k, v in keys["p2"].items() if r[1] <= k or k <= r[1]), None)
        if t1 is None or t2 is None:
            unread += 1
            continue
        c = counts[(t1, t2)]
        c[0] += r[2] != "tie" and r[2] is not None and r[2].startswith("p1")
        c[1] += 1
    rows = [{"p1_team": k[0], "p2_team": k[1], "p1_wins": v[0], "battles": v[1]} for k, v in sorted(counts.items())]
    n_tot = sum(r["battles"] for r in rows)
    pooled = sum(r["p1_wins"] for r in rows) / max(1, n_tot)
    # between-pair variance of the rates, and what binomial noise alone gives (mean of p(1-p)/n_pair)
    rates = [(r["p1_wins"] / r["battles"], r["battles"]) for r in rows if r["battles"]]
    var = sum((x - pooled) ** 2 for x, _ in rates) / len(rates)
    noise = sum(pooled * (1 - pooled) / n for _, n in rates) / len(rates)
    summary = {
        "p1": a.p1, "p2": a.p2, "greedy": a.greedy, "k": a.k, "battles_read": n_tot, "unread": unread,
        "battle": {k: battle.get(k) for k in ("battles", "p1_win_rate", "ci95", "unfinished", "showdown_errors")},
        "pooled_p1_rate": round(pooled, 4), "pairs": len(rows),
        "var_pair_rates": round(var, 4), "var_binomial_noise": round(noise, 4),
        "matchup_share_of_variance": round(max(0.0, (var - noise) / var), 3) if var else 0.0,
        "pairs_rate_le_0.2": sum(x <= 0.2 for x, _ in rates), "pairs_rate_ge_0.8": sum(x >= 0.8 for x, _ in rates),
        "rows": rows,
    }
    (out / "pairs.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))


if __name__ == "__main__":
    main()
