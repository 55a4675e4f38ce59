"""Why a format is refused, on hand-made rule tables (no Node): the mods the dex knows,
the Champions data chosen by the id's prefix, and Champions' Level Clause Mod. (The
formats of the installed Showdown: tests/integration/test_formats.py.)"""

from __future__ import annotations

import dataclasses

import pytest

from league.showdown.formats import FormatInfo

REG_MB = FormatInfo(
    id="gen9championsvgc2026regmb",
    name="[Gen 9 Champions] VGC 2026 Reg M-B",
    mod="champions",
    game_type="doubles",
    gen=9,
    team=None,
    team_preview=True,
    picked_team_size=4,
    min_team_size=6,
    max_team_size=6,
    adjust_level=50,
)


def test_champions_vgc_is_supported():
    assert REG_MB.unsupported() == ""
    assert dataclasses.replace(REG_MB, id="gen9championsvgc2026regma", mod="championsregma").unsupported() == ""
    assert dataclasses.replace(REG_MB, id="gen9vgc2023regc", mod="gen9").unsupported() == ""


@pytest.mark.parametrize(
    "change, why",
    [
        ({"level_clause_mod": True}, "Level Clause Mod computes Champions stats from each Pokemon's level"),
        ({"id": "gen9somevgcformat"}, "does not start with 'gen9champions'"),
        ({"mod": "gen9natdex"}, "runs on Showdown's 'gen9natdex' mod"),
        ({"mod": "gen8"}, "Pokemon Champions' (champions, championsregma)"),
        ({"picked_team_size": None}, "brings the whole team"),
    ],
)
def test_what_the_dex_or_codec_cannot_play_is_refused_by_name(change, why):
    assert why in dataclasses.replace(REG_MB, **change).unsupported()
