"""Learner diagnostics on hand-computed tables: explained variance, the policy's
entropies by decision kind, the pre-clip gradient norm, and kl_published's schedule."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from league.battle.actions import JOINT_ACTIONS, PASS, joint_action, move_action, switch_action
from league.learn.diagnostics import (
    DAMAGING,
    PROTECT,
    SPARSE,
    STATUS,
    decision_entropies,
    explained_variance,
    move_classes,
)
from league.learn.learner import Learner, LearnerConfig
from league.learn.rnad import rnad_loss
from league.model.net import ModelConfig, PolicyValueNet
from tests.unit.test_rnad import _batch

T_ = torch.tensor


def H(*p: float) -> float:
    """Entropy in nats of a distribution given by its probabilities."""
    return -sum(x * math.log(x) for x in p if x > 0)


@pytest.mark.parametrize(
    "v_target, v, want",
    [
        ([1.0, -1.0, 1.0, -1.0], [0.5, -0.5, 0.5, -0.5], 0.75),  # Var(t) = 1, Var(t - v) = 0.25
        ([1.0, -1.0, 1.0, -1.0], [1.0, -1.0, 1.0, -1.0], 1.0),  # v = t: all explained
        ([1.0, -1.0, 1.0, -1.0], [0.0, 0.0, 0.0, 0.0], 0.0),  # v = mean(t): nothing explained
        ([1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, 1.0], -3.0),  # Var(t - v) = Var(2t) = 4: worse than the mean
        ([0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3], 0.0),  # constant target: the convention, 0
        ([0.3, 0.3, 0.3, 0.3], [1.0, -2.0, 0.0, 5.0], 0.0),
    ],
)
def test_explained_variance_table(v_target, v, want):
    valid = torch.ones(4, 1, dtype=torch.bool)
    got = explained_variance(T_(v)[:, None], T_(v_target)[:, None], valid)
    assert float(got) == pytest.approx(want, abs=1e-6)


def test_explained_variance_ignores_padding():
    # the 0.75 row of the table, and a padded step with values that would change it
    v_target, v = T_([[1.0, -1.0], [1.0, -1.0], [9.0, 0.0]]), T_([[0.5, -0.5], [0.5, -0.5], [-9.0, 0.0]])
    valid = T_([[True, True], [True, True], [False, False]])
    assert float(explained_variance(v, v_target, valid)) == pytest.approx(0.75, abs=1e-6)


def _policy(rows: list[dict[tuple[int, int] | int, float]], preview: list[bool]):
    """pi, log pi (0 where illegal) and the legal mask [N, 2025], is_preview [N] from
    {joint (a0, a1) or preview index: probability} per step."""
    pi = torch.zeros(len(rows), JOINT_ACTIONS)
    for i, row in enumerate(rows):
        for a, p in row.items():
            pi[i, joint_action(*a) if isinstance(a, tuple) else a] = p
    mask = pi > 0
    return pi, pi.log().where(mask, torch.zeros(())), mask, T_(preview)


# Four steps. Slot orders: move m, target t (3, 4: the foes; 2: none; 0, 1: our side), tera;
# the comments number moves from 1 as Showdown does (move_action's m + 1).
M = move_action
STEPS = [
    # a turn: slot 0 picks among move 1 at either foe (one with tera), move 2 (no target) and
    # a switch; slot 1 can only pass
    {
        (M(0, 3, False), PASS): 0.25,
        (M(0, 4, False), PASS): 0.25,
        (M(1, 2, False), PASS): 0.25,
        (M(0, 3, True), PASS): 0.125,
        (switch_action(0), PASS): 0.125,
    },
    # a forced switch: slot 0 switches to one of two, slot 1 passes
    {(switch_action(0), PASS): 0.5, (switch_action(1), PASS): 0.5},
    # a turn where slot 0 can only pass and slot 1 picks move 3 or 4, each at two targets
    {
        (PASS, M(2, 0, False)): 0.5,
        (PASS, M(2, 1, False)): 0.25,
        (PASS, M(3, 3, False)): 0.125,
        (PASS, M(3, 4, False)): 0.125,
    },
    # team preview, three legal lead/back choices
    {0: 1 / 3, 1: 1 / 3, 7: 1 / 3},
]


def test_decision_entropies_hand_table():
    got = {k: float(v) for k, v in decision_entropies(*_policy(STEPS, [False, False, False, True])).items()}
    # joint entropies: turns 1.5596 (.25 x3, .125 x2), 0.6931 (ln 2), 1.2130 (.5, .25, .125 x2);
    # preview ln 3 = 1.0986
    assert got["entropy/turn"] == pytest.approx(
        (H(0.25, 0.25, 0.25, 0.125, 0.125) + H(0.5, 0.5) + H(0.5, 0.25, 0.125, 0.125)) / 3, abs=1e-5
    )
    assert got["entropy/preview"] == pytest.approx(math.log(3), abs=1e-5)
    # kinds: only step 1's slot 0 has a choice (move .75, tera .125, switch .125): 0.7356 nats;
    # the forced switch, the pass-only slots and step 3's move-only slot 1 do not count
    assert got["entropy/kind"] == pytest.approx(H(0.75, 0.125, 0.125), abs=1e-5)
    # the move given a move: step 1 slot 0: move 1 .625, move 2 .25 -> (5/7, 2/7), 0.5983 nats;
    # step 3 slot 1: move 3 .75, move 4 .25 -> 0.5623; mean 0.5803
    assert got["entropy/move"] == pytest.approx((H(5 / 7, 2 / 7) + H(0.75, 0.25)) / 2, abs=1e-5)
    # the target given the move, moves with two legal targets only: step 1 slot 0: move 1
    # (.375 at foe a, .25 at foe b -> .6/.4: 0.6730 nats), move 2 has one target;
    # step 3 slot 1: move 3 (.5/.25 -> 2/3, 1/3: 0.6365) weighs p(m) = 3/4, move 4
    # (.125/.125: ln 2 = 0.6931) 1/4: 0.6507; mean 0.6619
    want_target = (H(0.6, 0.4) + 0.75 * H(2 / 3, 1 / 3) + 0.25 * math.log(2)) / 2
    assert got["entropy/target"] == pytest.approx(want_target, abs=1e-5)
    # tera and switch mass on the steps where they are a choice: step 1 only (the forced
    # switch has nothing but switches)
    assert got["policy/tera_mass"] == pytest.approx(0.125, abs=1e-6)
    assert got["policy/switch_mass"] == pytest.approx(0.125, abs=1e-6)


def test_decision_entropies_read_each_slot_by_the_joint_layout():
    """The same turn with the slots swapped: the figures do not change."""
    swap = {(a1, a0): p for (a0, a1), p in STEPS[0].items()}
    got = [{k: float(v) for k, v in decision_entropies(*_policy([row], [False])).items()} for row in (STEPS[0], swap)]
    for k in ("entropy/kind", "entropy/move", "entropy/target", "policy/tera_mass", "policy/switch_mass"):
        assert got[0][k] == pytest.approx(got[1][k], abs=1e-6), k


def test_decision_entropies_are_nan_with_nothing_to_measure():
    got = decision_entropies(*_policy([STEPS[3], STEPS[1]], [True, False]))  # a preview and a forced switch
    assert set(got) == SPARSE
    assert float(got["entropy/preview"]) == pytest.approx(math.log(3), abs=1e-5)
    assert float(got["entropy/turn"]) == pytest.approx(math.log(2), abs=1e-5)
    for k in ("entropy/kind", "entropy/move", "entropy/target", "policy/tera_mass", "policy/switch_mass"):
        assert math.isnan(float(got[k])), k


def test_protect_and_status_masses_hand_table():
    """Step 1's slot 0: move 2 (index 1) is Protect, p = .25, and its other orders are
    not: a choice. Step 3's slot 1: move 3 (index 2) is a status move, p = .5 + .25 = .75.
    The forced switch, the preview and the pass-only slots have no such choice."""
    cls = torch.zeros(4, 2, 4, dtype=torch.long)
    cls[0, 0, 1] = PROTECT
    cls[2, 1, 2] = STATUS
    got = {k: float(v) for k, v in decision_entropies(*_policy(STEPS, [False, False, False, True]), cls).items()}
    assert got["policy/protect_mass"] == pytest.approx(0.25, abs=1e-6)
    assert got["policy/status_mass"] == pytest.approx(0.75, abs=1e-6)
    # every legal move of step 3's slot 1 a status move: no choice there, nothing to average
    cls[2, 1, 3] = STATUS
    got = decision_entropies(*_policy(STEPS, [False, False, False, True]), cls)
    assert math.isnan(float(got["policy/status_mass"])) and float(got["policy/protect_mass"]) == pytest.approx(0.25)


def test_move_classes_read_the_format_s_own_moves():
    from league.battle.obs import move_vocab_id

    for data in ("sv", "champions"):
        c = move_classes(data)
        assert int(c[0]) == int(c[1]) == DAMAGING  # no move, an unknown one
        for mid, want in (
            ("protect", PROTECT),
            ("wideguard", PROTECT),
            ("tailwind", STATUS),
            ("flamethrower", DAMAGING),
        ):
            assert int(c[move_vocab_id(mid)]) == want, (data, mid)


# ---------------------------------------------------------------- in the learner's update
SMALL = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)


def _padded_batch(seed: int = 0):
    b = _batch(seed=seed)
    b.valid = T_([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0]], dtype=torch.bool)
    return b


def test_the_update_reports_the_decision_figures_and_leaves_out_what_it_cannot_measure():
    m = Learner(LearnerConfig(), SMALL, seed=0).step(_batch())  # a preview step, then turns
    for k in ("value/explained_variance", "grad_clipped", "entropy/preview", "entropy/turn", "entropy/move"):
        assert k in m and math.isfinite(m[k]), k
    assert m["entropy/preview"] > 0 and m["value/explained_variance"] <= 1.0
    only_preview = Learner(LearnerConfig(), SMALL, seed=0).step(_batch(T=1))
    assert "entropy/preview" in only_preview and "entropy/turn" not in only_preview
    assert "entropy/kind" not in only_preview and math.isfinite(only_preview["loss/total"])


def test_the_update_reports_protect_and_status_masses_from_the_request_s_move_ids():
    """Recorded turns of the shipped teams (most carry Protect): the update's figure is
    decision_entropies' on the batch's policy with the classes of the moves it offered."""
    from league.battle.obs import split
    from league.learn.rnad import legal_log_policy

    L, b = Learner(LearnerConfig(), SMALL, seed=0), _batch()
    cls = move_classes("sv")[split(b.obs)["act_ids"].long()]
    assert (cls == PROTECT).any() and (cls == STATUS).any()
    with torch.no_grad():
        logits = L.net(b.obs, b.mask, b.is_preview, L.net.initial_state(b.obs.shape[1]))[0]
    n = b.mask.shape[0] * b.mask.shape[1]
    log_pi = legal_log_policy(logits.reshape(n, -1), b.mask.reshape(n, -1))
    want = decision_entropies(
        log_pi.exp() * b.mask.reshape(n, -1), log_pi, b.mask.reshape(n, -1), b.is_preview.reshape(n), cls.view(n, 2, 4)
    )
    m = L.step(b)
    for k in ("policy/protect_mass", "policy/status_mass"):
        if math.isnan(float(want[k])):
            assert k not in m, k
        else:
            assert m[k] == pytest.approx(float(want[k]), rel=1e-4), k
    assert "policy/protect_mass" in m


def _loss_grad_norm(L: Learner, b) -> float:
    """The norm of the gradient of update 0's loss, from the four networks' forwards."""
    h0 = L.net.initial_state(b.obs.shape[1])
    logits, v, _ = L.net(b.obs, b.mask, b.is_preview, h0)
    with torch.no_grad():
        vt = L.target(b.obs, b.mask, b.is_preview, h0)[1]
        lr, lp = (m(b.obs, b.mask, b.is_preview, h0)[0] for m in (L.reg, L.reg_prev))
    loss, _ = rnad_loss(
        logits, v, vt, lr, lp, L.schedule(0)[0], b.mask, b.valid, b.actions, b.mu_logp, b.reward, L.cfg.rnad
    )
    grads = torch.autograd.grad(loss, [p for p in L.net.parameters()], allow_unused=True)
    return float(torch.linalg.vector_norm(torch.stack([g.norm() for g in grads if g is not None])))


@pytest.mark.parametrize("clip, clipped", [(1e-6, 1.0), (1e9, 0.0)])
def test_grad_norm_is_the_norm_before_clipping(clip, clipped):
    L = Learner(LearnerConfig(grad_clip_norm=clip), SMALL, seed=4)
    b = _padded_batch()
    want = _loss_grad_norm(L, b)
    m = L.step(b)
    assert want > 1e-3 and m["grad_norm"] == pytest.approx(want, rel=1e-4)
    assert m["grad_clipped"] == clipped


def _kl_then(now: PolicyValueNet, then: PolicyValueNet, b) -> float:
    """Mean over valid steps of sum_a p(a) log(p(a) / q(a)) over the legal actions."""
    h0 = now.initial_state(b.obs.shape[1])
    with torch.no_grad():
        lp, lq = (
            torch.log_softmax(n(b.obs, b.mask, b.is_preview, h0)[0].masked_fill(~b.mask, -torch.inf), -1)
            for n in (now, then)
        )
    kl = (lp.exp() * (lp - lq)).where(b.mask, torch.zeros(())).sum(-1)
    return float(kl[b.valid].mean())


def test_kl_published_schedule_and_value():
    L = Learner(LearnerConfig(diag_every=2, lr=1e-2), SMALL, seed=1)
    nets = {0: copy.deepcopy(L.net)}
    got = {}
    for step in range(5):
        b = _padded_batch(seed=step)
        want = _kl_then(L.net, nets[step - 2], b) if step >= 2 else None
        m = L.step(b)
        nets[L.steps] = copy.deepcopy(L.net)
        if "policy/kl_published" in m:
            got[step] = (m["policy/kl_published"], want)
    # nothing at update 0 (no copy yet) nor 1, 3 (off schedule); KL(pi_2 || pi_0), KL(pi_4 || pi_2)
    assert sorted(got) == [2, 4]
    for step, (kl, want) in got.items():
        assert kl > 0 and kl == pytest.approx(want, rel=1e-4, abs=1e-7), step
    off = Learner(LearnerConfig(diag_every=0), SMALL, seed=1)
    assert not any("policy/kl_published" in off.step(_padded_batch(seed=s)) for s in range(3))


@pytest.mark.parametrize(
    "norm, want",
    [
        (5.0, (5.0, 0.0, 0.0)),
        (20.0, (20.0, 1.0, 0.0)),
        (10.0, (10.0, 0.0, 0.0)),
        (float("inf"), (None, None, 1.0)),
        (float("nan"), (None, None, 1.0)),
    ],
)
def test_grad_figures_table(norm, want):
    """clip 10: the pre-clip norm, clipped when above, an overflow (not finite) leaves both out."""
    from league.learn.learner import GRAD_FIGURES, StepMetrics, grad_figures

    got = StepMetrics(grad_figures(torch.tensor(norm), 10.0), {}, GRAD_FIGURES).get()
    assert (got.get("grad_norm"), got.get("grad_clipped"), got["amp/overflow"]) == want


def test_float16_updates_do_not_overflow_from_the_first_scale():
    """The CUDA float16 path on the CPU (autocast and GradScaler exist there too): from
    GradScaler's default first scale 2^16 this loss overflows and the first updates are
    skipped; from the learner's SCALER_INIT none is."""
    from league.learn.learner import SCALER_INIT

    skipped = {}
    for init in (2.0**16, SCALER_INIT):
        L = Learner(LearnerConfig(), ModelConfig(mon_dim=16, torso_dim=32, core_dim=32), seed=1)
        L.amp_dtype, L.use_amp = torch.float16, True
        L.scaler = torch.amp.GradScaler("cpu", init_scale=init)
        figures = [L.step(_batch()) for _ in range(3)]
        skipped[init] = sum(m["amp/overflow"] for m in figures)
        assert all(("grad_norm" in m) == (m["amp/overflow"] == 0.0) for m in figures)
    assert skipped == {2.0**16: 3, SCALER_INIT: 0}
