"""R-NaD learner: one object, one impure ``step(batch)``. Knows nothing of processes.

State: the online network, the target network (EMA of the online one), the two last
regularisation networks (pi_reg, pi_reg_prev), the optimizer and the step counter.
Each step:
  alpha, new_iteration = schedule(step)
  loss = rnad_loss(online, target values, pi_reg, pi_reg_prev mixed by alpha)
  Adam step (gradient-norm clipping; AMP + GradScaler on CUDA)
  target <- target + ema * (online - target)
  if new_iteration: pi_reg_prev <- pi_reg; pi_reg <- target
With a portfolio of reference networks set (``set_portfolio``), the regulariser of a
step is instead the reference closest to the online policy on that batch (min KL).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch

from league.learn.reward import ReturnNormalizer, RewardConfig, build_rewards
from league.learn.rnad import EntropySchedule, RNaDLossConfig, masked_kl, rnad_loss
from league.model.net import ModelConfig, PolicyValueNet
from league.population.portfolio import closest_reference

DEVICES = ("auto", "cpu", "cuda")  # LearnerConfig.device; auto: cuda when available (config.resolve_device)


@dataclass
class PortfolioConfig:
    """Portfolio R-NaD: regularise toward the closest (min KL on the batch) of a few
    reference policies chosen among the league's frozen members, instead of pi_reg."""

    size: int = 0  # references (3-5 to enable it); 0: plain R-NaD
    strategy: str = "diverse"  # one of STRATEGIES in league/population/portfolio.py
    update_every_s: float = 120.0  # how often the main process revises the portfolio


@dataclass
class LearnerConfig:
    device: str = "auto"  # one of DEVICES
    batch_size: int = 16  # trajectories per update
    lr: float = 3e-4
    adam_b1: float = 0.0  # reference: beta1 = 0
    adam_b2: float = 0.999
    adam_eps: float = 1e-8
    grad_clip_norm: float = 10.0
    target_ema: float = 0.001  # reference target_network_avg
    schedule_sizes: list[int] = field(default_factory=lambda: [500])  # Delta_m updates per regularisation iteration
    schedule_repeats: list[int] = field(default_factory=lambda: [1])
    amp: bool = True  # only used on CUDA
    publish_every: int = 1  # publish weights to the simulator every N updates
    checkpoint_every: int = 100  # updates
    keep_checkpoints: int = 3
    rnad: RNaDLossConfig = field(default_factory=RNaDLossConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    portfolio: PortfolioConfig = field(default_factory=PortfolioConfig)


@dataclass
class Batch:
    """Right-padded trajectories, time-major. A = 2025 (preview steps use 0..89)."""

    obs: torch.Tensor  # [T, B, OBS_DIM] float32
    mask: torch.Tensor  # [T, B, A] bool
    is_preview: torch.Tensor  # [T, B] bool
    actions: torch.Tensor  # [T, B] long
    mu_logp: torch.Tensor  # [T, B] float32, behaviour log-prob of the taken action
    reward: torch.Tensor  # [T, B] float32 (terminal only by default)
    valid: torch.Tensor  # [T, B] bool
    # For rnad.opponent_kl: battle key per trajectory (0: no self-play partner) and each
    # step's key within its battle (turn * 8 + decisions already taken that turn).
    battle: torch.Tensor | None = None  # [B] long
    order: torch.Tensor | None = None  # [T, B] long

    def to(self, device) -> "Batch":
        return Batch(*(None if (x := getattr(self, f)) is None else x.to(device, non_blocking=True)
                       for f in self.__dataclass_fields__))


class Learner:
    def __init__(self, cfg: LearnerConfig, model_cfg: ModelConfig | None = None, device: str = "cpu", seed: int = 0):
        torch.manual_seed(seed)
        self.cfg = cfg
        self.device = torch.device(device)
        self.net = PolicyValueNet(model_cfg).to(self.device)
        self.target = copy.deepcopy(self.net).requires_grad_(False)
        self.reg = copy.deepcopy(self.net).requires_grad_(False)
        self.reg_prev = copy.deepcopy(self.net).requires_grad_(False)
        self.opt = torch.optim.Adam(
            self.net.parameters(), lr=cfg.lr, betas=(cfg.adam_b1, cfg.adam_b2), eps=cfg.adam_eps
        )
        self.schedule = EntropySchedule(tuple(cfg.schedule_sizes), tuple(cfg.schedule_repeats))
        self.use_amp = cfg.amp and self.device.type == "cuda"
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)
        self.steps = 0
        self.reg_iterations = 0
        self.portfolio: list[tuple[str, PolicyValueNet]] = []  # (member id, frozen network)
        rc = cfg.reward
        self.normalizer = ReturnNormalizer(rc.normalize_decay, rc.normalize_min_std) if rc.normalize else None

    def set_portfolio(self, refs: list[tuple[str, PolicyValueNet]]) -> None:
        self.portfolio = [(mid, net.to(self.device).eval().requires_grad_(False)) for mid, net in refs]

    def _forward(self, net, b: Batch, policy: bool = True):
        h0 = net.initial_state(b.obs.shape[1], self.device)
        logits, v, _ = net(b.obs, b.mask, b.is_preview, h0, policy=policy, valid=b.valid)
        return (logits.float() if logits is not None else None), v.float()

    def step(self, batch: Batch) -> dict[str, float]:
        b = batch.to(self.device)
        alpha, new_iteration = self.schedule(self.steps)
        with torch.autocast(self.device.type, dtype=torch.float16, enabled=self.use_amp):
            logits, v = self._forward(self.net, b)
            with torch.no_grad():
                _, v_target_net = self._forward(self.target, b, policy=False)
                if not self.portfolio:  # (with a portfolio the closest reference replaces both)
                    logits_reg = self._forward(self.reg, b)[0]
                    # alpha = 1 (the second half of an iteration) gives pi_reg_prev weight 0:
                    # the reward transform is then exactly log(pi / pi_reg), no forward needed.
                    logits_reg_prev = logits_reg if alpha >= 1.0 else self._forward(self.reg_prev, b)[0]
        extra: dict[str, float] = {}
        if self.portfolio:  # regularise toward the closest reference this step
            with torch.no_grad(), torch.autocast(self.device.type, dtype=torch.float16, enabled=self.use_amp):
                ref_logits = [self._forward(net, b)[0] for _, net in self.portfolio]
            kls = [float(masked_kl(logits.detach(), lr, b.mask, b.valid)) for lr in ref_logits]
            k = closest_reference(kls)
            logits_reg = logits_reg_prev = ref_logits[k]
            extra = {f"portfolio/kl/{i}": v for i, v in enumerate(kls)}
            extra["portfolio/chosen"] = k
        reward, reward_terms = build_rewards(b.reward, b.obs, b.valid, self.cfg.reward, self.cfg.rnad.gamma,
                                             self.normalizer)
        extra.update(reward_terms)
        loss, terms = rnad_loss(
            logits, v, v_target_net, logits_reg, logits_reg_prev, alpha,
            b.mask, b.valid, b.actions, b.mu_logp, reward, self.cfg.rnad, battle=b.battle, order=b.order,
        )
        self.opt.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.opt)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.grad_clip_norm)
        self.scaler.step(self.opt)
        self.scaler.update()
        with torch.no_grad():
            # target <- (1 - ema) target + ema online
            for pt, p in zip(self.target.parameters(), self.net.parameters()):
                pt.lerp_(p, self.cfg.target_ema)
            if new_iteration:
                self.reg_prev.load_state_dict(self.reg.state_dict())
                self.reg.load_state_dict(self.target.state_dict())
                self.reg_iterations += 1
        self.steps += 1
        out = {k: float(t.detach()) for k, t in terms.items()}
        out.update(extra)
        out.update({"loss/total": float(loss.detach()), "grad_norm": float(grad_norm), "alpha": alpha,
                    "reg_iterations": self.reg_iterations, "samples": int(b.valid.sum())})
        return out

    # ------------------------------------------------------------------ checkpoint state
    def state_dict(self) -> dict:
        return {
            "net": self.net.state_dict(),
            "target": self.target.state_dict(),
            "reg": self.reg.state_dict(),
            "reg_prev": self.reg_prev.state_dict(),
            "opt": self.opt.state_dict(),
            "scaler": self.scaler.state_dict(),
            "steps": self.steps,
            "reg_iterations": self.reg_iterations,
            "normalizer": self.normalizer.state_dict() if self.normalizer is not None else None,
        }

    def reset(self, initial: dict) -> None:
        """Back to ``initial`` (a :meth:`state_dict` taken at start: networks and a fresh
        optimiser) as a league exploiter does; the update counters go on."""
        steps, iterations = self.steps, self.reg_iterations
        self.load_state_dict(initial)
        self.steps, self.reg_iterations = steps, iterations

    def load_state_dict(self, sd: dict) -> None:
        for k in ("net", "target", "reg", "reg_prev"):
            getattr(self, k).load_state_dict(sd[k])
        self.opt.load_state_dict(sd["opt"])
        self.scaler.load_state_dict(sd["scaler"])
        self.steps = int(sd["steps"])
        self.reg_iterations = int(sd["reg_iterations"])
        if self.normalizer is not None and sd.get("normalizer"):
            self.normalizer.load_state_dict(sd["normalizer"])
