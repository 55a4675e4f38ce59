"""An auxiliary task for the policy's state (``model.aux_hp``, ``learner.aux_hp_coef``).

At each turn decision the network also predicts how each of the 12 Pokemon's HP
fraction (the observation's ``mons`` ``hp_frac``) will have changed by the side's next
decision: which of ours the foes hit and how hard, what ours do to theirs. The target
is what then happened, read from the next step's observation of the same trajectory, so
it costs no new data. Protect and switching pay only where the foes' targets are
foreseen (experiments/issue27_behaviour); this gives the state a dense, low-variance
signal about exactly that, beside the value's one outcome a battle.

Steps that count: a valid step with a valid next step, not team preview (the own rows
are reordered by the choice of four: row ``i`` is not the same Pokemon before and
after it).
"""

from __future__ import annotations

import torch

from league.battle.obs import MON_FEATURES, split

HP = MON_FEATURES.index("hp_frac")


def hp_change_targets(
    obs: torch.Tensor, valid: torch.Tensor, is_preview: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """From time-major ``obs`` [T, B, OBS_DIM]: each step's 12 HP changes to the next step
    [T, B, 12] and which steps count [T, B] bool (the last step of each trajectory, padded
    steps and team preview do not)."""
    hp = split(obs)["mons"][..., HP].float()  # [T, B, 12]
    target = torch.zeros_like(hp)
    target[:-1] = hp[1:] - hp[:-1]
    ok = torch.zeros_like(valid)
    ok[:-1] = valid[:-1] & valid[1:] & ~is_preview[:-1]
    return target * ok.unsqueeze(-1), ok


def aux_hp_loss(
    pred: torch.Tensor, obs: torch.Tensor, valid: torch.Tensor, is_preview: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The mean squared error of ``pred`` [T, B, 12] against :func:`hp_change_targets`
    over the steps that count (mean over the 12 Pokemon, then over the steps; 0 when none
    count), and its explained variance (1 - SSE / the targets' sum of squares about their
    mean, over the same entries; 0 when the targets do not vary): how much of what
    happened the state foresaw."""
    target, ok = hp_change_targets(obs, valid, is_preview)
    w = ok.unsqueeze(-1).to(pred.dtype)
    n = ok.sum().clamp(min=1).to(pred.dtype)
    sq = ((pred - target) ** 2) * w
    loss = sq.sum() / (n * pred.shape[-1])
    with torch.no_grad():
        entries = n * pred.shape[-1]
        mean = (target * w).sum() / entries
        total = (((target - mean) * w) ** 2).sum()
        ev = torch.where(total > 1e-12, 1.0 - sq.detach().sum() / total.clamp(min=1e-12), torch.zeros_like(total))
    return loss, ev
