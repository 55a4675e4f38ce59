"""Action codec and legality masks against hand-built Showdown requests."""

from __future__ import annotations

import numpy as np
import pytest

from league.battle import actions as A
from league.battle.actions import (
    JOINT_ACTIONS,
    NO_TARGET,
    PASS,
    PREVIEW_ACTIONS,
    SLOT_ACTIONS,
    RequestView,
    decode_preview,
    decode_slot,
    joint_action,
    joint_mask,
    joint_message,
    move_action,
    preview_action,
    preview_mask,
    preview_message,
    slot_mask,
    split_joint,
    switch_action,
)

T = {-2: 0, -1: 1, 0: 2, 1: 3, 2: 4}  # Showdown target location -> target index


def mon(ident, cond="100/100", active=False, **kw):
    return {"ident": f"p1: {ident}", "details": ident, "condition": cond, "active": active, **kw}


def mv(mid, target="normal", **kw):
    return {"move": mid, "id": mid, "pp": 10, "maxpp": 16, "target": target, "disabled": False, **kw}


def move_request(active=None, side=None, **extra):
    side = side or [mon("A", active=True), mon("B", active=True), mon("C"), mon("D")]
    active = active or [
        {
            "moves": [
                mv("tackle"),
                mv("protect", "self"),
                mv("earthquake", "allAdjacent"),
                mv("helpinghand", "adjacentAlly"),
            ]
        },
        {
            "moves": [
                mv("heatwave", "allAdjacentFoes"),
                mv("moonblast"),
                mv("followme", "self"),
                mv("lifedew", "allies"),
            ]
        },
    ]
    return {"active": active, "side": {"name": "me", "id": "p1", "pokemon": side}, "rqid": 3, **extra}


def legal_slot(m):
    return {A.slot_to_text(a) for a in np.flatnonzero(m)}


def test_slot_index_roundtrip_and_sizes():
    assert SLOT_ACTIONS == 45 and JOINT_ACTIONS == 2025 and PREVIEW_ACTIONS == 90
    seen = set()
    for j in range(4):
        for t in range(5):
            for tera in (False, True):
                a = move_action(j, t, tera)
                assert decode_slot(a) == ("move", j, t, tera)
                seen.add(a)
    for k in range(4):
        assert decode_slot(switch_action(k)) == ("switch", k, NO_TARGET, False)
        seen.add(switch_action(k))
    assert decode_slot(PASS)[0] == "pass"
    assert seen | {PASS} == set(range(45))
    for j in (0, 1, 44, 45, 2024):
        assert joint_action(*split_joint(j)) == j
    with pytest.raises(ValueError):
        split_joint(2025)


def test_preview_codec_covers_every_choice_once():
    choices = set()
    for idx in range(PREVIEW_ACTIONS):
        l0, l1, b0, b1 = decode_preview(idx)
        assert len({l0, l1, b0, b1}) == 4 and l0 < l1 and b0 < b1
        assert preview_action((l1, l0), (b1, b0)) == idx
        choices.add(((l0, l1), (b0, b1)))
    assert len(choices) == 90
    assert preview_message(preview_action((2, 5), (0, 3))) == "/team 3614"


def test_move_request_targets_and_tera():
    view = RequestView.from_request(move_request(), None)
    m0 = slot_mask(view, 0, (True, True))
    # tackle (normal): both foes and the ally (-2 for slot a), never self; no tera offered
    assert legal_slot(m0) == {
        "move1@+1",
        "move1@+2",
        "move1@-2",
        "move2@+0",
        "move3@+0",
        "move4@-2",
        "switch->brought2",
        "switch->brought3",
    }
    req = move_request()
    req["active"][1]["canTerastallize"] = "Fairy"
    view = RequestView.from_request(req, None)
    m1 = slot_mask(view, 1, (True, True))
    assert m1[move_action(1, T[1], True)] and m1[move_action(1, T[-1], True)]  # slot b's ally is -1
    assert not m1[move_action(1, T[-2], False)]  # -2 is slot b itself
    assert m1[move_action(3, NO_TARGET, True)]
    assert not m1[PASS]


def test_empty_foe_slot_is_not_targeted_unless_nothing_else():
    view = RequestView.from_request(move_request(), None)
    m0 = slot_mask(view, 0, (False, True))
    assert not m0[move_action(0, T[1], False)] and m0[move_action(0, T[2], False)]
    side = [mon("A", active=True), mon("B", "0 fnt", active=True), mon("C"), mon("D")]
    req = move_request(side=side)
    view = RequestView.from_request(req, None)
    m0 = slot_mask(view, 0, (True, True))
    assert m0[move_action(3, T[-2], False)]  # helping hand with no ally: still choosable, one target
    assert not m0[move_action(0, T[-2], False)]  # tackle no longer offered at the empty ally slot


def test_disabled_trapped_and_maybe_trapped():
    req = move_request()
    req["active"][0]["moves"][0]["disabled"] = True
    req["active"][0]["trapped"] = True
    req["active"][1]["maybeTrapped"] = True
    view = RequestView.from_request(req, None)
    m0, m1 = slot_mask(view, 0, (True, True)), slot_mask(view, 1, (True, True))
    assert not m0[: A.MOVE_ACTIONS][move_action(0, T[1], False)]
    assert not m0[A.SWITCH_OFFSET : PASS].any() and not m1[A.SWITCH_OFFSET : PASS].any()


def test_locked_move_has_no_target_and_sends_bare_move_number():
    req = move_request()
    req["active"][0] = {"moves": [{"move": "Outrage", "id": "outrage"}], "trapped": True}
    view = RequestView.from_request(req, None)
    m0 = slot_mask(view, 0, (True, True))
    assert list(np.flatnonzero(m0)) == [move_action(0, NO_TARGET, False)]
    j = joint_action(move_action(0, NO_TARGET, False), move_action(1, T[2], False))
    assert joint_mask(view)[j]
    assert joint_message(view, j) == "/choose move 1, move 2 2"


def test_fainted_and_commanding_slots_pass():
    side = [mon("A", "0 fnt", active=True), mon("B", active=True, commanding=True), mon("C"), mon("D")]
    view = RequestView.from_request(move_request(side=side), None)
    jm = joint_mask(view).reshape(45, 45)
    assert jm.sum() == 1 and jm[PASS, PASS]


def test_no_double_tera_and_no_double_switch_to_same_mon():
    req = move_request()
    req["active"][0]["canTerastallize"] = "Fire"
    req["active"][1]["canTerastallize"] = "Fire"
    view = RequestView.from_request(req, None)
    jm = joint_mask(view).reshape(45, 45)
    tera0 = move_action(1, NO_TARGET, True)
    tera1 = move_action(2, NO_TARGET, True)
    assert jm[tera0, move_action(2, NO_TARGET, False)] and not jm[tera0, tera1]
    s = switch_action(2)
    assert jm[s, switch_action(3)] and not jm[s, s]


def test_forced_switch_one_slot():
    side = [mon("A", "0 fnt", active=True), mon("B", active=True), mon("C"), mon("D")]
    view = RequestView.from_request({"forceSwitch": [True, False], "side": {"pokemon": side}}, None)
    jm = joint_mask(view).reshape(45, 45)
    assert set(zip(*np.nonzero(jm))) == {(switch_action(2), PASS), (switch_action(3), PASS)}


def test_forced_switch_both_slots_one_bench_exactly_one_switches():
    side = [mon("A", "0 fnt", active=True), mon("B", "0 fnt", active=True), mon("C"), mon("D", "0 fnt")]
    view = RequestView.from_request({"forceSwitch": [True, True], "side": {"pokemon": side}}, None)
    jm = joint_mask(view).reshape(45, 45)
    assert set(zip(*np.nonzero(jm))) == {(switch_action(2), PASS), (PASS, switch_action(2))}


def test_forced_switch_both_slots_two_bench_both_switch_distinct():
    side = [mon("A", "0 fnt", active=True), mon("B", "0 fnt", active=True), mon("C"), mon("D")]
    view = RequestView.from_request({"forceSwitch": [True, True], "side": {"pokemon": side}}, None)
    jm = joint_mask(view).reshape(45, 45)
    assert set(zip(*np.nonzero(jm))) == {(switch_action(2), switch_action(3)), (switch_action(3), switch_action(2))}


def test_switch_indices_follow_brought_order_not_positions():
    brought = ["p1: A", "p1: B", "p1: C", "p1: D"]
    # After a switch, C is active in slot a and A sits at position 2.
    side = [mon("C", active=True), mon("B", active=True), mon("A"), mon("D")]
    view = RequestView.from_request(move_request(side=side), brought)
    m0 = slot_mask(view, 0, (True, True))
    assert m0[switch_action(0)] and m0[switch_action(3)] and not m0[switch_action(2)]
    j = joint_action(switch_action(0), switch_action(3))
    assert joint_message(view, j) == "/choose switch 3, switch 4"


def test_revival_blessing_picks_a_fainted_member():
    side = [mon("A", active=True, reviving=True), mon("B", active=True), mon("C", "0 fnt"), mon("D")]
    view = RequestView.from_request({"forceSwitch": [True, False], "side": {"pokemon": side}}, None)
    jm = joint_mask(view).reshape(45, 45)
    assert set(zip(*np.nonzero(jm))) == {(switch_action(2), PASS)}


def test_preview_and_wait_requests():
    side = [mon(x) for x in "ABCDEF"]
    view = RequestView.from_request({"teamPreview": True, "maxChosenTeamSize": 4, "side": {"pokemon": side}}, None)
    assert view.kind == "preview" and preview_mask(view).all()
    view = RequestView.from_request({"teamPreview": True, "side": {"pokemon": side[:5]}}, None)
    pm = preview_mask(view)
    assert pm.sum() == 10 * 3  # C(5,2) lead pairs x C(3,2) back pairs
    assert RequestView.from_request({"wait": True, "side": {"pokemon": side}}, None).kind == "wait"


# ---------------------------------------------------------------- Mega Evolution (Pokemon Champions)
def _parse_slot(text: str, view: RequestView) -> tuple:
    """A slot's choice words back to (kind, move or brought index, target index, transformation word)."""
    w = text.split()
    if w[0] == "move":
        target = T[int(w[2])] if len(w) > 2 and w[2].lstrip("-").isdigit() else NO_TARGET
        return "move", int(w[1]) - 1, target, w[-1] if w[-1] in ("mega", "terastallize") else ""
    if w[0] == "switch":
        ident = view.side[int(w[1]) - 1]["ident"]
        return "switch", view.brought.index(ident), NO_TARGET, ""
    return "pass", -1, NO_TARGET, ""


def test_mega_evolution_takes_the_tera_bit_where_the_request_offers_it():
    req = move_request()
    req["active"][0]["canMegaEvo"] = True  # Champions: no canTerastallize, a mega stone on slot a
    view = RequestView.from_request(req, None)
    assert view.gimmick == ["mega", ""]
    m0, m1 = slot_mask(view, 0, (True, True)), slot_mask(view, 1, (True, True))
    np.testing.assert_array_equal(m0[1 : A.MOVE_ACTIONS : 2], m0[0 : A.MOVE_ACTIONS : 2])  # every move, mega or not
    assert m0[move_action(0, T[1], True)] and m0[move_action(1, NO_TARGET, True)]
    assert m1[0 : A.MOVE_ACTIONS : 2].any() and not m1[1 : A.MOVE_ACTIONS : 2].any()  # slot b has no stone
    j = joint_action(move_action(0, T[2], True), move_action(1, T[1], False))
    assert joint_mask(view)[j]
    assert joint_message(view, j) == "/choose move 1 2 mega, move 2 1"
    assert (
        joint_message(view, joint_action(move_action(1, NO_TARGET, True), switch_action(2)))
        == "/choose move 2 mega, switch 3"
    )


def test_every_legal_mega_order_round_trips_through_its_choice_string():
    req = move_request()
    req["active"][0]["canMegaEvo"] = True
    req["active"][1]["canMegaEvo"] = True
    view = RequestView.from_request(req, None)
    jm = joint_mask(view)
    megas = 0
    for j in np.flatnonzero(jm):
        msg = joint_message(view, int(j))
        assert msg.startswith("/choose ") and "terastallize" not in msg
        parts = msg[len("/choose ") :].split(", ")
        for _slot, (a, text) in enumerate(zip(split_joint(int(j)), parts)):
            kind, i, t, b = decode_slot(a)
            assert _parse_slot(text, view) == (kind, i, t, "mega" if b else ""), (a, text)
            megas += b
        assert msg.count(" mega") <= 1  # one Mega Evolution a turn (and a battle): never both slots
    assert megas > 0
    both = joint_action(move_action(1, NO_TARGET, True), move_action(2, NO_TARGET, True))
    assert not jm[both] and jm[joint_action(move_action(1, NO_TARGET, True), move_action(2, NO_TARGET, False))]


def test_tera_requests_still_say_terastallize_and_no_offer_is_no_transformation():
    req = move_request()
    req["active"][1]["canTerastallize"] = "Fairy"
    view = RequestView.from_request(req, None)
    assert view.gimmick == ["", "terastallize"]
    j = joint_action(move_action(0, T[1], False), move_action(1, T[2], True))
    assert joint_message(view, j) == "/choose move 1 1, move 2 2 terastallize"
    plain = RequestView.from_request(move_request(), None)
    assert plain.gimmick == ["", ""] and not joint_mask(plain).reshape(45, 45)[1 : A.MOVE_ACTIONS : 2].any()
    with pytest.raises(A.IllegalRequestError, match="offers no terastallization or mega evolution"):
        A.slot_choice(plain, move_action(0, T[1], True), 0)


def test_joint_mask_is_built_once_per_combination_and_callers_own_their_copy(monkeypatch):
    """The joint mask is cached by the slots' legal orders: a caller writing into its mask
    does not change the next caller's, a forced-switch count is part of the key, and the
    cache is cleared (not grown) at its bound."""
    monkeypatch.setattr(A, "_JOINT_MASKS", {})
    view = RequestView.from_request(move_request(), None)
    first = A.joint_mask(view)
    want = first.copy()
    first[:] = False
    assert np.array_equal(A.joint_mask(view), want)
    assert len(A._JOINT_MASKS) == 1
    side = [mon("A", "0 fnt", active=True), mon("B", "0 fnt", active=True), mon("C"), mon("D")]
    both = A.joint_mask(RequestView.from_request({"forceSwitch": [True, True], "side": {"pokemon": side}}, None))
    side[3] = mon("D", "0 fnt")
    one = A.joint_mask(RequestView.from_request({"forceSwitch": [True, True], "side": {"pokemon": side}}, None))
    assert (A.SWITCH_COUNT.reshape(-1)[both] == 2).all() and (A.SWITCH_COUNT.reshape(-1)[one] == 1).all()
    monkeypatch.setattr(A, "_JOINT_MASKS_MAX", len(A._JOINT_MASKS))
    A.joint_mask(RequestView.from_request(move_request(), None), (True, False))
    assert len(A._JOINT_MASKS) == 1
