"""Team sub-pools (archetypes): the files a pool directory holds and their tags, and
seeded draws from one sub-pool. Pure: the Team objects are built here as
TeamRepository.load builds them, without Showdown's validator (tests/integration/
test_teams.py loads a real pool with sub-directories through it)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from league.teams.repo import Team, TeamPoolError, has_tag, pool_files, sample_teams, select_tag


def _team(name: str, tag: str | None) -> Team:
    return Team(f"{tag}/{name}" if tag else name, Path(f"{name}.txt"), f"{name}\n", f"{name}|packed", tag)


POOL = [
    _team("a", None),
    _team("b", None),
    _team("c", "rain"),
    _team("d", "trickroom"),
    _team("e", "trickroom"),
    _team("f", "trickroom/hard"),
    _team("g", "trickroomish"),
]


def test_pool_files_walk_sub_directories_and_tag_them(tmp_path):
    for rel in (
        "b.txt",
        "a.txt",
        "trickroom/x.txt",
        "trickroom/hard/y.txt",
        "rain/z.txt",
        "notes.md",
        ".hidden/h.txt",
        "rain/.draft.txt",
        "empty/",
    ):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not rel.endswith("/"):
            p.write_text("x")
    got = [(f.relative_to(tmp_path).as_posix(), tag) for f, tag in pool_files(tmp_path)]
    # the top first (as a flat pool always was), then each sub-directory in order; hidden ones skipped
    assert got == [
        ("a.txt", None),
        ("b.txt", None),
        ("rain/z.txt", "rain"),
        ("trickroom/x.txt", "trickroom"),
        ("trickroom/hard/y.txt", "trickroom/hard"),
    ]


@pytest.mark.parametrize(
    "tag, names",
    [
        (None, ["a", "b", "rain/c", "trickroom/d", "trickroom/e", "trickroom/hard/f", "trickroomish/g"]),
        (
            "trickroom",
            ["trickroom/d", "trickroom/e", "trickroom/hard/f"],
        ),  # its sub-directories too, not "trickroomish"
        ("trickroom/hard", ["trickroom/hard/f"]),
        ("rain", ["rain/c"]),
    ],
)
def test_select_tag_table(tag, names):
    assert [t.name for t in select_tag(POOL, tag)] == names
    assert all(tag is None or has_tag(t, tag) for t in select_tag(POOL, tag))


def test_an_unknown_or_malformed_tag_names_the_tags_there_are():
    with pytest.raises(TeamPoolError, match="sub-directories are rain, trickroom, trickroom/hard, trickroomish"):
        select_tag(POOL, "sun")
    with pytest.raises(TeamPoolError, match="every team is at the top"):
        select_tag(POOL[:2], "rain")
    for bad in ("../rain", "/rain", "rain/", "", ".", "rain/..", 3):
        with pytest.raises(TeamPoolError, match="must be a sub-directory"):
            select_tag(POOL, bad)


def test_sub_pool_draws_are_seeded_and_stay_in_the_sub_pool():
    tr = {"trickroom/d", "trickroom/e", "trickroom/hard/f"}
    # every draw, whatever the seed, lies in the sub-pool: no assertion here depends on luck
    for seed in range(50):
        rng = random.Random(seed)
        assert {t.name for t in sample_teams(POOL, 2, rng, tag="trickroom")} <= tr
        assert {t.name for t in sample_teams(POOL, 5, rng, replace=True, tag="trickroom")} <= tr
        # without replacement, the whole sub-pool is a permutation of it
        assert sorted(t.name for t in sample_teams(POOL, 3, rng, tag="trickroom")) == sorted(tr)
    # the same seed draws the same teams, as from the sub-pool on its own; seed 7's draws written down
    draw = [t.name for t in sample_teams(POOL, 6, random.Random(7), replace=True, tag="trickroom")]
    assert draw == [t.name for t in sample_teams(POOL, 6, random.Random(7), replace=True, tag="trickroom")]
    alone = [_team("d", "trickroom"), _team("e", "trickroom"), _team("f", "trickroom/hard")]
    assert draw == [t.name for t in sample_teams(alone, 6, random.Random(7), replace=True)]
    assert draw == ["trickroom/e", "trickroom/d", "trickroom/e", "trickroom/hard/f", "trickroom/d", "trickroom/d"]
    with pytest.raises(TeamPoolError, match="asked for 4 distinct teams but the sub-pool 'trickroom' has 3"):
        sample_teams(POOL, 4, random.Random(0), tag="trickroom")
