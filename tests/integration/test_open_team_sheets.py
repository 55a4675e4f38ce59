"""Open team sheets against real Showdown: both players accept, each battle's foe sheet
reaches the observation (as a replay's open sheets do) and not poke-env's revealed team,
on both backends; a format without the rule is refused before anything starts."""

from __future__ import annotations

import asyncio

import pytest
from poke_env.data.normalize import to_id_str
from poke_env.teambuilder import Teambuilder

from league.battle.obs import split
from league.battle.sheets import foe_sets
from league.match import play_matches
from league.players import RandomPlayer
from league.showdown import StreamFleet
from league.showdown.formats import check_format, open_team_sheets_refusal
from tests.conftest import FORMAT

pytestmark = pytest.mark.integration


def _sheets_flag(obs) -> float:
    return float(split(obs)["sheets"][0])


class SheetSeer(RandomPlayer):
    """Random play that keeps, per battle, what its team-preview decision saw of the foe."""

    encode_observations = True
    sheets = True  # reads_sheets: as a network with model.sheets (False: one without)

    def reads_sheets(self, battle) -> bool:
        return self.sheets

    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen: dict[
            str, tuple
        ] = {}  # tag -> (foe sheet, sheets flag, foe species, #foes revealed: what the encoder reads)

    def choose_preview(self, battle, decision):
        sheet = self.contexts[battle.battle_tag].foe_sheet
        preview = [to_id_str(m.species) for m in battle.teampreview_opponent_team]
        self.seen[battle.battle_tag] = (sheet, _sheets_flag(decision.obs), preview, len(battle._opponent_team))
        return super().choose_preview(battle, decision)


def _play(fleet, teams, n, open_team_sheets, reads=True):
    players = []

    def make(**kw):
        p = SheetSeer(**kw)
        p.sheets = reads
        players.append(p)
        return p

    result = asyncio.run(
        play_matches(fleet, make, make, n, teams, teams, concurrency=4, seed=3, open_team_sheets=open_team_sheets)
    )
    return result, [s for p in players for s in p.seen.values()]


def _check_open(result, seen, teams, n):
    assert result.battles == n and result.unfinished == 0 and result.showdown_errors == 0, result.error_examples
    assert len(seen) == 2 * n  # both sides of every battle decided their preview
    pool = [foe_sets(Teambuilder.parse_packed_team(t)) for t in teams]
    for sheet, flag, preview, revealed in seen:
        assert sheet is not None and flag == 1.0
        assert sheet in pool  # the foe's whole sheet: one of the pool's teams, moves, item, ability, tera
        assert sorted(sheet) == sorted(preview)
        assert all(1 <= len(s.moves) <= 4 and s.tera is not None for s in sheet.values())
        assert revealed == 0  # poke-env did not list the six as revealed


def test_open_team_sheets_reach_the_observation_on_the_stream_backend(tmp_path, install, packed_teams):
    with StreamFleet(1, tmp_path, install=install) as fleet:
        result, seen = _play(fleet, packed_teams, 6, True)
        _check_open(result, seen, packed_teams, 6)
        closed, seen_closed = _play(fleet, packed_teams, 4, False)
        # a player whose network does not read sheets: the sheet is kept, the observation is as without
        blind, seen_blind = _play(fleet, packed_teams, 4, True, reads=False)
    assert closed.battles == 4 and closed.showdown_errors == 0
    assert len(seen_closed) == 8 and all(s is None and f == 0.0 for s, f, _, _ in seen_closed)
    assert blind.battles == 4 and blind.showdown_errors == 0
    assert len(seen_blind) == 8 and all(s is not None and f == 0.0 for s, f, _, _ in seen_blind)


def test_open_team_sheets_reach_the_observation_on_a_server(fleet, packed_teams):
    result, seen = _play(fleet, packed_teams, 4, True)
    _check_open(result, seen, packed_teams, 4)


def test_a_format_without_the_rule_is_refused(install):
    assert open_team_sheets_refusal(check_format(FORMAT, install), "sim.open_team_sheets") == ""
    why = open_team_sheets_refusal(check_format("gen94v4doublesdraft", install), "sim.open_team_sheets")
    assert why.startswith("sim.open_team_sheets: the format 'gen94v4doublesdraft'") and "Open Team Sheets" in why
