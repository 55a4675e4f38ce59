"""Learning from the look-ahead (expert iteration; ``sim.search_share``, ``learner.search_coef``).

On a share of the main agent's move requests the simulator plays one turn ahead on copies
of the battle among the network's likeliest joint actions (league/sim/lookahead.py) and
keeps the pick as the step's target (``Trajectory.target``; -1 where the step was not
searched). The agent still plays its own draw, so R-NaD's data stay on-policy; beside its
loss the learner adds ``search_coef`` x the cross-entropy of the policy to the picks: the
search is a policy-improvement operator (it beats the network it searches with: 0.845
against 0.63 vs ``maxdamage``, experiments/issue27_search) and the network is pulled
toward what it finds, as AlphaZero's policy toward its search's visits (ExIt's apprentice
toward its expert). Measured so far (experiments/issue27_exit_screen, one seed, 2,500
updates, two settings): greedy play no different, the sampling policy worse. The pick
repeats in only ~half of the move requests under another seed (near-ties one turn of
material cannot separate), so the target is half tie-break. Off by default.
"""

from __future__ import annotations

import torch

from league.learn.rnad import legal_log_policy

SEARCH_FIGURES = ("search/ce", "search/agree")  # NaN (left out) on a batch without targets


def search_target_loss(
    logits: torch.Tensor, mask: torch.Tensor, target: torch.Tensor, valid: torch.Tensor
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The mean over the steps with a target (``target`` [T, B] >= 0, on valid steps) of
    -log pi(target) under the masked policy of ``logits`` [T, B, A] (0 with no target:
    no gradient), and its figures: ``search/ce`` (the same, NaN without targets),
    ``search/agree`` (the share of targets that are the policy's likeliest action) and
    ``search/targets`` (how many). No device sync (:func:`check_targets` checks the
    host batch)."""
    has = (target >= 0) & valid
    t = target.clamp(min=0)
    logp = legal_log_policy(logits, mask)
    nll = -logp.gather(-1, t[..., None]).squeeze(-1)
    n = has.sum()
    w = has.to(nll.dtype)
    loss = (nll * w).sum() / n.clamp(min=1).to(nll.dtype)
    with torch.no_grad():
        nan = torch.full_like(loss, float("nan"))
        agree = ((logits.masked_fill(~mask, -torch.inf).argmax(-1) == t) & has).sum().to(nll.dtype)
        figures = {
            "search/ce": torch.where(n > 0, loss.detach(), nan),
            "search/agree": torch.where(n > 0, agree / n.clamp(min=1).to(nll.dtype), nan),
            "search/targets": n.to(nll.dtype),
        }
    return loss, figures


def check_targets(target: torch.Tensor, mask: torch.Tensor, valid: torch.Tensor) -> None:
    """ValueError when a step's target is out of range or not legal there: its log-prob
    would read legal_log_policy's filler 0 and teach nothing (a misaligned batch)."""
    has = (target >= 0) & valid
    if not bool(has.any()):
        return
    if int(target.max()) >= mask.shape[-1]:
        raise ValueError(f"a search target is past the {mask.shape[-1]} actions (a misaligned batch)")
    legal = mask.gather(-1, target.clamp(min=0)[..., None]).squeeze(-1)
    if bool((has & ~legal).any()):
        raise ValueError("a search target is not a legal action of its step (a misaligned batch)")
