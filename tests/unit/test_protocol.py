"""Protocol lines poke-env misreads are mended before it reads them (league/battle/protocol.py),
and Showdown's unavailable choices are counted apart from errors (league/players/base.py).

The Round lines are Showdown 0.11.11's own: two allies both using Round, the second moved
up by the first (``queue.prioritizeAction``), as its battle stream logged them (spectator
view, doubles, level 50)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from poke_env.battle import DoubleBattle

from league.battle.protocol import mend

TURN_1 = [
    "|switch|p1a: Whimsicott|Whimsicott, L50, M|100/100",
    "|switch|p1b: Amoonguss|Amoonguss, L50, F|100/100",
    "|switch|p2a: Whimsicott|Whimsicott, L50, F|100/100",
    "|switch|p2b: Amoonguss|Amoonguss, L50, F|100/100",
    "|turn|1",
    "|move|p2a: Whimsicott|Protect|p2a: Whimsicott",
    "|move|p2b: Amoonguss|Protect|p2b: Amoonguss",
    "|move|p1a: Whimsicott|Round|p2a: Whimsicott",
    "|move|p1b: Amoonguss|Round|p2a: Whimsicott|[from] move: Round",
    "|upkeep",
    "|turn|2",
]


@pytest.mark.parametrize(
    "line, want",
    [
        # moved up by an ally's Round: the user's own Round (tag dropped, wherever it sits)
        ("|move|p1b: Amoonguss|Round|p2a: Whimsicott|[from] move: Round", "|move|p1b: Amoonguss|Round|p2a: Whimsicott"),
        ("|move|p1b: Amoonguss|Round|p2a: Whimsicott|[from]move: Round", "|move|p1b: Amoonguss|Round|p2a: Whimsicott"),
        ("|move|p1b: A|Round|p2a: W|[from] move: Round|[still]", "|move|p1b: A|Round|p2a: W|[still]"),
        # everything else as it is
        ("|move|p1a: Whimsicott|Round|p2a: Whimsicott", "|move|p1a: Whimsicott|Round|p2a: Whimsicott"),
        ("|move|p1a: X|Tackle|p2a: Y|[from] move: Copycat", "|move|p1a: X|Tackle|p2a: Y|[from] move: Copycat"),
        ("|move|p1a: X|Round|p2a: Y|[from] move: Copycat", "|move|p1a: X|Round|p2a: Y|[from] move: Copycat"),
        ("|-activate|p1a: X|move: Round", "|-activate|p1a: X|move: Round"),
        ("|move|p1a: X|Round", "|move|p1a: X|Round"),
    ],
)
def test_mend_drops_only_the_tag_of_a_round_moved_up(line, want):
    split = line.split("|")
    assert mend(split) is split and "|".join(split) == want


def _battle() -> DoubleBattle:
    b = DoubleBattle("battle-gen9vgc2023regc-1", "a", logging.getLogger("t"), gen=9)
    b.player_role = "p2"
    return b


def test_poke_env_reads_showdowns_round_lines_once_mended():
    plain = _battle()
    with pytest.raises(KeyError, match="round"):  # poke-env's own reading (if this passes, the mend can go)
        for line in TURN_1:
            plain.parse_message(line.split("|"))
    b = _battle()
    for line in TURN_1:
        b.parse_message(mend(line.split("|")))
    assert b.turn == 2
    amoonguss = b.get_pokemon("p1: Amoonguss")
    assert "round" in amoonguss.moves and amoonguss.moves["round"].current_pp == amoonguss.moves["round"].max_pp - 1


def _player():
    from league.players import RandomPlayer

    p = RandomPlayer(start_listening=False, battle_format="gen9vgc2023regc")
    b = _battle()
    b._player_role = "p2"
    p._battles[b.battle_tag] = b
    return p, b


def test_a_player_reads_the_whole_turn_with_a_round_moved_up(caplog):
    p, b = _player()
    frame = [[">" + b.battle_tag], *(line.split("|") for line in TURN_1)]
    asyncio.run(p._handle_battle_message(frame))
    assert b.turn == 2  # the lines after the Round were read
    assert "round" in b.get_pokemon("p1: Amoonguss").moves
    assert p.showdown_errors == 0


def test_unavailable_choices_are_counted_apart_from_errors():
    p, b = _player()
    frame = [
        [">" + b.battle_tag],
        ["", "error", "[Unavailable choice] Can't move: Sinistcha's Trick Room is disabled"],
        ["", "error", "[Unavailable choice] Can't move: Sinistcha's Trick Room is disabled"],
        ["", "error", "[Invalid choice] Can't move: Amoonguss doesn't have a move matching tackle"],
    ]
    p._handle_battle_request = _noop  # Showdown's re-request is not what this counts
    asyncio.run(p._handle_battle_message(frame))
    assert (p.showdown_errors, p.unavailable_choices) == (1, 2)
    assert p.errors == {"[Unavailable choice]": 2, "[Invalid choice]": 1}


async def _noop(*args, **kwargs):
    return None
