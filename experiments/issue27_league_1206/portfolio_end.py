"""The full-league hour's league at its end (outputs/league_1206/league, copied to /tmp/lg so
nothing is written to the run): how many pairs of frozen members ever played, and the
portfolio's Nash mixture with unplayed pairs read as 1/2 (before) and predicted from the
ratings (Ratings.fill_unplayed).

    rm -rf /tmp/lg && mkdir -p /tmp/lg && cp -r outputs/league_1206/league /tmp/lg/
    python experiments/issue27_league_1206/portfolio_end.py
"""

from pathlib import Path

from league.population.league import LeagueConfig, LeagueManager
from league.population.nash import nash_mixture
from league.population.registry import SCRIPTED_ROLES

L = LeagueManager(LeagueConfig(payoff_decay=1.0), Path("/tmp/lg"), resume=True)
cands = [
    m for m in L.registry.active() if m.frozen and m.checkpoint and m.id != "main" and m.role not in SCRIPTED_ROLES
]
ids = [m.id for m in cands]
w, g = L.payoff.matrix(ids)
print(len(ids), "members;", int((g > 0).sum() // 2), "pairs played of", len(ids) * (len(ids) - 1) // 2)
old = nash_mixture(w).weights
new = nash_mixture(L.ratings.fill_unplayed(w, g, cands)).weights


def fmt(ws):
    return sorted([(round(float(x), 3), i) for i, x in zip(ids, ws) if x > 1e-6], reverse=True)


print("old (1/2):", fmt(old))
print("new (ratings):", fmt(new))
print("ordinal:", sorted([(round(m.ordinal, 1), m.id) for m in cands], reverse=True)[:6])
