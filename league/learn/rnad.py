"""R-NaD losses as pure functions (Perolat et al. 2022, "Mastering the Game of Stratego
with Model-Free Multiagent Reinforcement Learning", arXiv 2206.15378), following the
OpenSpiel reference implementation's definitions and defaults.

Our trajectories are one player's decisions only, so every valid step belongs to the
learning player: after each of our steps the carried reward and importance weight
reset. By default the opponent's moves are part of the environment; with
``opponent_kl`` the two seats of a self-play battle that share a batch are each
other's opponent and the reference's two-player bookkeeping comes back through
:func:`opponent_terms` (the other seat's regularisation and importance ratios). Shapes: T steps x B trajectories x A
actions; ``valid`` [T, B] marks real steps (trajectories are right-padded).

Every function returns tensors that carry gradient where the maths says so; targets
are computed under ``torch.no_grad`` and the losses use them as constants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from league.learn.diagnostics import decision_entropies, explained_variance

POLICY_LOSSES = ("neurd", "ppo")  # RNaDLossConfig.policy_loss
NEURD_CENTRES = ("legal", "all")  # RNaDLossConfig.neurd_centre (see ``neurd_loss``)
PPO_ADVANTAGES = ("td", "q", "group")  # RNaDLossConfig.ppo_advantage (see ``rnad_loss``)
VTRACE_NETS = ("target", "online")  # RNaDLossConfig.vtrace_net


def legal_log_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log pi on legal actions, 0 on illegal ones (no -inf, no NaN)."""
    lg = logits.masked_fill(~mask, -torch.inf)
    logp = lg - torch.logsumexp(lg, dim=-1, keepdim=True)
    return logp.masked_fill(~mask, 0.0)


def mixed_log_policy(logits: list[torch.Tensor], weights: list[float], mask: torch.Tensor) -> torch.Tensor:
    """sum_i w_i log pi_i on legal actions, 0 on illegal ones: the logits of the geometric
    mixture pi ∝ prod_i pi_i^w_i (``legal_log_policy`` of it normalises it), the policy
    that a Nash-weighted portfolio regularises toward (league/population/portfolio.py)."""
    if len(logits) != len(weights) or not logits:
        raise ValueError(f"one weight per reference: {len(logits)} references, {len(weights)} weights")
    out = torch.zeros_like(logits[0], dtype=torch.float32)
    for lg, w in zip(logits, weights):
        out = out + float(w) * legal_log_policy(lg.float(), mask)
    return out


def legal_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.softmax(logits.masked_fill(~mask, -torch.inf), dim=-1).masked_fill(~mask, 0.0)


# the bound on log(pi / mu) where pi / mu would overflow (importance_ratio, ppo_clip_surrogate)
LOG_RATIO_CAP = 20.0


def importance_ratio(pi_taken: torch.Tensor, mu_logp: torch.Tensor) -> torch.Tensor:
    """pi(a_t) / mu(a_t), read in log space (capped at e^LOG_RATIO_CAP) where the quotient
    is not a number: mu(a_t) underflowed, a look-ahead's pick the network had all but
    dropped (``sim.search_mu=network``)."""
    ratio = pi_taken / mu_logp.exp()
    in_logs = torch.exp(torch.clamp(torch.log(pi_taken) - mu_logp, max=LOG_RATIO_CAP))
    return torch.where(torch.isfinite(ratio), ratio, in_logs)


@torch.no_grad()
def v_trace(
    v: torch.Tensor,  # [T, B] values (target network in R-NaD)
    valid: torch.Tensor,  # [T, B] bool
    pi: torch.Tensor,  # [T, B, A] current policy
    log_policy_reg: torch.Tensor,  # [T, B, A] log(pi / pi_reg) on legal actions
    actions: torch.Tensor,  # [T, B] long
    mu_logp: torch.Tensor,  # [T, B] behaviour log-prob of the taken action
    reward: torch.Tensor,  # [T, B]
    *,
    eta: float,
    lambda_: float = 1.0,
    c: float = 1.0,
    rho: float = float("inf"),
    gamma: float = 1.0,
    opponent: OpponentTerms | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """V-trace targets for the value and Q-estimates ("learning output") for NeuRD.

    Backwards over t, on valid steps (r_t already includes nothing of the transform):
      ratio_t   = pi(a_t) / mu(a_t)
      r~_t      = r_t - eta * sum_a pi log(pi/pi_reg)                  (reward transform)
      v^_t      = v_t + min(rho, ratio_t) (r~_t + g v_{t+1} - v_t) + lambda min(c, ratio_t) g (v^_{t+1} - v_{t+1})
      q_t(a)    = v_t - eta log(pi/pi_reg)(a) + 1[a=a_t] / mu(a_t) * (r_t + g v^_{t+1} - v_t)
    Invalid (padding) steps get 0 and reset the carry.

    With ``opponent`` (the other seat's steps between our step t and our next one, see
    :func:`opponent_terms`), as the reference's two-player v-trace: r~_t gains their
    unweighted +eta KL sum ``u_t``, the Q-estimate's reward gains their importance-weighted
    sum ``w_t``, and their importance ratio product ``is_t`` multiplies ratio_t in the
    v-target's clips and v^_{t+1} in the Q-estimate.
    """
    T, B, A = pi.shape
    assert v.shape == valid.shape == actions.shape == mu_logp.shape == reward.shape == (T, B), (v.shape, pi.shape)
    assert log_policy_reg.shape == (T, B, A)
    pi_taken = pi.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    # This line creates the regularised entropy term -eta * KL(pi || pi_reg) added to the reward.
    reg_entropy = -eta * (pi * log_policy_reg).sum(-1)
    v_target, coef = v_trace_steps(
        v, valid, pi_taken, mu_logp, reg_entropy, reward, lambda_=lambda_, c=c, rho=rho, gamma=gamma, opponent=opponent
    )
    onehot = torch.nn.functional.one_hot(actions, A).to(pi.dtype)
    q = (v.unsqueeze(-1) - eta * log_policy_reg + onehot * coef.unsqueeze(-1)) * valid.unsqueeze(-1).to(pi.dtype)
    return v_target, q


@torch.no_grad()
def v_trace_steps(
    v: torch.Tensor,  # [T, B]
    valid: torch.Tensor,  # [T, B] bool
    pi_taken: torch.Tensor,  # [T, B] pi(a_t)
    mu_logp: torch.Tensor,  # [T, B] log mu(a_t)
    reg_entropy: torch.Tensor,  # [T, B] -eta sum_a pi log(pi/pi_reg)
    reward: torch.Tensor,  # [T, B]
    *,
    lambda_: float = 1.0,
    c: float = 1.0,
    rho: float = float("inf"),
    gamma: float = 1.0,
    opponent: OpponentTerms | None = None,
    per_mu: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`v_trace`'s recursion on per-step scalars: the value targets v^_t and the
    taken action's Q coefficient (r_t + g v^_{t+1} - v_t) / mu(a_t), so that
    q_t(a) = v_t - eta log(pi/pi_reg)(a) + 1[a=a_t] coef_t. Nothing here is per action,
    so the learner assembles q on its valid steps only. ``per_mu`` False: the coefficient
    is not divided by mu(a_t) (PPO-td's advantage, the TD error itself: a behaviour
    probability that underflows to 0 leaves it finite).

    The importance ratio is :func:`importance_ratio`'s (finite where mu(a_t) underflows;
    rho and c clip it to 1 anyway)."""
    v_target = torch.zeros_like(v)
    coef = torch.zeros_like(v)
    next_value = torch.zeros_like(v[0])
    next_v_target = torch.zeros_like(v[0])
    mu_taken = mu_logp.exp() if per_mu else torch.ones_like(mu_logp)
    ratio = importance_ratio(pi_taken, mu_logp)
    if opponent is None:
        zero = torch.zeros_like(v)
        opp_u, opp_w, opp_is = zero, zero, torch.ones_like(v)
    else:
        opp_u, opp_w, opp_is = opponent.unweighted, opponent.weighted, opponent.ratio
    for t in range(v.shape[0] - 1, -1, -1):
        ok = valid[t].to(v.dtype)
        r_unc = reward[t] + reg_entropy[t] + opp_u[t]
        cs = ratio[t] * opp_is[t]
        vt = (
            v[t]
            + torch.clamp(cs, max=rho) * (r_unc + gamma * next_value - v[t])
            + lambda_ * torch.clamp(cs, max=c) * gamma * (next_v_target - next_value)
        )
        coef[t] = torch.where(
            valid[t], (reward[t] + opp_w[t] + gamma * opp_is[t] * next_v_target - v[t]) / mu_taken[t], 0.0
        )
        v_target[t] = vt * ok
        next_value = v[t] * ok
        next_v_target = vt * ok
    return v_target, coef


@dataclass
class OpponentTerms:
    """Per our step t [T, B]: what the other seat's steps until our next step add."""

    unweighted: torch.Tensor  # sum_j e_j, e_j = +eta KL(pi || pi_reg) at their step j
    weighted: torch.Tensor  # e_1 + cs_1 e_2 + cs_1 cs_2 e_3 + ... (cs_j their pi/mu)
    ratio: torch.Tensor  # prod_j cs_j
    paired: torch.Tensor  # [B] bool: the trajectory's partner is in the batch


@torch.no_grad()
def opponent_terms(
    kl: torch.Tensor,  # [T, B] KL(pi || pi_reg) at each trajectory's own steps
    ratio: torch.Tensor,  # [T, B] pi(a_t) / mu(a_t) at each trajectory's own steps
    valid: torch.Tensor,  # [T, B]
    order: torch.Tensor,  # [T, B] a trajectory's step keys within its battle (turn * 8 + k)
    battle: torch.Tensor,  # [B] battle key, 0: not an on-policy self-play seat
    eta: float,
) -> OpponentTerms:
    """The reference's ``_player_others`` bookkeeping for one batch of single-seat
    trajectories: a self-play battle's two seats (same nonzero ``battle`` key) are each
    other's opponent. Each opponent step is credited to our last step whose key is not
    later than its own (a simultaneous decision counts as after ours, like the reference's
    player order within a turn); the opponent's regularisation enters our reward with the
    sign flipped (+eta KL), so the regularised game stays zero-sum. Trajectories without
    their partner in the batch get nothing (0, 0, ratio 1)."""
    T, B = valid.shape
    u = torch.zeros(T, B, dtype=kl.dtype)
    w = torch.zeros(T, B, dtype=kl.dtype)
    prod = torch.ones(T, B, dtype=kl.dtype)
    paired = torch.zeros(B, dtype=torch.bool)
    keys = battle.tolist()
    seats: dict[int, list[int]] = {}
    for b, k in enumerate(keys):
        if k != 0:
            seats.setdefault(k, []).append(b)
    e = (eta * kl).cpu().tolist()
    cs = ratio.cpu().tolist()
    val = valid.cpu().tolist()
    od = order.cpu().tolist()
    uu, ww, pp = u.tolist(), w.tolist(), prod.tolist()
    for pair in seats.values():
        if len(pair) != 2:
            continue
        for b, o in (pair, pair[::-1]):
            ours = [t for t in range(T) if val[t][b]]
            j = 0
            for s in range(T):
                if not val[s][o]:
                    continue
                while j + 1 < len(ours) and od[ours[j + 1]][b] <= od[s][o]:
                    j += 1
                if not ours or od[ours[j]][b] > od[s][o]:
                    continue  # before our first step: nothing of ours to credit
                t = ours[j]
                uu[t][b] += e[s][o]
                ww[t][b] += pp[t][b] * e[s][o]
                pp[t][b] *= cs[s][o]
            paired[b] = True
    dev = kl.device
    return OpponentTerms(
        torch.tensor(uu, dtype=kl.dtype, device=dev),
        torch.tensor(ww, dtype=kl.dtype, device=dev),
        torch.tensor(pp, dtype=kl.dtype, device=dev),
        paired.to(dev),
    )


def legal_columns(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, A] legal mask -> ``cols`` [N, L] (each step's legal actions, ascending, then
    padding that points at column 0) and ``legal`` [N, L] (which entries are real), L one
    more than the most legal actions of any step: the last column is padding in every row
    (where :func:`rnad_loss` points a taken action that was not legal). A step has ~80
    legal joint actions of 2,025 (a random battle's mean; at most ~500), so per-action
    work on the gathered columns is a fraction of the full grid's."""
    N = mask.shape[0]
    counts = mask.sum(-1)
    width = (int(counts.max()) if N else 0) + 1
    rows, cols = mask.nonzero(as_tuple=True)  # row-major: each row's columns ascending
    pos = torch.arange(rows.shape[0], device=mask.device) - (counts.cumsum(0) - counts)[rows]
    out = torch.zeros(N, width, dtype=torch.long, device=mask.device)
    out[rows, pos] = cols
    return out, torch.arange(width, device=mask.device) < counts.unsqueeze(-1)


def _renormalize(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    w = valid.to(x.dtype)
    n = w.sum()
    return (x * w).sum() / torch.clamp(n, min=1.0)


@torch.no_grad()
def masked_kl(logits_p: torch.Tensor, logits_q: torch.Tensor, mask: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Mean over valid decisions of KL(p || q), both restricted to the legal actions."""
    log_p = legal_log_policy(logits_p, mask)
    log_q = legal_log_policy(logits_q, mask)
    kl = (log_p.exp() * mask * (log_p - log_q)).sum(-1)
    return _renormalize(kl, valid)


def value_loss(v: torch.Tensor, v_target: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Mean over valid steps of (v - sg(v_target))^2."""
    return _renormalize((v - v_target.detach()) ** 2, valid)


def centred_logits(
    logits: torch.Tensor, mask: torch.Tensor, centre: str = "legal", n_actions: int | None = None
) -> torch.Tensor:
    """Logits minus NeuRD's threshold centre (illegal entries 0); see ``neurd_loss``.
    ``n_actions``: the size of the whole action space when the last dimension holds only
    some of it (the legal columns, :func:`legal_columns`): centre "all" divides by it."""
    lg = logits.masked_fill(~mask, 0.0)
    if centre == "legal":
        return lg - lg.sum(-1, keepdim=True) / mask.sum(-1, keepdim=True).clamp(min=1)
    if centre == "all":
        return lg - lg.sum(-1, keepdim=True) / (n_actions or lg.shape[-1])
    raise ValueError(f"neurd centre must be one of {NEURD_CENTRES}, got {centre!r}")


def threshold_walls(
    logits: torch.Tensor,
    mask: torch.Tensor,
    valid: torch.Tensor,
    beta: float,
    centre: str = "legal",
    n_actions: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Shares of valid steps whose most likely action sits at or above +beta (NeuRD can
    no longer raise it) and whose least likely one at or below -beta. When the first
    nears 1 the policy cannot get sharper than the threshold lets it."""
    lg = centred_logits(logits, mask, centre, n_actions)
    top = lg.masked_fill(~mask, -float("inf")).amax(-1) >= beta
    bottom = lg.masked_fill(~mask, float("inf")).amin(-1) <= -beta
    return _renormalize(top.float(), valid), _renormalize(bottom.float(), valid)


def neurd_loss(
    logits: torch.Tensor,  # [T, B, A] raw (may be masked) logits, with gradient
    pi: torch.Tensor,  # [T, B, A]
    q: torch.Tensor,  # [T, B, A] from v_trace
    mask: torch.Tensor,  # [T, B, A] legal actions
    valid: torch.Tensor,  # [T, B]
    *,
    beta: float = 2.0,
    clip: float = 10_000.0,
    centre: str = "legal",
    n_actions: int | None = None,
) -> torch.Tensor:
    """NeuRD: push logits along the (clipped) advantage, but not past +-beta around a
    centre (the threshold stops logits from drifting without bound).

    ``centre="legal"``: the mean of the legal logits, invariant to the shift softmax
    ignores. ``centre="all"``: the OpenSpiel reference's mean over every action with
    illegal ones counted as 0, which is the legal mean only when nearly all actions are
    legal; with ~100 of 2,025 joint actions legal it sits near 0 whatever the logits.
    ``n_actions``: see :func:`centred_logits`."""
    adv = q - (pi * q).sum(-1, keepdim=True)
    adv = torch.clamp(adv, -clip, clip).detach()
    lg = centred_logits(logits, mask, centre, n_actions)
    can_decrease = lg > -beta
    can_increase = lg < beta
    force = can_decrease * torch.clamp(adv, max=0.0) + can_increase * torch.clamp(adv, min=0.0)
    per_step = (mask * lg * force.detach()).sum(-1)
    return -_renormalize(per_step, valid)


def standardise(x: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """(x - mean) / (std + eps) over all of x (a batch's valid steps); one value: 0."""
    if x.numel() < 2:
        return torch.zeros_like(x)
    return (x - x.mean()) / (x.std() + eps)


def ppo_clip_loss(
    log_pi: torch.Tensor,  # [T, B, A] legal log policy, with gradient
    pi: torch.Tensor,
    q: torch.Tensor,
    actions: torch.Tensor,
    mu_logp: torch.Tensor,
    valid: torch.Tensor,
    *,
    epsilon: float = 0.2,
    dual_clip: float = 0.0,
) -> torch.Tensor:
    """PPO-clip on the taken action with advantage q(a_t) - sum_a pi q (selectable instead of NeuRD)."""
    adv = (q - (pi * q).sum(-1, keepdim=True)).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return ppo_clip_surrogate(log_pi, adv, actions, mu_logp, valid, epsilon=epsilon, dual_clip=dual_clip)


def ppo_clip_surrogate(
    log_pi: torch.Tensor,  # [..., A] legal log policy, with gradient
    adv: torch.Tensor,  # [...] the taken action's advantage
    actions: torch.Tensor,
    mu_logp: torch.Tensor,
    valid: torch.Tensor,
    *,
    epsilon: float = 0.2,
    dual_clip: float = 0.0,
) -> torch.Tensor:
    """-mean over valid steps of min(r A, clip(r, 1 - eps, 1 + eps) A), r = pi(a_t) / mu(a_t).

    ``dual_clip`` c > 1 (0: off): where A < 0 the term is also bounded below by c A (Ye et
    al. 2020's dual-clip PPO), so a step whose ratio has grown far past 1 pushes its action
    down by at most c |A| and then not at all: without it, -r A grows with r, unbounded.

    The log-ratio is capped at :data:`LOG_RATIO_CAP` (r <= e^20): a behaviour log-prob of
    ~-100 (a look-ahead's pick the network had all but dropped, ``sim.search_mu=network``)
    otherwise makes r overflow to inf, and the clipped branch's zero gradient times inf is
    NaN. Where r > 1 + eps with A > 0, or r > c with A < 0 under the dual clip, the term has
    no gradient anyway, so the cap changes nothing there."""
    adv = adv.detach()
    logp = log_pi.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    ratio = torch.exp(torch.clamp(logp - mu_logp, max=LOG_RATIO_CAP))
    surr = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - epsilon, 1 + epsilon) * adv)
    if dual_clip > 0:
        surr = torch.where(adv < 0, torch.maximum(surr, dual_clip * adv), surr)
    return -_renormalize(surr, valid)


@torch.no_grad()
def ppo_ratio_figures(logp: torch.Tensor, mu_logp: torch.Tensor, valid: torch.Tensor, epsilon: float) -> dict:
    """How off-policy a batch is for PPO: over valid steps, the share whose ratio
    r = pi(a_t) / mu(a_t) lies outside [1 - eps, 1 + eps] (where the clip can act), and the
    mean |r - 1|."""
    ratio = torch.exp(torch.clamp(logp - mu_logp, max=LOG_RATIO_CAP))
    out = ((ratio < 1 - epsilon) | (ratio > 1 + epsilon)).to(ratio.dtype)
    return {"ppo/clip_frac": _renormalize(out, valid), "ppo/ratio_dev": _renormalize((ratio - 1).abs(), valid)}


def entropy(pi: torch.Tensor, log_pi: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    return _renormalize(-(pi * log_pi).sum(-1), valid)


def logit_spread(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per step [N]: the mean squared distance of the legal logits from their mean (the
    legal logits' variance; illegal ones do not count). Its gradient on a logit,
    2 (z_a - mean) / n_legal, does not vanish as pi(a) does: a penalty on it keeps an
    action the policy has all but dropped within reach, where an entropy bonus (whose
    gradient is ~pi(a)) cannot."""
    m = mask.to(logits.dtype)
    n = m.sum(-1).clamp(min=1.0)
    z = logits * m  # illegal logits (-1e9) out
    centred = (z - (z.sum(-1) / n).unsqueeze(-1)) * m
    return (centred * centred).sum(-1) / n


class EntropySchedule:
    """Iterations of the regularisation policy (the reference's EntropySchedule).

    ``sizes`` / ``repeats``: e.g. sizes=(100, 1000), repeats=(3, 1) gives iterations
    starting at steps 0, 100, 200, 300, 1300, 2300, ... (the last size repeats forever).
    At step s inside an iteration [start, start+size): alpha = min(2 (s-start)/size, 1),
    and at each iteration start (s > 0) pi_reg is replaced.
    """

    def __init__(self, sizes: tuple[int, ...], repeats: tuple[int, ...]):
        if len(sizes) != len(repeats) or not sizes:
            raise ValueError(f"sizes {sizes} and repeats {repeats} must be non-empty and parallel")
        if any(r <= 0 for r in repeats) or any(s <= 0 for s in sizes) or repeats[-1] != 1:
            raise ValueError(f"sizes/repeats must be positive and the last repeat 1: {sizes}, {repeats}")
        sched = [0]
        for size, rep in zip(sizes, repeats):
            base = sched[-1]
            sched.extend(base + (i + 1) * size for i in range(rep))
        self.schedule = np.asarray(sched, dtype=np.int64)

    def __call__(self, step: int) -> tuple[float, bool]:
        s = self.schedule
        last_size = int(s[-1] - s[-2])
        if step >= s[-1]:
            start = int(s[-1] + (step - s[-1]) // last_size * last_size)
            size = last_size
        else:
            k = int(np.searchsorted(s, step, side="right")) - 1
            start, size = int(s[k]), int(s[k + 1] - s[k])
        alpha = min(2.0 * (step - start) / size, 1.0)
        return alpha, bool(step > 0 and step == start)


@dataclass
class RNaDLossConfig:
    eta: float = 0.2  # reward transform weight (reference eta_reward_transform)
    lambda_vtrace: float = 1.0  # v-trace lambda (reference: 1); < 1 bootstraps sooner
    c_vtrace: float = 1.0  # v-trace trace-cutting clip c-bar (reference: 1)
    rho_vtrace: float = float("inf")  # v-trace importance clip rho-bar (reference: inf; finite off-policy)
    gamma: float = 1.0  # discount (1: undiscounted, the battle outcome counts whole)
    policy_loss: str = "neurd"  # one of POLICY_LOSSES
    # NeuRD moves a logit only within +-beta of the centre. The reference's 2 (and its
    # centre "all") flattens a sharp start (BC) within ~200 updates, its preferred logits
    # being past the wall where they can only fall: experiments/neurd_threshold.
    neurd_beta: float = 10.0
    neurd_centre: str = "legal"  # NEURD_CENTRES: legal: mean of legal logits; all: the reference's mean, all actions
    neurd_clip: float = 10_000.0  # NeuRD clips the Q-estimates to +-this (reference 10^4)
    ppo_epsilon: float = 0.2  # PPO-clip ratio range (policy_loss=ppo only)
    # Dual-clip PPO's bound c on a negative advantage's term (policy_loss=ppo only; 0: off,
    # else > 1): a step whose ratio pi/mu grew past c pushes its action down no further.
    # Needed by sim.search_mu=network, whose behaviour log-probs are the network's own.
    ppo_dual_clip: float = 0.0
    # The advantage PPO pushes the taken action by (policy_loss=ppo only). td: v-trace's
    # r_t - eta log(pi/pi_reg)(a_t) + v^_{t+1} - v_t, PPO's and IMPALA's own; q: NeuRD's
    # importance-weighted q(a_t) - sum_a pi q, whose taken-action term is divided by
    # mu(a_t) (unbiased for the all-actions update, variance ~ 1/mu(a_t)); group: the
    # return to go minus the mean return of earlier battles of the same team pair (a
    # per-pair baseline, league/learn/pairs.py; no value in the advantage), minus eta
    # log(pi/pi_reg)(a_t).
    ppo_advantage: str = "td"
    # PPO's advantages standardised per batch (policy_loss=ppo with ppo_advantage td or
    # group): (A - mean) / std over the batch's valid steps, reward transform included, as
    # PPO implementations commonly do; off: the TD errors as they are (~0.1-0.7 here), so
    # the policy's share of the gradient shrinks as the value learns.
    ppo_adv_norm: bool = False
    # ppo_advantage=group: the per-pair mean follows a pair's last ~1/group_rate battles
    group_rate: float = 0.05
    # Whose value v-trace reads (its targets, TD errors and so PPO-td's advantages):
    # "target", the target network's (the reference's; with ``target_ema`` 0.01 it trails
    # the online value by ~100 updates), or "online", the value being trained (PPO's and
    # IMPALA's own baseline; the learner then skips the target network's forward: -9 to
    # -12 % CPU an update, strength no different at 2,500 updates on three seeds,
    # experiments/issue31_online_value; reg_c's choice).
    vtrace_net: str = "target"
    value_coef: float = 1.0  # weight of the squared value loss
    entropy_coef: float = 0.0  # weight of an entropy bonus (0: none; R-NaD regularises by eta)
    # Weight of a penalty on the legal logits' variance per step (0: none). Unbounded
    # logits let PPO drop whole kinds of action (Protect, switching, status moves) to
    # probabilities of 1e-13..1e-29, where neither its gradient nor an entropy bonus's can
    # bring them back; this one's gradient does not vanish (``logit_spread``).
    logit_l2: float = 0.0
    # The reference's two-player bookkeeping for self-play battles whose two seats are in
    # one batch: the other seat's +eta KL and importance ratios enter our v-trace
    # (``opponent_terms``). Off: the opponent is part of the environment.
    opponent_kl: bool = False


def rnad_loss(
    logits: torch.Tensor,
    v: torch.Tensor,
    v_target_net: torch.Tensor,
    logits_reg: torch.Tensor,
    logits_reg_prev: torch.Tensor,
    alpha: float,
    mask: torch.Tensor,
    valid: torch.Tensor,
    actions: torch.Tensor,
    mu_logp: torch.Tensor,
    reward: torch.Tensor,
    cfg: RNaDLossConfig,
    battle: torch.Tensor | None = None,
    order: torch.Tensor | None = None,
    is_preview: torch.Tensor | None = None,
    move_class: torch.Tensor | None = None,
    group_adv: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Total R-NaD loss and its terms (all tensors; terms with gradient where they should).
    ``battle`` [B] and ``order`` [T, B] pair self-play seats for ``cfg.opponent_kl``.
    Diagnostics among the terms (league/learn/diagnostics.py): ``value/explained_variance``
    always, and with ``is_preview`` [T, B] the entropies and masses by decision (with
    ``move_class`` [T, B, 2, 4] the Protect and status masses too). ``group_adv`` [T, B]:
    each step's return to go less its team pair's baseline (``ppo_advantage=group``).

    Everything per action is computed on the valid steps' legal actions only ([N, L], N =
    valid.sum(), L one more than the most legal actions of a step: :func:`legal_columns`):
    padded steps and illegal actions cost nothing (~6x less per-action work than the
    [N, 2,025] grid), and the time recursion runs on [T, B] scalars."""
    T, B = valid.shape
    idx = valid.reshape(-1).nonzero().squeeze(1)

    def steps(x: torch.Tensor) -> torch.Tensor:  # [T, B, ...] -> [N, ...]
        return x.reshape(T * B, *x.shape[2:]).index_select(0, idx)

    def grid(x: torch.Tensor) -> torch.Tensor:  # [N] -> [T, B], 0 on padded steps
        return x.new_zeros(T * B).index_copy(0, idx, x).view(T, B)

    # every per-action term on each step's legal columns only ([N, L]); illegal actions
    # carry no probability and no gradient, so what is left out changes nothing
    full_mask = steps(mask)
    n_actions = full_mask.shape[-1]
    cols, mask = legal_columns(full_mask)
    logits = steps(logits).gather(-1, cols)
    # the taken action's column; an illegal one (probability 0) points at the last, padding
    hit = (cols == steps(actions).unsqueeze(-1)) & mask
    act = torch.where(hit.any(-1), hit.to(torch.uint8).argmax(-1), cols.shape[-1] - 1)
    ones = torch.ones(idx.shape[0], dtype=torch.bool, device=valid.device)
    log_pi = legal_log_policy(logits, mask)
    pi = log_pi.exp() * mask
    with torch.no_grad():
        log_reg = legal_log_policy(steps(logits_reg).gather(-1, cols), mask)
        log_reg_prev = (
            log_reg
            if logits_reg_prev is logits_reg
            else legal_log_policy(steps(logits_reg_prev).gather(-1, cols), mask)
        )
        # This line creates the reward transform log(pi / pi_reg), mixing the two last
        # regularisation policies by alpha so the reward changes smoothly between iterations.
        log_policy_reg = (log_pi - (alpha * log_reg + (1 - alpha) * log_reg_prev)) * mask
        kl_steps = (pi * log_policy_reg).sum(-1)  # [N]
        pi_taken = pi.gather(-1, act.unsqueeze(-1)).squeeze(-1)
        # PPO on v-trace's TD error (or a group baseline) reads the taken action's TD error
        # itself, not divided by mu(a_t) (which a behaviour probability of ~e^-100 makes inf)
        td_advantage = cfg.policy_loss == "ppo" and cfg.ppo_advantage in ("td", "group")
        opp = None
        if cfg.opponent_kl and battle is not None and order is not None:
            ratio = importance_ratio(grid(pi_taken), mu_logp)
            opp = opponent_terms(grid(kl_steps), ratio, valid, order, battle, cfg.eta)
        v_target, coef = v_trace_steps(
            v_target_net,
            valid,
            grid(pi_taken),
            mu_logp,
            grid(-cfg.eta * kl_steps),
            reward,
            lambda_=cfg.lambda_vtrace,
            c=cfg.c_vtrace,
            rho=cfg.rho_vtrace,
            gamma=cfg.gamma,
            opponent=opp,
            per_mu=not td_advantage,
        )
        q = None
        if cfg.policy_loss == "neurd" or cfg.ppo_advantage == "q":  # PPO-td needs no per-action q
            onehot = torch.nn.functional.one_hot(act, mask.shape[-1]).to(pi.dtype)
            q = steps(v_target_net).unsqueeze(-1) - cfg.eta * log_policy_reg + onehot * steps(coef).unsqueeze(-1)
    loss_v = value_loss(v, v_target, valid)
    extra = {}
    if cfg.policy_loss == "neurd":
        assert q is not None  # (made above for neurd)
        loss_pi = neurd_loss(
            logits,
            pi.detach(),
            q,
            mask,
            ones,
            beta=cfg.neurd_beta,
            clip=cfg.neurd_clip,
            centre=cfg.neurd_centre,
            n_actions=n_actions,
        )
        with torch.no_grad():
            top, bottom = threshold_walls(logits, mask, ones, cfg.neurd_beta, cfg.neurd_centre, n_actions)
        extra = {"neurd/top_at_beta": top, "neurd/bottom_at_beta": bottom}
    elif cfg.policy_loss == "ppo" and cfg.ppo_advantage == "q":
        assert q is not None  # (made above for PPO on q)
        loss_pi = ppo_clip_loss(
            log_pi, pi.detach(), q, act, steps(mu_logp), ones, epsilon=cfg.ppo_epsilon, dual_clip=cfg.ppo_dual_clip
        )
    elif cfg.policy_loss == "ppo" and cfg.ppo_advantage in ("td", "group"):
        with torch.no_grad():
            if cfg.ppo_advantage == "td":  # coef is the taken action's TD error (per_mu False)
                base = steps(coef)
            elif group_adv is None:
                raise ValueError("ppo_advantage=group needs group_adv: the returns less their pairs' baselines")
            else:
                base = steps(group_adv)
            # the reward transform on top
            adv = base - cfg.eta * log_policy_reg.gather(-1, act.unsqueeze(-1)).squeeze(-1)
            adv_abs = adv.abs().mean()
            if cfg.ppo_adv_norm:
                adv = standardise(adv)
        loss_pi = ppo_clip_surrogate(
            log_pi, adv, act, steps(mu_logp), ones, epsilon=cfg.ppo_epsilon, dual_clip=cfg.ppo_dual_clip
        )
        taken = log_pi.detach().gather(-1, act.unsqueeze(-1)).squeeze(-1)
        extra = {"ppo/adv_abs": adv_abs, **ppo_ratio_figures(taken, steps(mu_logp), ones, cfg.ppo_epsilon)}
    else:
        raise ValueError(
            f"policy_loss must be one of {POLICY_LOSSES} (ppo_advantage one of {PPO_ADVANTAGES}), "
            f"got {cfg.policy_loss!r} / {cfg.ppo_advantage!r}"
        )
    h_steps = -(pi * log_pi).sum(-1)  # [N]: each step's entropy (the diagnostics' too)
    ent = _renormalize(h_steps, ones)
    total = loss_pi + cfg.value_coef * loss_v - cfg.entropy_coef * ent
    if cfg.logit_l2 > 0:
        spread = logit_spread(logits, mask)
        total = total + cfg.logit_l2 * _renormalize(spread, ones)
        extra["policy/logit_std"] = spread.detach().sqrt().mean()
    else:
        with torch.no_grad():
            extra["policy/logit_std"] = logit_spread(logits, mask).sqrt().mean()
    kl_reg = _renormalize(kl_steps, ones)
    with torch.no_grad():
        extra["value/explained_variance"] = explained_variance(v.detach(), v_target, valid)
        if is_preview is not None:
            classes = None if move_class is None else steps(move_class)
            # (on the whole action grid: its marginals are by slot order; pi is 0 off the legal columns)
            pi_full = torch.zeros_like(full_mask, dtype=pi.dtype).scatter_add_(-1, cols, pi.detach())
            extra.update(decision_entropies(pi_full, None, full_mask, steps(is_preview), classes, h=h_steps.detach()))
    if opp is not None:
        extra["opponent/paired"] = opp.paired.float().mean()
        extra["opponent/kl_bonus"] = _renormalize(opp.unweighted, valid)
        extra["opponent/ratio"] = _renormalize(opp.ratio, valid)
    with torch.no_grad():  # the size of the importance-weighted q's taken-action term, 1 / mu(a_t) and |coef|
        extra["q/inv_mu_taken"] = steps(torch.exp(-mu_logp)).mean()
        extra["q/coef_abs"] = steps(coef if not td_advantage else coef * torch.exp(-mu_logp)).abs().mean()
    return total, {
        "loss/policy": loss_pi,
        "loss/value": loss_v,
        "entropy": ent,
        "kl_to_reg": kl_reg,
        "v_target_mean": _renormalize(v_target, valid),
        **extra,
    }
