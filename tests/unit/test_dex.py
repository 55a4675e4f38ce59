"""Pokemon knowledge on hand-computed tables: stats, type chart, the damage formula,
speed; the static move rows; and maxdamage choosing from exactly the numbers the
observation carries (one source of knowledge). Pokemon Champions: its stat-point
formula, stat points and nature read back from real stats, a mega forme's fighter, and
the format's own moves and PP (checked against Showdown itself in
tests/integration/test_formats.py)."""

from __future__ import annotations

import numpy as np
import pytest
from poke_env.battle import Status

from league.battle.analysis import AT, EXP_ALLY, EXP_FOES
from league.battle.context import make_decision
from league.battle.damage import damage, stab_of
from league.battle.dex import (
    SV,
    TYPE_INDEX,
    champions,
    champions_spread,
    champions_stat,
    effectiveness,
    max_pp,
    mechanics_of,
    species_estimates,
    stat_estimate,
)
from league.battle.fighter import Env, Fighter, effective_speed, mega_fighter, moves_first, with_field_abilities
from league.battle.moves import MOVE_STATIC_FEATURES, move_info, move_static_row
from league.battle.obs import split
from league.battle.replay import replay
from league.players.maxdamage import maxdamage_turn, slot_scores
from tests.recorded import recordings

T = TYPE_INDEX
MS = {n: i for i, n in enumerate(MOVE_STATIC_FEATURES)}


def mon(
    types=("NORMAL",),
    *,
    atk=100.0,
    def_=100.0,
    spa=100.0,
    spd=100.0,
    spe=100.0,
    hp=200.0,
    max_hp=200.0,
    ability="",
    abilities=None,
    item="",
    status=None,
    tera=-1,
    terastallized=False,
    boosts=None,
    reflect=False,
    tailwind=False,
    weight=50.0,
    grounded=1.0,
    spe_range=None,
    species="x",
    own=True,
) -> Fighter:
    ts = tuple(T[t] for t in types)
    lo, hi = spe_range or (spe, spe)
    return Fighter(
        own,
        species,
        (tera,) if terastallized else ts,
        ts,
        tera,
        terastallized,
        50,
        hp,
        max_hp,
        atk,
        def_,
        spa,
        spd,
        spe,
        lo,
        hi,
        dict(boosts or {}),
        ability,
        abilities or ((ability,) if ability else ()),
        item,
        status,
        weight,
        grounded,
        reflect,
        False,
        False,
        tailwind,
        False,
        0,
        hp / max_hp,
    )


def test_stat_estimates_level_50():
    # base 100, 31 IVs, 84 EVs (21 points), neutral: floor((200 + 31 + 21) * 50 / 100) = 126
    assert stat_estimate(100, "atk") == 126 + 5
    assert stat_estimate(100, "hp") == 126 + 60
    # 252 EVs +nature: floor((200 + 31 + 63) / 2) = 147 -> floor(152 * 1.1) = 167
    assert stat_estimate(100, "spe", ev=252, nature=1.1) == 167
    assert stat_estimate(100, "spe", ev=0) == 115 + 5


@pytest.mark.parametrize(
    "att, defs, mult",
    [
        ("GROUND", ("FIRE", "FLYING"), 0.0),
        ("FIRE", ("GRASS", "STEEL"), 4.0),
        ("WATER", ("WATER", "DRAGON"), 0.25),
        ("FAIRY", ("DRAGON", "DARK"), 4.0),
        ("GHOST", ("NORMAL",), 0.0),
        ("ELECTRIC", ("WATER",), 2.0),
        ("ICE", ("FIRE", "WATER"), 0.25),
    ],
)
def test_type_chart(att, defs, mult):
    assert effectiveness(T[att], tuple(T[d] for d in defs)) == mult


def test_damage_formula_hand_table():
    env = Env()
    tackle = move_info("bodyslam")  # Normal, physical, 85 BP, 100 %
    # base = floor(floor(22 * 85 * 150 / 100) / 50) + 2 = floor(2805 / 50) + 2 = 56 + 2 = 58
    h = damage(mon(("FIRE",), atk=150), tackle, mon(("WATER",)), env)
    assert (h.lo, h.hi) == pytest.approx((58 * 0.85, 58.0))
    assert h.exp == pytest.approx(58 * 0.925)  # mid roll, 100 % accurate, one hit
    # STAB (Normal attacker) and super effective (Fighting move on Normal): x1.5 x2
    cc = move_info("closecombat")  # Fighting, physical, 120 BP
    # base = floor(floor(22 * 120 * 150 / 100) / 50) + 2 = floor(3960 / 50) + 2 = 79 + 2 = 81
    h = damage(mon(("FIGHTING",), atk=150), cc, mon(("NORMAL",)), env)
    assert h.hi == pytest.approx(81 * 1.5 * 2) and h.lo == pytest.approx(81 * 0.85 * 1.5 * 2)
    assert (h.eff, h.stab) == (2.0, 1.5)
    # spread x0.75, burn x0.5 on physical, Reflect x2732/4096 (doubles)
    eq = move_info("earthquake")  # Ground, physical, 100 BP: base = floor(floor(22*100*150/100)/50)+2 = 68
    assert damage(mon(atk=150), eq, mon(), env, spread=True).hi == pytest.approx(68 * 0.75)
    assert damage(mon(atk=150, status=Status.BRN), eq, mon(), env).hi == pytest.approx(68 * 0.5)
    assert damage(mon(atk=150), eq, mon(reflect=True), env).hi == pytest.approx(68 * 2732 / 4096)
    # immunities: the type chart, a known ability, a possible one (1 of 2 candidates)
    assert damage(mon(atk=150), eq, mon(("FLYING",)), env).hi == 0
    assert damage(mon(atk=150), eq, mon(ability="levitate"), env).hi == 0
    h = damage(mon(atk=150), eq, mon(abilities=("levitate", "intimidate")), env)
    assert h.lo == 0 and h.hi == pytest.approx(68) and h.exp == pytest.approx(68 * 0.925 * 0.5)
    # boosts: +2 Atk doubles the attack stat: floor(floor(22*100*300/100)/50)+2 = floor(6600/50)+2 = 134
    assert damage(mon(atk=150, boosts={"atk": 2}), eq, mon(), env).hi == pytest.approx(134)
    # weather: sun x1.5 on Fire; Heat Wave (95 BP special): floor(floor(22*95*100/100)/50)+2 = 41 + 2 = 43
    assert damage(mon(), move_info("heatwave"), mon(), Env(sun=True)).hi == pytest.approx(43 * 1.5)
    # accuracy enters the expectation only: Heat Wave is 90 %
    assert damage(mon(), move_info("heatwave"), mon(), env).exp == pytest.approx(43 * 0.925 * 0.9)


def test_ruin_abilities_lower_every_active_pokemon_but_their_holders():
    # Showdown (data/abilities.ts onAnyModifyDef/SpD/Atk/SpA): a Treasure of Ruin on the
    # field lowers that stat of every active Pokemon except its holders, whoever holds it
    # (the attacker, the defender's ally, ...). Found by experiments/issue27_damage_calib:
    # hits with a third Pokemon's ruin ability were inside the formula's range 0.46 of the time.
    env = Env()
    slam = move_info("bodyslam")  # Normal, physical, 85 BP; Fire attacker: no STAB
    att, dfn = mon(("FIRE",), atk=150), mon(("WATER",))
    assert damage(att, slam, dfn, env).hi == pytest.approx(58)  # floor(floor(22*85*150/100)/50)+2
    # Sword of Ruin anywhere on the field: Def 100 -> 75: floor(floor(22*85*150/75)/50)+2 = floor(3740/50)+2 = 76
    assert damage(att, slam, dfn, Env(sword_ruin=True)).hi == pytest.approx(76)
    assert damage(mon(("FIRE",), atk=150, ability="swordofruin"), slam, dfn, env).hi == pytest.approx(76)
    # ... but not the defender's Def when the defender holds it too
    holder = mon(("WATER",), ability="swordofruin")
    assert damage(att, slam, holder, Env(sword_ruin=True)).hi == pytest.approx(58)
    assert damage(mon(("FIRE",), atk=150, ability="swordofruin"), slam, holder, env).hi == pytest.approx(58)
    # Tablets of Ruin: the attacker's Atk 150 -> 112.5: floor(floor(22*85*112.5/100)/50)+2 = floor(2103/50)+2 = 44
    assert damage(att, slam, dfn, Env(tablets_ruin=True)).hi == pytest.approx(44)
    assert damage(att, slam, mon(("WATER",), ability="tabletsofruin"), env).hi == pytest.approx(44)
    assert damage(mon(("FIRE",), atk=150, ability="tabletsofruin"), slam, dfn, Env(tablets_ruin=True)).hi == (
        pytest.approx(58)
    )
    # special: Heat Wave (95 BP) from a Normal attacker, SpA = SpD = 100: floor(floor(22*95)/50)+2 = 43
    wave = move_info("heatwave")
    assert damage(mon(), wave, mon(), env).hi == pytest.approx(43)
    # Beads of Ruin: SpD 75: floor(floor(22*95*100/75)/50)+2 = floor(2786/50)+2 = 57; not on a holder
    assert damage(mon(), wave, mon(), Env(beads_ruin=True)).hi == pytest.approx(57)
    assert damage(mon(), wave, mon(ability="beadsofruin"), Env(beads_ruin=True)).hi == pytest.approx(43)
    # Vessel of Ruin: SpA 75: floor(floor(22*95*75/100)/50)+2 = floor(1567/50)+2 = 33; not on a holder
    assert damage(mon(), wave, mon(), Env(vessel_ruin=True)).hi == pytest.approx(33)
    assert damage(mon(ability="vesselofruin"), wave, mon(), Env(vessel_ruin=True)).hi == pytest.approx(43)
    # the field's flags: from the actives whose ability is known or certain (None: an empty slot)
    got = with_field_abilities(
        env, [att, None, mon(ability="beadsofruin"), mon(abilities=("swordofruin", "intimidate"))]
    )
    assert (got.sword_ruin, got.beads_ruin, got.tablets_ruin, got.vessel_ruin) == (False, True, False, False)
    assert with_field_abilities(env, [att, dfn]) is env


def test_an_aura_powers_every_pokemon_s_moves_of_its_type():
    # Fairy Aura / Dark Aura (data/abilities.ts onAnyBasePower): x 5448/4096 on every
    # Pokemon's moves of that type while a holder is active, x 3072/4096 with Aura Break on
    # the field. Found by experiments/issue27_damage_calib in Reg M-B (Mega Floette).
    moon = move_info("moonblast")  # Fairy, special, 95 BP: floor(floor(22*95)/50)+2 = 43 from a Normal attacker
    assert damage(mon(), moon, mon(), Env()).hi == pytest.approx(43)
    assert damage(mon(), moon, mon(), Env(fairy_aura=True)).hi == pytest.approx(43 * 5448 / 4096)
    assert damage(mon(), moon, mon(), Env(fairy_aura=True, aura_break=True)).hi == pytest.approx(43 * 3072 / 4096)
    assert damage(mon(), moon, mon(), Env(dark_aura=True)).hi == pytest.approx(43)  # not a Dark move
    pulse = move_info("darkpulse")  # Dark, special, 80 BP: floor(floor(22*80)/50)+2 = 37
    assert damage(mon(), pulse, mon(), Env(dark_aura=True)).hi == pytest.approx(37 * 5448 / 4096)
    got = with_field_abilities(Env(), [mon(ability="fairyaura"), None])
    assert (got.fairy_aura, got.dark_aura, got.aura_break, got.sword_ruin) == (True, False, False, False)


def test_fixed_and_variable_power():
    env = Env()
    target = mon(hp=150, max_hp=200)
    assert damage(mon(), move_info("seismictoss"), target, env).hi == 50  # the user's level
    assert damage(mon(), move_info("superfang"), target, env).hi == 75  # half its current HP
    # Low Kick: 120 BP against >= 200 kg -> base floor(floor(22*120*100/100)/50)+2 = 52 + 2 = 54, x2 on Normal
    h = damage(mon(), move_info("lowkick"), mon(weight=250.0), env)
    assert h.hi == pytest.approx(54 * 2)
    # ... and 20 BP under 10 kg: floor(floor(22*20*100/100)/50)+2 = 8 + 2 = 10
    assert damage(mon(), move_info("lowkick"), mon(weight=5.0), env).hi == pytest.approx(10 * 2)


def test_tera_stab():
    fire = mon(("FIRE",), tera=T["WATER"])
    assert stab_of(fire, T["FIRE"], False) == 1.5 and stab_of(fire, T["WATER"], False) == 1.0
    assert stab_of(fire, T["WATER"], True) == 1.5  # tera into a new type: STAB on it
    assert stab_of(fire, T["FIRE"], True) == 1.5  # and keeps the original types' STAB
    fire_fire = mon(("FIRE",), tera=T["FIRE"])
    assert stab_of(fire_fire, T["FIRE"], True) == 2.0  # tera into an own type: x2


def test_speed_and_who_moves_first():
    env = Env()
    me = mon(spe=100)
    assert effective_speed(mon(spe=100, tailwind=True), env) == 200
    assert effective_speed(mon(spe=100, status=Status.PAR), env) == 50
    assert effective_speed(mon(spe=100, boosts={"spe": -1}), env) == pytest.approx(100 * 2 / 3)
    assert effective_speed(mon(spe=100, ability="swiftswim"), Env(rain=True)) == 200
    slow, fast, either = mon(spe_range=(50, 90)), mon(spe_range=(110, 150)), mon(spe_range=(80, 120))
    assert moves_first(me, 0, slow, env) == 1.0 and moves_first(me, 0, fast, env) == 0.0
    assert moves_first(me, 0, either, env) == 0.5
    assert moves_first(me, 0, slow, Env(trick_room=True)) == 0.0  # Trick Room: the slower moves first
    assert moves_first(me, 1, fast, env) == 1.0  # priority


@pytest.mark.parametrize(
    "move, on, off",
    [
        ("protect", ["protect_like", "target_self", "status"], ["spread"]),
        ("heatwave", ["spread", "target_spread_foes", "special", "type_fire", "wind"], ["hits_ally"]),
        ("earthquake", ["spread", "hits_ally", "target_all_adjacent", "physical"], []),
        ("fakeout", ["fake_out", "flinch", "contact"], []),
        ("uturn", ["switch_out"], []),
        ("tailwind", ["speed_control", "target_ally_side"], []),
        ("icywind", ["speed_control", "target_boost_down", "spread"], []),
        ("followme", ["redirection"], []),
        ("drainpunch", ["drain", "punch"], []),
        ("closecombat", ["self_boost_down"], ["self_boost_up"]),
        ("populationbomb", ["multi_hit"], []),
        ("seismictoss", ["fixed_damage"], []),
        ("trickroom", ["speed_control", "target_field"], []),
    ],
)
def test_static_move_rows(move, on, off):
    row = move_static_row(move)
    for f in on:
        assert row[MS[f]] > 0, f
    for f in off:
        assert row[MS[f]] == 0, f
    assert row[MS["priority"]] == pytest.approx(move_info(move).priority / 5)


def test_maxdamage_chooses_from_what_the_observation_carries():
    """Every recorded turn: maxdamage's joint order is the arg-max of (expected damage to the
    foes - to our ally) read from the observation's per-action block."""
    checked = 0
    for rec in recordings():
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx)
            if d.kind != "turn" or d.view.kind != "move":
                continue
            at = split(d.obs)["act_target"]
            s0, s1 = slot_scores(battle, d)
            for s, scores in ((0, s0), (1, s1)):
                from_obs = (at[s, ..., 0, EXP_FOES] - at[s, ..., 0, EXP_ALLY]).reshape(-1)  # [4 x 5] no tera
                mine = scores[:40].reshape(4, 5, 2)[..., 0].reshape(-1)
                aims = at[s, ..., 0, AT["aims"]].reshape(-1) > 0
                assert np.allclose(mine[aims], from_obs[aims], atol=1e-5)
            j = maxdamage_turn(battle, d)
            assert d.mask[j]
            checked += 1
    assert checked > 20


# ---------------------------------------------------------------- Pokemon Champions
def test_champions_stats_from_stat_points_hand_table():
    # hp = base + sp + 75; other = floor((base + sp + 20) * nature), nature as Showdown's floor(x * 110 / 100)
    assert champions_stat(100, "hp", 32) == 207 and champions_stat(100, "hp", 0) == 175
    assert champions_stat(100, "atk", 0) == 120 and champions_stat(100, "atk", 32) == 152
    assert champions_stat(100, "atk", 32, 1) == 167  # floor(152 * 1.1) = floor(167.2)
    assert champions_stat(100, "atk", 0, -1) == 108  # floor(120 * 0.9)
    assert champions_stat(55, "spe", 7, 1) == 90  # floor(82 * 1.1) = floor(90.2)
    assert champions_stat(55, "spe", 7, -1) == 73  # floor(82 * 0.9) = floor(73.8)
    # an opponent: the even spread (11 points a stat), its speed from 0 points neutral to 32 with +Spe
    # Garchomp 108/130/95/80/85/102: hp 108+11+75, atk 130+11+20, spe 102+0+20 .. floor((102+32+20) * 1.1)
    est = species_estimates("garchomp", 50, champions())
    assert est[:2] == (194.0, 161.0) and est[5:8] == (133.0, 122.0, 169.0)
    # Scarlet/Violet's EV estimate (84 EVs) lands close: floor((216 + 31 + 21) / 2) + 60 = 194, 134 + 5 = 139 ...
    assert species_estimates("garchomp", 50, SV)[:2] == (194.0, 161.0)


def test_stat_points_and_nature_read_back_from_real_stats():
    # Staraptor 85/120/70/50/60/100, Jolly (+Spe -SpA), 15 HP / 19 Atk / 32 Spe:
    # 85+15+75 = 175, 120+19+20 = 159, 70+20 = 90, floor(70 * 0.9) = 63, 60+20 = 80, floor(152 * 1.1) = 167
    base, stats = (85, 120, 70, 50, 60, 100), (175, 159, 90, 63, 80, 167)
    assert champions_spread(base, stats) == ((15, 19, 0, 0, 0, 32), 5, 3)
    # Adamant would read 159 as 5 Atk points (floor(145 * 1.1) = 159) but then no nature fits 63 SpA
    # neutral, all 66 spent: the points are the stats less base + 20 (a +Atk reading would need 67)
    assert champions_spread((100,) * 6, (180, 150, 120, 120, 130, 141)) == ((5, 30, 0, 0, 10, 21), 0, 0)
    # several readings fit: neutral (30 Atk, 6 SpA: 65 points with 29 HP) or +Atk with a lowered stat
    # (floor(137 * 1.1) = 150: 17 Atk, and 14 or 20 points in the lowered stat: 66): the one spending all 66
    sps, p, m = champions_spread((100,) * 6, (204, 150, 120, 126, 120, 120))
    assert p == 1 and m in (2, 3, 4) and sum(sps) == 66 and sps[:2] == (29, 17)
    # no nature fits (a wrong base): points clipped from the neutral reading, not an error
    assert champions_spread((100,) * 6, (300, 300, 100, 120, 120, 120)) == ((32, 32, 0, 0, 0, 0), 0, 0)


def test_a_mega_fighter_keeps_our_points_and_nature_on_the_forme_s_base_stats():
    mech = champions()
    raptor = mon(
        ("NORMAL", "FLYING"),
        atk=159,
        def_=90,
        spa=63,
        spd=80,
        spe=167,
        hp=175,
        max_hp=175,
        ability="intimidate",
        item="staraptite",
        species="staraptor",
    )
    mega = mega_fighter(raptor, mech)
    # Mega Staraptor 85/140/100/60/90/110 (Fighting/Flying, Contrary) with 19 Atk / 32 Spe, Jolly:
    # 140+19+20 = 179, 100+20 = 120, floor(80 * 0.9) = 72, 90+20 = 110, floor((110+32+20) * 1.1) = 178
    assert mega.species == "staraptormega"
    assert (mega.atk, mega.def_, mega.spa, mega.spd, mega.spe) == (179, 120, 72, 110, 178)
    assert mega.types == (T["FIGHTING"], T["FLYING"]) and mega.ability == "contrary" and mega.abilities == ("contrary",)
    assert (mega.hp, mega.max_hp) == (175, 175)
    assert mega_fighter(mon(item="staraptite", species="garchomp"), mech) is None  # not its stone
    assert mega_fighter(mon(item="leftovers", species="staraptor"), mech) is None
    assert mega_fighter(raptor, SV) is None  # Scarlet/Violet has no Mega Evolution
    # an opponent's forme: estimated as any opponent (11 points, neutral; speed 0 .. 32 +Spe)
    foe = mega_fighter(mon(item="staraptite", species="staraptor", own=False), mech)
    assert (foe.atk, foe.spe_min, foe.spe_max) == (171, 130, 178)


def test_champions_moves_and_pp_are_the_mod_s_own():
    mech = champions()
    assert mechanics_of("gen9championsvgc2026regmb") is mech and mechanics_of("gen9championsvgc2026regma") is mech
    assert mechanics_of("gen9vgc2023regc") is SV and mechanics_of(None) is SV
    # the mod's changes (data/mods/champions/moves.ts): Anchor Shot 80 -> 90, Make It Rain 100 % -> 95 %,
    # Iron Head flinch 30 % -> 20 % (still a secondary)
    assert (move_info("anchorshot").bp, move_info("anchorshot", mech).bp) == (80, 90)
    assert (move_info("makeitrain").accuracy, move_info("makeitrain", mech).accuracy) == (1.0, 0.95)
    # PP: the mod caps base PP at 20 and gives (pp / 5 + 1) * 4 (Earthquake 10 -> 12, Tackle 35 -> 20 -> 20);
    # Protect's own PP is 5 there (-> 8)
    assert (max_pp("earthquake"), max_pp("earthquake", mech)) == (16, 12)
    assert (max_pp("protect"), max_pp("protect", mech)) == (16, 8)
    assert (max_pp("tackle"), max_pp("tackle", mech)) == (56, 20)
    assert (max_pp("closecombat"), max_pp("closecombat", mech)) == (8, 8)
    assert move_static_row("anchorshot", mech)[MS["base_power"]] == pytest.approx(0.9)


def _revealed(move_ids):
    """A poke-env Pokemon that has revealed ``move_ids`` (what the analysis reads of a foe;
    its fighter, hand-made, carries the rest)."""
    from poke_env.battle import Pokemon

    p = Pokemon(gen=9, species="amoonguss")
    for m in move_ids:
        p._add_move(m)
    return p


def _threats(own, foes, revealed, env=None) -> np.ndarray:
    """analyse_threats on hand-made fighters: ``revealed`` is each foe's revealed move ids."""
    from types import SimpleNamespace

    from league.battle.analysis import THREAT_F, TurnAnalysis, analyse_threats
    from league.battle.dex import SV

    ta = object.__new__(TurnAnalysis)
    ta.env, ta.own, ta.foes, ta.mech, ta.sheets = env or Env(), own, foes, SV, [None, None]
    ta.battle = SimpleNamespace(opponent_active_pokemon=[_revealed(r) for r in revealed])
    out = np.zeros((2, 2, THREAT_F), dtype=np.float32)
    analyse_threats(ta.battle, out, ta)
    return out


def test_threats_hand_table():
    """Per (our slot, foe): expected share of our max HP (capped at what we have), KO by the
    low / high roll, the foe moves first, the share of its moves revealed."""
    # foe 0: Fire, atk 100 > spa 50, nothing revealed: the probe is an 80-power physical Fire
    # move. base = floor(floor(22 * 80 * 100 / 100) / 50) + 2 = 35 + 2 = 37; STAB 1.5, on Grass x2:
    # lo 37 x 0.85 x 3 = 94.35, hi 111, exp 37 x 0.925 x 3 = 102.675
    fire = mon(("FIRE",), atk=100, spa=50, spe=120, own=False)
    # foe 1: Normal, Body Slam revealed (85 BP, base floor(floor(22*85)/50)+2 = 39, STAB 1.5 on
    # Grass x1: hi 58.5) plus the probe (Normal 80: 37 x 1.5 = 55.5 < Body Slam); slower than us
    normal = mon(("NORMAL",), atk=100, spa=50, spe=80, own=False)
    grass_full = mon(("GRASS",), hp=150, max_hp=200, spe=100)  # 75 % left
    grass_low = mon(("GRASS",), hp=100, max_hp=200, spe=100)  # 50 % left
    th = _threats([grass_full, grass_low], [fire, normal], [[], ["bodyslam"]])
    assert th[0, 0] == pytest.approx([1, 102.675 / 200, 0, 0, 1, 0])
    assert th[1, 0] == pytest.approx([1, 0.5, 0, 1, 1, 0])  # capped at the 50 % it has; hi 111 >= 100
    assert th[0, 1] == pytest.approx([1, 39 * 0.925 * 1.5 / 200, 0, 0, 0, 0.25])
    # a foe with four revealed moves is credited with those only (none damaging here: no threat)
    th = _threats([grass_full, None], [fire, None], [["protect", "willowisp", "tailwind", "helpinghand"]])
    assert th[0, 0] == pytest.approx([1, 0, 0, 0, 1, 1])
    assert not th[1].any() and not th[:, 1].any()  # empty slots stay 0
    # a revealed spread move hits for x0.75 while both our slots are filled; speed ranges give 0.5
    eq = mon(("GROUND",), atk=100, spa=50, spe_range=(90, 110), own=False)
    rock = mon(("ROCK",), hp=200, max_hp=200, spe=100)
    # Earthquake 100 BP: base 46, STAB 1.5, on Rock x2 -> exp 46 x 0.925 x 3 (x0.75 spread)
    both = _threats([rock, rock], [eq, None], [["earthquake", "protect", "tailwind", "helpinghand"]])
    alone = _threats([rock, None], [eq, None], [["earthquake", "protect", "tailwind", "helpinghand"]])
    assert both[0, 0, 1] == pytest.approx(46 * 0.925 * 3 * 0.75 / 200)
    assert alone[0, 0, 1] == pytest.approx(46 * 0.925 * 3 / 200)
    assert both[0, 0, 4] == 0.5
