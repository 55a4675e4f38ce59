"""A foe's open team sheet in the turn analysis (encoder version 5): what play has not
revealed comes from the sheet; what play revealed wins over it; without a sheet nothing
changes. Hand-made foes, and the human replays with and without their sheets. And the
player's side: the foe's ``|showteam|`` reaches the battle's context, the team preview
waits for p2's sheet, and an unreadable sheet is played without."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from poke_env.battle import Pokemon, PokemonType

from league.battle.analysis import _foe_moves, _known_moves
from league.battle.dex import PT_INDEX, SV
from league.battle.fighter import Env, effective_speed, fighter
from league.battle.obs import split
from league.battle.sheets import FoeSet
from league.bc.replay_sources import ReplaySource
from league.bc.replays import reconstruct

REPLAYS = Path(__file__).resolve().parents[1] / "data" / "replays"
SHEET = FoeSet(("flareblitz", "knockoff", "fakeout", "partingshot"), "choicescarf", "intimidate", PokemonType.WATER)


def _foe(species: str = "incineroar") -> Pokemon:
    return Pokemon(gen=9, species=species)


def test_an_unrevealed_foe_reads_its_sheet():
    mon = _foe()
    assert mon.item == "unknown_item" and mon.ability is None and len(mon.possible_abilities) == 2
    bare, seen = fighter(mon, False, {}), fighter(mon, False, {}, sheet=SHEET)
    assert (bare.ability, bare.item, bare.tera) == ("", "?", -1)
    assert bare.abilities == tuple(mon.possible_abilities)
    assert (seen.ability, seen.abilities, seen.item) == ("intimidate", ("intimidate",), "choicescarf")
    assert seen.tera == PT_INDEX[PokemonType.WATER]
    # the sheet's Choice Scarf: x1.5 on every speed estimate
    for which in ("min", "mid", "max"):
        assert effective_speed(seen, Env(), which) == effective_speed(bare, Env(), which) * 1.5


def test_what_play_revealed_wins_over_the_sheet():
    mon = _foe()
    mon.ability = "blaze"
    mon.item = "sitrusberry"
    f = fighter(mon, False, {}, sheet=SHEET)
    assert (f.ability, f.item) == ("blaze", "sitrusberry")
    mon.item = ""  # used up: gone, not the sheet's
    assert fighter(mon, False, {}, sheet=SHEET).item == ""


def test_a_foe_s_known_moves_are_its_sheet_s_then_any_other_seen():
    mon = _foe()
    assert _known_moves(mon, None) == ()
    assert _known_moves(mon, SHEET) == SHEET.moves
    mon._add_move("knockoff")
    mon.moves  # noqa: B018 (poke-env fills its move set on read)
    assert _known_moves(mon, None) == ("knockoff",)
    assert _known_moves(mon, SHEET) == SHEET.moves  # a sheet move seen stays in the sheet's order
    # without a sheet an unknown foe is credited with one 80-power probe per type; with it, its damaging moves
    moves, n = _foe_moves(_foe(), fighter(_foe(), False, {}), SV)
    assert n == 0 and [m.bp for m in moves] == [80.0, 80.0]
    moves, n = _foe_moves(_foe(), fighter(_foe(), False, {}, sheet=SHEET), SV, SHEET)
    assert n == 4 and sorted(m.id for m in moves) == ["fakeout", "flareblitz", "knockoff"]  # Parting Shot: status


def test_a_replay_s_sheet_fills_the_threat_and_switch_blocks():
    changed = threat_full = 0
    for p in sorted(REPLAYS.glob("*.json")):
        _, closed = reconstruct(ReplaySource(p.name, p), foe_sheets=False)
        _, opened = reconstruct(ReplaySource(p.name, p), foe_sheets=True)
        for a, b in zip(closed, opened):
            for da, db in zip(a.decisions, b.decisions):
                if da.obs is None or db.obs is None:
                    continue
                va, vb = split(da.obs), split(db.obs)
                assert va["sheets"][0] == 0.0 and vb["sheets"][0] == 1.0
                present = vb["threat"][..., 0] == 1.0
                # every active foe's four moves are known from its sheet
                threat_full += int(present.any() and np.all(vb["threat"][..., 5][present] == 1.0))
                changed += int(not np.array_equal(va["act_target"], vb["act_target"]))
    assert threat_full > 10 and changed > 0


def _showteam_player(lines):
    """A player whose battle (it is p1) receives ``lines``; -> (player, battle, team-preview decisions taken)."""
    import asyncio
    import logging

    from poke_env.battle import DoubleBattle

    from league.players import RandomPlayer

    p = RandomPlayer(start_listening=False, battle_format="gen9vgc2023regc", accept_open_team_sheet=True)
    b = DoubleBattle("battle-gen9vgc2023regc-1", p.username, logging.getLogger("t"), gen=9)
    b.player_role = "p1"
    p._battles[b.battle_tag] = b
    taken = []

    async def decide(battle, maybe_default_order=False):
        taken.append(battle)

    p._handle_battle_request = decide
    asyncio.run(p._handle_battle_message([[">" + b.battle_tag], *lines]))
    return p, b, taken


def test_the_foe_s_showteam_fills_the_context_and_the_preview_waits_for_p2_s():
    from poke_env.teambuilder import Teambuilder

    from league.battle.sheets import foe_sets
    from league.teams.repo import DEFAULT_POOLS_DIR

    first = sorted((DEFAULT_POOLS_DIR / "gen9vgc2023regc").glob("*.txt"))[0]
    packed = Teambuilder.join_team(Teambuilder.parse_showdown_team(first.read_text()))
    p, b, taken = _showteam_player([["", "showteam", "p1", *packed.split("|")]])
    assert taken == [] and p.contexts.get(b.battle_tag) is None  # our own sheet: nothing to read; p2's not in yet
    p, b, taken = _showteam_player([["", "showteam", "p1", "x"], ["", "showteam", "p2", *packed.split("|")]])
    assert taken == [b]
    assert p.contexts[b.battle_tag].foe_sheet == foe_sets(Teambuilder.parse_packed_team(packed))


def test_an_unreadable_foe_sheet_is_played_without(caplog):
    p, b, taken = _showteam_player([["", "showteam", "p1", "x"], ["", "showteam", "p2", "garbage"]])
    assert taken == [b]  # the team preview is still decided
    ctx = p.contexts.get(b.battle_tag)
    assert ctx is None or ctx.foe_sheet is None
    assert "unreadable |showteam| for p2" in caplog.text
