"""The `search:SPEC` player's settings and where it may play, checked before anything starts."""

from __future__ import annotations

import pytest

from league.players import PlayerSpecError
from league.players.search import SearchPlayer, check_settings
from league.specs import player_factory


def test_search_wraps_only_a_network():
    with pytest.raises(PlayerSpecError, match="search wraps a network"):
        player_factory("search:maxdamage")
    with pytest.raises(PlayerSpecError, match="no shipped agent"):
        player_factory("search:agent:nosuch")


def test_search_is_refused_where_battles_cannot_be_copied():
    with pytest.raises(PlayerSpecError, match="--backend stream"):
        player_factory("search:agent:regc", backend="server")


def test_search_settings_out_of_range_are_named_together():
    with pytest.raises(ValueError, match=r"k 0 \(needs >= 1\), prior -1 \(needs >= 0\)"):
        check_settings(k=0, prior=-1)
    with pytest.raises(ValueError, match=r"foe_spread ev \(needs exact or even\)"):
        check_settings(foe_spread="ev")
    check_settings(k=1, samples=1, prior=0.0, foe_spread="even")


def test_a_search_spec_builds_search_players_with_its_settings():
    make = player_factory("search:agent:regc", backend="stream", search={"k": 4, "prior": 0.0, "foe_spread": "even"})
    p = make(start_listening=False, battle_format="gen9vgc2023regc")
    assert isinstance(p, SearchPlayer) and (p.k, p.samples, p.prior, p.foe_spread) == (4, 2, 0.0, "even")
    default = SearchPlayer(policy=p.policy, start_listening=False, battle_format="gen9vgc2023regc")
    assert (default.k, default.foe_spread) == (16, "even")  # a player's knowledge: not the foe's spread
    assert p.policy is not None and p.policy.greedy
