"""Any gen 9 doubles format: which formats the league plays (read from Showdown's own
format list: Scarlet/Violet VGC and Pokemon Champions' Reg M-A and M-B), the vocabularies
against the whole gen 9 dex, and the shipped Reg G and Reg M-B pools under Showdown's
validator. (A Reg G training run: tests/system/test_formats.py; Reg M-B battles:
tests/integration/test_champions.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from league.battle import obs
from league.battle.dex import champions
from league.showdown.formats import FormatError, check_format, showdown_formats, supported_formats
from league.teams import DEFAULT_POOLS_DIR, TeamPoolError, TeamRepository, TeamValidationError
from tests.conftest import ROOT
from tools.gen_vocab import JS as GEN_VOCAB_JS

pytestmark = pytest.mark.integration

REG_G = "gen9vgc2024regg"
REG_G_POOL = DEFAULT_POOLS_DIR / REG_G
REG_MB = "gen9championsvgc2026regmb"
REG_MB_POOL = DEFAULT_POOLS_DIR / REG_MB


def test_the_vgc_formats_are_supported_and_others_are_not(install):
    ok = supported_formats(install)
    assert {"gen9vgc2023regc", "gen9vgc2023regd", REG_G, "gen9vgc2025regi", REG_MB, "gen9championsvgc2026regma"} <= set(
        ok
    )
    for fid in ok:  # what the codec needs, as Showdown's rule tables say
        f = showdown_formats(install)[fid]
        assert (f.gen, f.game_type, f.team_preview, f.picked_team_size) == (9, "doubles", True, 4)
        assert f.max_team_size == 6 and f.team is None
    info = check_format(REG_G, install)
    assert info.name == "[Gen 9] VGC 2024 Reg G" and info.adjust_level == 50
    info = check_format(REG_MB, install)
    assert (info.name, info.mod, info.adjust_level, info.level_clause_mod) == (
        "[Gen 9 Champions] VGC 2026 Reg M-B",
        "champions",
        50,
        False,
    )
    assert check_format("gen9championsvgc2026regma", install).mod == "championsregma"


@pytest.mark.parametrize(
    "fid, why",
    [
        ("gen9ou", "singles format"),
        ("gen9doublesou", "brings the whole team"),  # bring 6, play 6
        ("gen92v2doubles", "picks 2"),
        ("gen9randomdoublesbattle", "teams are generated"),
        ("gen9metronomebattle", "no team preview"),
        ("gen8vgc2022", "gen 8 format"),
        ("gen9championsdoublescustomgame", "brings the whole team"),
        ("gen9championsbssregmb", "singles format"),
        ("gen9championsrandombattle", "singles format"),
    ],
)
def test_an_unsupported_format_is_one_error_saying_why(install, fid, why):
    with pytest.raises(FormatError) as ei:
        check_format(fid, install, key="showdown.format")
    msg = str(ei.value)
    assert msg.startswith(f"showdown.format '{fid}'") and "not supported" in msg and why in msg, msg
    assert "The league plays: gen9vgc2023regc" in msg and REG_G in msg


@pytest.mark.parametrize("fid", ["gen9vgc2024reg", "vgc2024regg", "gen9vgc2024regG"])
def test_an_unknown_format_names_the_closest_ids(install, fid):
    with pytest.raises(FormatError) as ei:
        check_format(fid, install, key="showdown.format")
    msg = str(ei.value)
    assert f"showdown.format '{fid}' is not a format of pokemon-showdown 0.11.11; closest: {REG_G}" in msg, msg


def test_a_team_pool_is_only_loaded_for_a_format_the_league_plays(install):
    with pytest.raises(FormatError, match="brings the whole team"):
        TeamRepository(install).load("gen9doublesou", REG_G_POOL)
    with pytest.raises(FormatError, match="brings the whole team"):
        TeamRepository(install).load_file("gen9doublesou", next(REG_G_POOL.glob("*.txt")))
    with pytest.raises(TeamPoolError) as ei:  # a supported format with no shipped pool: name the fix
        TeamRepository(install).load("gen9vgc2023regd")
    assert "no team pool ships for gen9vgc2023regd" in str(ei.value) and "showdown.teams=DIR" in str(ei.value)


def test_the_reg_g_pool_is_legal_in_reg_g_only(install, tmp_path):
    teams = TeamRepository(install).load(REG_G)
    assert len(teams) == 6 and all(len(t.species) == 6 for t in teams)
    restricted = {"Calyrex", "Miraidon", "Koraidon", "Kyogre", "Terapagos"}
    assert all(len(restricted & set(t.species)) == 1 for t in teams)  # Reg G: one restricted legendary each
    with pytest.raises(TeamValidationError) as ei:  # the same teams are not Reg C teams
        TeamRepository(install).load("gen9vgc2023regc", REG_G_POOL)
    assert len(ei.value.problems) == 6 and "is not in the Paldea Pok" in str(ei.value)
    # two restricted legendaries on one team: Reg G's own rule
    a = (REG_G_POOL / "01-calyrex-shadow.txt").read_text().split("\n\n")
    b = (REG_G_POOL / "02-miraidon-tailwind.txt").read_text().split("\n\n")
    with pytest.raises(TeamValidationError, match="You can only use one restricted Pok"):
        TeamRepository(install).save(REG_G, "two_restricted", "\n\n".join(a[:5] + b[:1]) + "\n", pool_dir=tmp_path)


def test_the_reg_mb_pool_is_legal_in_reg_mb_only(install):
    """The shipped Reg M-B pool (the project's own twelve teams): each brings a mega stone,
    Showdown's Reg M-B validator accepts all, Reg C's refuses them (no Mega Evolution in
    Scarlet/Violet), and the encoder knows every id in them."""
    from poke_env.data import to_id_str
    from poke_env.teambuilder import Teambuilder

    teams = TeamRepository(install).load(REG_MB)
    assert len(teams) == 12 and all(len(t.species) == 6 for t in teams)
    mega = champions().megastones
    for t in teams:
        mons = Teambuilder.parse_showdown_team(t.text)
        assert sum(to_id_str(m.item) in mega for m in mons) >= 1, t.name
        for m in mons:
            assert obs.vocab_id("species", to_id_str(m.species or m.nickname)) > 1, (t.name, m.species)
            assert obs.vocab_id("items", to_id_str(m.item)) > 1 and obs.vocab_id("abilities", to_id_str(m.ability)) > 1
            assert all(obs.move_vocab_id(to_id_str(mv)) > 1 for mv in m.moves), (t.name, m.moves)
    with pytest.raises(TeamValidationError) as ei:
        TeamRepository(install).load("gen9vgc2023regc", REG_MB_POOL)
    assert len(ei.value.problems) == 12


def _node(install, js: str, *args: str) -> dict:
    out = subprocess.run([install.node, "-e", js, *args], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_the_vocabularies_are_the_whole_gen9_dex(install):
    """vocab.json is what tools.gen_vocab writes from today's Showdown (every species,
    move, item and ability of Dex.forGen(9), Paldea or not: Incineroar, Calyrex,
    Kyogre, ... ), and no supported format's dex has an id outside it."""
    tables = _node(install, GEN_VOCAB_JS, str(install.package_dir))
    vocab = json.loads(obs._VOCAB_PATH.read_text())
    assert vocab["showdown_version"] == install.version
    for k, ids in tables.items():
        assert vocab[k] == ["<none>", "<unk>", *ids], k  # regenerating would change nothing
        assert obs.VOCAB_SIZES[k] == len(ids) + 2
    mods = sorted({showdown_formats(install)[f].mod for f in supported_formats(install)})
    per_mod = _node(
        install,
        r"""
const ps = require(process.argv[1] + '/dist/sim');
const out = {};
for (const mod of process.argv[2].split(',')) {
  const dex = ps.Dex.mod(mod);
  const ids = (list) => list.filter(x => x.exists).map(x => x.id);
  out[mod] = {species: ids(dex.species.all()), moves: ids(dex.moves.all()), items: ids(dex.items.all()),
              abilities: ids(dex.abilities.all())};
}
process.stdout.write(JSON.stringify(out));
""",
        str(install.package_dir),
        ",".join(mods),
    )
    for mod, t in per_mod.items():
        for k, ids in t.items():
            assert set(ids) <= set(vocab[k]), (mod, k, sorted(set(ids) - set(vocab[k]))[:10])
    for name in (
        "incineroar",
        "calyrexshadow",
        "kyogre",
        "urshifurapidstrike",
        "ogerponhearthflametera",
        "terapagosstellar",
        "ursalunabloodmoon",
    ):
        assert obs.vocab_id("species", name) > obs.UNKNOWN_ID, name


def test_every_reg_g_pool_id_is_known_to_the_encoder(install):
    """What the encoder sees of the Reg G teams (poke-env's ids) is in the vocabularies."""
    from poke_env.data import to_id_str
    from poke_env.teambuilder import Teambuilder

    for f in sorted(REG_G_POOL.glob("*.txt")):
        for mon in Teambuilder.parse_showdown_team(f.read_text()):
            assert obs.vocab_id("species", to_id_str(mon.species or mon.nickname)) > 1, (f.name, mon.species)
            assert obs.vocab_id("items", to_id_str(mon.item)) > 1, (f.name, mon.item)
            assert obs.vocab_id("abilities", to_id_str(mon.ability)) > 1, (f.name, mon.ability)
            for m in mon.moves:
                assert obs.move_vocab_id(to_id_str(m)) > 1, (f.name, m)


def test_the_shipped_agent_plays_reg_g_on_the_stream_backend(tmp_path):
    """The format goes through to Showdown's simulator (each replay's |tier| is Reg G) and
    the shipped Reg C agent, whose vocabularies are the whole gen 9 dex, plays it."""
    replays = tmp_path / "replays"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.battle",
            "--p1",
            "agent:regc",
            "--p2",
            "maxdamage",
            "-n",
            "4",
            "--format",
            REG_G,
            "--servers",
            "1",
            "--concurrency",
            "4",
            "--save-replays",
            str(replays),
            "--out",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["format"] == REG_G and summary["battles"] == 4 and summary["showdown_errors"] == 0, summary
    pool = {
        ln.split(" @ ")[0].split("-")[0]
        for f in REG_G_POOL.glob("*.txt")
        for ln in f.read_text().splitlines()
        if " @ " in ln
    }
    files = sorted(replays.glob("*.html"))
    assert len(files) == 4
    for f in files:
        html = f.read_text()
        assert "|tier|[Gen 9] VGC 2024 Reg G" in html, f.name
        shown = {m.split(",")[0].split("-")[0] for m in re.findall(r"^\|poke\|p[12]\|([^|]*)", html, re.M)}
        assert len(shown) >= 6 and shown <= pool, (f.name, shown - pool)
