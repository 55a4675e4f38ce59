"""Pokemon Champions (Reg M-A, Reg M-B) against Showdown itself: dex_champions.json is
what tools.gen_dex writes from today's Showdown, a few species and moves read through
league/battle/dex.py are Showdown's numbers, the stat-point formula gives the stats
Showdown's own battle gives the same sets, and real Reg M-B battles (maxdamage vs random
with the shipped pool) send no invalid choice, with Mega Evolution. The damage formula
with Champions stats and data gives the rolls Showdown's own Champions battle gives."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from league.battle.damage import damage
from league.battle.dex import CHAMPIONS_DEX, STATS, TYPE_INDEX, champions, champions_stat, max_pp
from league.battle.fighter import Env, Fighter, mega_fighter
from league.battle.moves import move_info
from tests.conftest import ROOT
from tools.gen_dex import JS as GEN_DEX_JS
from tools.gen_dex import MODS

pytestmark = pytest.mark.integration

REG_MB = "gen9championsvgc2026regmb"


def _node(install, js: str, *args: str) -> dict:
    out = subprocess.run([install.node, "-e", js, *args], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_the_champions_dex_is_what_gen_dex_writes_today(install):
    data = json.loads(CHAMPIONS_DEX.read_text())
    assert data["showdown_version"] == install.version
    per_mod = _node(install, GEN_DEX_JS, str(install.package_dir), ",".join(MODS))
    for mod in MODS:  # regenerating would change nothing (championsregma: the same tables)
        assert per_mod[mod] == data["mods"][data["aliases"].get(mod, mod)], mod


def test_species_moves_and_pp_read_through_the_dex_are_showdown_s(install):
    species = ["floettemega", "floetteeternal", "charizardmegay", "staraptormega", "garchomp", "incineroar"]
    moves = ["anchorshot", "makeitrain", "moonblast", "protect", "tackle", "direclaw", "geargrind", "heatwave"]
    sd = _node(
        install,
        r"""
const ps = require(process.argv[1] + '/dist/sim');
const dex = ps.Dex.mod('champions');
const sp = Object.fromEntries(process.argv[2].split(',').map(id => {
  const s = dex.species.get(id); return [id, {base: s.baseStats, types: s.types, abilities: s.abilities}];
}));
const mv = Object.fromEntries(process.argv[3].split(',').map(id => {
  const m = dex.moves.get(id);
  return [id, {bp: m.basePower, acc: m.accuracy, priority: m.priority, category: m.category, type: m.type,
               target: m.target, pp: m.noPPBoosts ? m.pp : (m.pp / 5 + 1) * 4}];
}));
process.stdout.write(JSON.stringify({sp, mv}));
""",
        str(install.package_dir),
        ",".join(species),
        ",".join(moves),
    )
    mech = champions()
    for sid in species:
        e = mech.pokedex[sid]
        assert e["baseStats"] == sd["sp"][sid]["base"] and e["types"] == sd["sp"][sid]["types"], sid
        assert e["abilities"] == sd["sp"][sid]["abilities"], sid
    for mid in moves:
        mi, want = move_info(mid, mech), sd["mv"][mid]
        acc = 1.0 if want["acc"] is True else want["acc"] / 100
        assert (mi.bp, mi.accuracy, mi.priority, mi.target) == (want["bp"], acc, want["priority"], want["target"]), mid
        assert mi.category == {"Physical": 0, "Special": 1, "Status": 2}[want["category"]], mid
        assert max_pp(mid, mech) == want["pp"], mid


SETS = """
Staraptor @ Staraptite
Ability: Intimidate
Level: 50
EVs: 15 HP / 19 Atk / 32 Spe
Jolly Nature
- Brave Bird
- Close Combat
- Protect
- Tailwind

Floette-Eternal @ Floettite
Ability: Flower Veil
Level: 50
EVs: 26 HP / 3 Def / 5 SpA / 32 Spe
Modest Nature
- Moonblast
- Calm Mind
- Dazzling Gleam
- Protect

Incineroar @ Sitrus Berry
Ability: Intimidate
Level: 50
EVs: 32 HP / 7 Def / 10 SpD / 17 Spe
Careful Nature
- Parting Shot
- Throat Chop
- Fake Out
- Flare Blitz

Garchomp @ Choice Scarf
Ability: Rough Skin
Level: 50
EVs: 2 HP / 32 Atk / 32 Spe
Adamant Nature
- Earthquake
- Dragon Claw
- Rock Slide
- Protect
"""


def test_stat_points_give_the_stats_showdown_s_battle_gives(install):
    """Showdown builds a Reg M-B battle from these sets; each Pokemon's stats are
    champions_stat of its base stats, stat points ("EVs") and nature, hand-read here."""
    battle = _node(
        install,
        r"""
const ps = require(process.argv[1] + '/dist/sim');
const team = ps.Teams.import(process.argv[3]);
const b = new ps.Battle({formatid: process.argv[2]});
b.setPlayer('p1', {name: 'a', team: ps.Teams.pack(team)});
b.setPlayer('p2', {name: 'b', team: ps.Teams.pack(team)});
process.stdout.write(JSON.stringify(b.p1.pokemon.map(p => ({
  species: p.species.id, base: p.species.baseStats, maxhp: p.maxhp, stats: p.storedStats, evs: p.set.evs,
  nature: p.set.nature}))));
""",
        str(install.package_dir),
        REG_MB,
        SETS,
    )
    natures = {"Jolly": ("spe", "spa"), "Modest": ("spa", "atk"), "Careful": ("spd", "spa"), "Adamant": ("atk", "spa")}
    assert [m["species"] for m in battle] == ["staraptor", "floetteeternal", "incineroar", "garchomp"]
    for m in battle:
        up, down = natures[m["nature"]]
        assert m["maxhp"] == champions_stat(m["base"]["hp"], "hp", m["evs"]["hp"]), m
        for s in STATS[1:]:
            nat = 1 if s == up else (-1 if s == down else 0)
            assert m["stats"][s] == champions_stat(m["base"][s], s, m["evs"][s], nat), (m["species"], s)
    staraptor = battle[0]  # the hand-computed row of tests/unit/test_dex.py
    assert (staraptor["maxhp"], staraptor["stats"]["atk"], staraptor["stats"]["spa"]) == (175, 159, 63)


DAMAGE_JS = r"""
const ps = require(process.argv[1] + '/dist/sim');
const out = [];
const view = (p) => JSON.parse(JSON.stringify({species: p.species.id, stats: p.storedStats, maxhp: p.maxhp,
                                               types: p.getTypes(), ability: p.ability, item: p.item}));
for (const c of JSON.parse(process.argv[3])) {
  const b = new ps.Battle({formatid: process.argv[2], seed: [1, 2, 3, 4]});
  const team = (text) => ps.Teams.pack(ps.Teams.import(text).map(set => ({...set, level: 50})));
  b.setPlayer('p1', {name: 'a', team: team(c.p1)});
  b.setPlayer('p2', {name: 'b', team: team(c.p2)});
  b.makeChoices('team 1234', 'team 1234');
  const att = b.p1.active[0], def = b.p2.active[0];
  const before = view(att);
  if (c.mega) b.actions.runMegaEvo(att);
  const rolls = [];
  for (let i = 0; i < 300; i++) {  // every roll of 16 shows up; no critical hits
    const move = b.dex.getActiveMove(c.move);
    move.willCrit = false;
    rolls.push(b.actions.getDamage(att, def, move, true));
  }
  out.push({min: Math.min(...rolls), max: Math.max(...rolls), before, att: view(att), def: view(def)});
}
process.stdout.write(JSON.stringify(out));
"""
FILLER = "\n\nSylveon\nAbility: Pixilate\n- Hyper Voice\n\nMilotic\n- Scald\n\nGengar\n- Hex"
INCINEROAR = (
    "Incineroar @ Sitrus Berry\nAbility: Blaze\nEVs: 32 HP / 14 Def / 18 SpD / 2 Spe\nCareful Nature\n- Fake Out"
)
DAMAGE_CASES = [  # attacker (p1 lead) and defender (p2 lead), level 50, no Intimidate or weather on the field
    (
        "garchomp earthquake, life orb, super effective",
        "Garchomp @ Life Orb\nAbility: Rough Skin\nEVs: 2 HP / 32 Atk / 32 Spe\nJolly Nature\n- Earthquake",
        INCINEROAR,
        "earthquake",
        False,
    ),
    (
        "mega staraptor close combat: the forme's stats from our points and nature",
        "Staraptor @ Staraptite\nAbility: Reckless\nEVs: 15 HP / 19 Atk / 32 Spe\nJolly Nature\n- Close Combat",
        INCINEROAR,
        "closecombat",
        True,
    ),
    (
        "gholdengo make it rain (Champions: 95 %), special, super effective",
        "Gholdengo @ Leftovers\nAbility: Good as Gold\nEVs: 32 HP / 32 SpA / 2 Spe\nModest Nature\n- Make It Rain",
        "Floette-Eternal @ Sitrus Berry\nAbility: Flower Veil\nEVs: 26 HP / 3 Def / 5 SpA / 32 Spe\n"
        "Modest Nature\n- Moonblast",
        "makeitrain",
        False,
    ),
    (
        "dhelmise anchor shot (Champions: 90 power), steelworker",
        "Dhelmise @ Sitrus Berry\nAbility: Steelworker\nEVs: 32 HP / 32 Atk / 2 Def\nAdamant Nature\n- Anchor Shot",
        "Garchomp @ Choice Scarf\nAbility: Rough Skin\nEVs: 2 HP / 32 Atk / 32 Spe\nJolly Nature\n- Earthquake",
        "anchorshot",
        False,
    ),
]


def _fighter(v: dict) -> Fighter:
    st, types = v["stats"], tuple(TYPE_INDEX[t.upper()] for t in v["types"])
    return Fighter(
        True,
        v["species"],
        types,
        types,
        -1,
        False,
        50,
        float(v["maxhp"]),
        float(v["maxhp"]),
        st["atk"],
        st["def"],
        st["spa"],
        st["spd"],
        st["spe"],
        st["spe"],
        st["spe"],
        {},
        v["ability"],
        (v["ability"],),
        v["item"],
        None,
        50.0,
        1.0,
        False,
        False,
        False,
        False,
        False,
        0,
        1.0,
    )


def test_damage_with_champions_stats_is_showdown_s_rolls(install):
    """Showdown's own Champions battle computes each case's 16 rolls (getDamage, no
    critical hit); dex.damage with the Champions data and the fighters' real stats gives
    the same lowest and highest roll (within 2 % or 1 HP: dex.py multiplies in floats,
    Showdown floors the roll before STAB and type), and a mega forme's fighter has
    Showdown's mega stats."""
    cases = [
        {"p1": att + FILLER, "p2": dfn + FILLER, "move": mv, "mega": mega} for _, att, dfn, mv, mega in DAMAGE_CASES
    ]
    got = _node(install, DAMAGE_JS, str(install.package_dir), REG_MB, json.dumps(cases))
    mech = champions()
    for (name, *_), (_, _, _, mv, mega), sd in zip(DAMAGE_CASES, DAMAGE_CASES, got):
        att, dfn = _fighter(sd["before"]), _fighter(sd["def"])
        if mega:
            att = mega_fighter(att, mech)
            assert att.species == sd["att"]["species"], name
            assert (att.atk, att.def_, att.spa, att.spd, att.spe) == tuple(sd["att"]["stats"][s] for s in STATS[1:])
            assert att.types == tuple(TYPE_INDEX[t.upper()] for t in sd["att"]["types"]), name
        h = damage(att, move_info(mv, mech), dfn, Env())
        for ours, theirs in ((h.lo, sd["min"]), (h.hi, sd["max"])):
            assert abs(ours - theirs) <= max(1.0, 0.02 * theirs), (name, h, sd["min"], sd["max"])


def _eight_reg_mb_battles_vs_random(tmp_path, p1: str) -> subprocess.CompletedProcess:
    """tools.battle: ``p1`` vs random, 8 Reg M-B battles on the shipped pool, one worker."""
    return subprocess.run(
        [sys.executable, "-m", "tools.battle", "--p1", p1, "--p2", "random", "-n", "8", "--format", REG_MB]
        + ["--servers", "1", "--concurrency", "4", "--out", str(tmp_path / "run")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_maxdamage_and_random_play_reg_mb_with_mega_evolution(tmp_path):
    """tools.battle on Reg M-B with the shipped pool (every team brings a mega stone):
    no Showdown error, nothing unfinished, maxdamage wins and mega-evolves in every battle
    it can; both sides' megas are counted in the JSON."""
    out = _eight_reg_mb_battles_vs_random(tmp_path, "maxdamage")
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["format"] == REG_MB and s["battles"] == 8 and s["unfinished"] == 0, s
    assert s["showdown_errors"] == 0, out.stderr[-3000:]
    assert s["p1_wins"] >= 5, s  # maxdamage wins ~0.98 of Reg M-B battles against random
    assert 0 < s["p1_megas"] == s["p1_mega_chances"] <= 8, s
    assert 0 <= s["p2_megas"] <= s["p2_mega_chances"] <= 8 and s["p2_mega_chances"] > 0, s


def test_the_shipped_reg_mb_agent_plays_reg_mb(tmp_path):
    """agent:regmb (league/agents/regmb.pt, 60 minutes of experiment=reg_mb) plays Reg M-B
    on the shipped pool with no Showdown error and nothing unfinished, and it is offered
    Mega Evolution (the JSON counts its chances); it wins most games against random."""
    out = _eight_reg_mb_battles_vs_random(tmp_path, "agent:regmb")
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["format"] == REG_MB and s["battles"] == 8 and s["unfinished"] == 0 and s["showdown_errors"] == 0, s
    assert s["p1_mega_chances"] > 0, s
    assert s["p1_wins"] >= 4, s  # 0.98 over 200 games on the shared pool: fewer than 4 of 8 is ~1e-6
