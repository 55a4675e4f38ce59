"""R-NaD learner: one object, one impure ``step(batch)``. Knows nothing of processes.

State: the online network, the target network (EMA of the online one), the two last
regularisation networks (pi_reg, pi_reg_prev), the optimizer and the step counter.
Each step:
  alpha, new_iteration = schedule(step)
  loss = rnad_loss(online, target values, pi_reg, pi_reg_prev mixed by alpha)
  Adam step (gradient-norm clipping; on CUDA: fused Adam, AMP in bfloat16, or float16
  with a GradScaler)
  target <- target + ema * (online - target)
  if new_iteration: pi_reg_prev <- pi_reg; pi_reg <- target
With a portfolio of reference networks set (``set_portfolio``), the regulariser of a
step is instead the reference closest to the online policy on that batch (min KL), or,
with weights (strategy ``nash``), the weighted geometric mixture of all of them
(league/population/portfolio.py says why). Every ``diag_every`` updates one more forward,
of a copy of the online network kept from the last such update, measures how far the
policy moved in between (``policy/kl_published``).

Nothing in a step waits for the device to log: the rewards (and their logged terms) are
computed on the host batch before it moves, the forwards find the real steps from the
host's ``valid``, and the metrics are one stacked tensor copied to pinned host memory
behind a CUDA event (:class:`StepMetrics`), read when the caller asks for them (the
learner process: one update later). What still waits: the loss's gather of the real
steps and of their legal actions (``rnad_loss`` indexes by the device's ``valid`` and
``mask``: ``legal_columns``), GradScaler's inf check (float16
only; bfloat16 needs no scaler) and, with a min-KL portfolio, the KLs that choose the
reference (a weighted portfolio chooses nothing and waits for nothing).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from dataclasses import dataclass, field

import torch

from league.battle.obs import split
from league.learn.augment import drop_ids
from league.learn.auxiliary import aux_hp_loss
from league.learn.diagnostics import SPARSE, move_classes
from league.learn.pairs import PairBaseline, returns_to_go
from league.learn.reward import ReturnNormalizer, RewardConfig, build_rewards
from league.learn.rnad import EntropySchedule, RNaDLossConfig, masked_kl, mixed_log_policy, rnad_loss
from league.learn.search_target import SEARCH_FIGURES, check_targets, search_target_loss
from league.model.net import ModelConfig, PolicyValueNet
from league.population.portfolio import closest_reference
from league.transport.data import Batch

AMP_DTYPES = ("auto", "float16", "bfloat16")


@dataclass
class PortfolioConfig:
    """Portfolio R-NaD: regularise toward a few reference policies chosen among the
    league's frozen members instead of pi_reg: the closest one (min KL on the batch), or
    with strategy nash their mixture weighted by the Nash weights."""

    size: int = 0  # references, 1-5 (3-5 as in the seed); 0: plain R-NaD
    strategy: str = "diverse"  # one of STRATEGIES in league/population/portfolio.py
    update_every_s: float = 120.0  # how often the main process revises the portfolio


@dataclass
class LearnerConfig:
    device: str = "auto"  # one of DEVICES (league/device.py); auto: cuda when available
    batch_size: int = 16  # trajectories per update
    # gradient steps taken on each batch (PPO's epochs), each one update: 2 learns twice
    # from every battle (later steps' ratio to the behaviour policy is clipped, policy_loss=ppo).
    # 1: an hour of 2 made 1.8x the updates and played worse on unseen teams (0.590 against
    # 0.672 greedy vs maxdamage, experiments/issue27_epochs2_60min)
    epochs: int = 1
    lr: float = 3e-4  # Adam learning rate
    # the learning rate falls linearly from lr to lr * lr_final over the first
    # lr_decay_updates updates, then stays there (0: constant lr)
    lr_decay_updates: int = 0
    lr_final: float = 0.1  # the learning rate's end of decay, as a fraction of lr
    # R-NaD's eta (learner.rnad.eta) falls linearly to eta * eta_final over the first
    # eta_decay_updates updates, then stays there (0: constant eta): a strong pull toward
    # pi_reg early, a sharper fixed point later (issue 27's "eta annealed")
    eta_decay_updates: int = 0
    eta_final: float = 0.2  # eta's end of decay, as a fraction of learner.rnad.eta
    # the team-preview head's (preview_mon, preview_query, preview_out) learning rate as
    # a multiple of the schedule's; 1: one rate for all. Team preview stays uniform for
    # reg_c's first ~1,100 updates; x10 halves that and plays worse on unseen teams, 0.539
    # against 0.623 at 2,500 updates, two seeds (experiments/issue27_preview_lr)
    preview_lr_scale: float = 1.0
    adam_b1: float = 0.0  # reference: beta1 = 0
    adam_b2: float = 0.999  # Adam beta2 (reference 0.999)
    adam_eps: float = 1e-8  # Adam epsilon
    grad_clip_norm: float = 10.0  # the gradient's global norm is clipped to this
    # each known species/item/ability/move id of a trajectory's Pokemon read as "unknown"
    # with this probability while learning, the same for all its steps (league/learn/augment.py)
    id_dropout: float = 0.0
    # weight of the auxiliary HP-change loss (league/learn/auxiliary.py) for a network built
    # with model.aux_hp (none without it)
    aux_hp_coef: float = 10.0
    # weight of the cross-entropy toward the look-ahead's picks (sim.search_share; league/learn/search_target.py)
    search_coef: float = 1.0
    target_ema: float = 0.001  # reference target_network_avg
    schedule_sizes: list[int] = field(default_factory=lambda: [500])  # Delta_m updates per regularisation iteration
    # how many iterations of each size in schedule_sizes (the last repeats forever: must be 1)
    schedule_repeats: list[int] = field(default_factory=lambda: [1])
    amp: bool = True  # mixed precision on CUDA (CPU always float32: bfloat16 measured slower there)
    amp_dtype: str = "auto"  # one of AMP_DTYPES; auto: bfloat16 where the GPU supports it, else float16
    compile: bool = False  # torch.compile the networks' forward (a warm-up step compiles it before learning)
    publish_every: int = 1  # publish weights to the simulator every N updates
    # every N updates, policy/kl_published: KL(pi now || pi N updates ago) on the batch
    # (one more forward, of a copy of the online network kept from the last time); 0: off
    diag_every: int = 50
    checkpoint_every: int = 100  # updates
    keep_checkpoints: int = 3  # periodic checkpoints kept on disk (older ones deleted; the final one always kept)
    rnad: RNaDLossConfig = field(default_factory=RNaDLossConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    portfolio: PortfolioConfig = field(default_factory=PortfolioConfig)


SCALER_INIT = 2.0**8  # GradScaler's first scale (float16 only): see Learner.__init__
GRAD_FIGURES = frozenset({"grad_norm", "grad_clipped"})  # NaN (left out) on an update float16 overflowed


def grad_figures(grad_norm: torch.Tensor, clip: float) -> dict[str, torch.Tensor]:
    """An update's gradient figures, without a device sync: ``grad_norm`` the total norm
    before clipping (what clip_grad_norm_ returns), ``grad_clipped`` 1 when it was above
    ``clip``, ``amp/overflow`` 1 when it is not finite: under float16 GradScaler then
    skips the step (and lowers its scale), and the other two are NaN, left out."""
    finite = torch.isfinite(grad_norm)
    nan = torch.full_like(grad_norm, float("nan"))
    return {
        "grad_norm": torch.where(finite, grad_norm, nan),
        "grad_clipped": torch.where(finite, (grad_norm > clip).to(grad_norm.dtype), nan),
        "amp/overflow": (~finite).to(grad_norm.dtype),
    }


PREVIEW_HEAD = ("preview_mon", "preview_query", "preview_out")  # league/model/net.py's team-preview head


def param_groups(net: torch.nn.Module, preview_lr_scale: float) -> list[dict]:
    """Adam's parameter groups: one (every parameter at the schedule's rate), or with
    ``preview_lr_scale`` != 1 the team-preview head apart, its ``lr_scale`` that factor."""
    if preview_lr_scale == 1.0:
        return [{"params": list(net.parameters())}]
    preview = [p for name, p in net.named_parameters() if name.split(".")[0] in PREVIEW_HEAD]
    if not preview:
        raise ValueError("learner.preview_lr_scale: this network has no team-preview head")
    ids = {id(p) for p in preview}
    rest = [p for p in net.parameters() if id(p) not in ids]
    return [{"params": rest}, {"params": preview, "lr_scale": preview_lr_scale}]


def linear_decay(value: float, final: float, updates: int, step: int) -> float:
    """``value`` at update ``step`` (0-based), falling linearly to ``value * final`` over
    ``updates`` updates, then flat; ``value`` throughout when ``updates`` <= 0."""
    if updates <= 0:
        return value
    frac = min(step, updates) / updates
    return value * (1.0 - frac * (1.0 - final))


def lr_at(cfg: LearnerConfig, step: int) -> float:
    """The learning rate of update ``step`` (0-based): linear from ``lr`` to
    ``lr * lr_final`` over ``lr_decay_updates`` updates, then flat; constant without decay."""
    return linear_decay(cfg.lr, cfg.lr_final, cfg.lr_decay_updates, step)


def eta_at(cfg: LearnerConfig, step: int) -> float:
    """R-NaD's eta at update ``step`` (0-based): linear from ``rnad.eta`` to
    ``rnad.eta * eta_final`` over ``eta_decay_updates`` updates, then flat."""
    return linear_decay(cfg.rnad.eta, cfg.eta_final, cfg.eta_decay_updates, step)


def amp_dtype(cfg: LearnerConfig, device: torch.device) -> torch.dtype | None:
    """The autocast dtype of a learner on ``device`` (None: float32)."""
    if cfg.amp_dtype not in AMP_DTYPES:
        raise ValueError(f"learner.amp_dtype must be one of {AMP_DTYPES}, got {cfg.amp_dtype!r}")
    if not cfg.amp or device.type != "cuda":
        return None
    if cfg.amp_dtype == "auto":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return getattr(torch, cfg.amp_dtype)


class StepMetrics:
    """One update's metrics without a device sync: the tensor ones are stacked and copied
    to (pinned) host memory behind a CUDA event; :meth:`get` waits for that copy only.
    A ``sparse`` metric that is NaN (nothing to measure it on in this batch) is left out."""

    def __init__(self, tensors: dict[str, torch.Tensor], host: dict[str, float], sparse: frozenset = frozenset()):
        self.names = list(tensors)
        self.host = host
        self.sparse = sparse
        self.event = None
        values = torch.stack([t.detach().float().reshape(()) for t in tensors.values()])
        if values.is_cuda:
            self.values = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
            self.values.copy_(values, non_blocking=True)
            self.event = torch.cuda.Event()
            self.event.record()
        else:
            self.values = values

    def get(self) -> dict[str, float]:
        if self.event is not None:
            self.event.synchronize()
        out = {k: v for k, v in zip(self.names, self.values.tolist()) if not (k in self.sparse and math.isnan(v))}
        out.update(self.host)
        return out


class Learner:
    def __init__(
        self,
        cfg: LearnerConfig,
        model_cfg: ModelConfig | None = None,
        device: str = "cpu",
        seed: int = 0,
        data: str = "sv",
    ):
        """``data``: the game data of the format it learns ("sv", "champions"; dex.data_of)."""
        torch.manual_seed(seed)
        self.cfg = cfg
        self.device = torch.device(device)
        self.net = PolicyValueNet(model_cfg, data=data).to(self.device)
        self._move_class = move_classes(data).to(self.device)
        self.target = copy.deepcopy(self.net).requires_grad_(False)
        self.reg = copy.deepcopy(self.net).requires_grad_(False)
        self.reg_prev = copy.deepcopy(self.net).requires_grad_(False)
        on_cuda = self.device.type == "cuda"
        # fused: one kernel for all parameters (CUDA only); on the CPU the multi-tensor
        # (foreach) form, the same arithmetic, which torch picks by default only on CUDA
        self.opt = torch.optim.Adam(
            param_groups(self.net, cfg.preview_lr_scale),
            lr=cfg.lr,
            betas=(cfg.adam_b1, cfg.adam_b2),
            eps=cfg.adam_eps,
            fused=True if on_cuda else None,
            foreach=None if on_cuda else True,
        )
        self._target_params: list[torch.Tensor] = list(self.target.parameters())
        self._online_params: list[torch.Tensor] = list(self.net.parameters())
        self.schedule = EntropySchedule(tuple(cfg.schedule_sizes), tuple(cfg.schedule_repeats))
        self.amp_dtype = amp_dtype(cfg, self.device)
        self.use_amp = self.amp_dtype is not None
        # float16 needs loss scaling (its range); bfloat16 has float32's exponent and does not
        # (its first scale 2^8, not 2^16: this loss's gradients, norm ~10^2, overflow float16
        # at 2^16 and the first ~8 updates would be skipped while the scale comes down)
        self.scaler = torch.amp.GradScaler("cuda", init_scale=SCALER_INIT, enabled=self.amp_dtype == torch.float16)
        # the four networks' forwards compiled with cfg.compile (dynamic: one graph for every
        # batch shape: T, B and the real steps vary); portfolio references run eager
        nets = (self.net, self.target, self.reg, self.reg_prev)
        self.forwards = {id(n): torch.compile(n, dynamic=True) for n in nets} if cfg.compile else {}
        self.steps = 0
        self.reg_iterations = 0
        self.portfolio: list[tuple[str, PolicyValueNet]] = []  # (member id, frozen network)
        self.portfolio_weights: list[float] = []  # one per reference (nash), or [] (the closest by KL)
        self.diag_net: PolicyValueNet | None = None  # the online network at the last kl_published measurement
        rc = cfg.reward
        self.normalizer = ReturnNormalizer(rc.normalize_decay, rc.normalize_min_std) if rc.normalize else None
        # rnad.ppo_advantage=group: each team pair's mean return so far
        self.pairs = PairBaseline(cfg.rnad.group_rate) if cfg.rnad.ppo_advantage == "group" else None
        # the last batch and what depends on it alone (its rewards, its group advantages, their
        # figures): another epoch on the same batch reads them again, its battles counted once
        self._batch_last: tuple[Batch, tuple] | None = None

    def set_portfolio(self, refs: list[tuple[str, PolicyValueNet]], weights: list[float] | None = None) -> None:
        """Regularise toward ``refs`` from the next step: the closest by KL, or with
        ``weights`` (one per reference, >= 0, summing to 1) their weighted geometric mixture."""
        weights = [float(w) for w in weights or []]
        if weights and (len(weights) != len(refs) or min(weights) < 0 or abs(sum(weights) - 1.0) > 1e-6):
            raise ValueError(
                f"portfolio weights must be one per reference, >= 0, summing to 1: got {weights} "
                f"for {len(refs)} references"
            )
        self.portfolio = [(mid, net.to(self.device).eval().requires_grad_(False)) for mid, net in refs]
        self.portfolio_weights = weights

    def _kl_published(self, b: Batch, valid_host: torch.Tensor, logits: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every ``diag_every`` updates: ``policy/kl_published``, the mean over the batch's
        valid steps of KL(pi now || pi then), pi then the online network kept at the last
        measurement ({} at the first: nothing kept yet); keeps the online network for the
        next. ``logits``: the online network's on ``b``, from before this update."""
        every = self.cfg.diag_every
        if every <= 0 or self.steps % every:
            return {}
        out = {}
        if self.diag_net is not None:
            with torch.no_grad(), self._autocast():
                then = self._forward(self.diag_net, b, valid_host)[0]
            out["policy/kl_published"] = masked_kl(logits.detach(), then, b.mask, b.valid)
            self.diag_net.load_state_dict(self.net.state_dict())
        else:
            self.diag_net = copy.deepcopy(self.net).requires_grad_(False)
        return out

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=self.amp_dtype or torch.float32, enabled=self.use_amp)

    def _forward(self, net, b: Batch, valid_host: torch.Tensor, policy: bool = True, aux: bool = False):
        """Logits (None without ``policy``) and value, float32; with ``aux`` (the online
        network of model.aux_hp) also its predicted HP changes."""
        fwd = self.forwards.get(id(net), net)
        h0 = net.initial_state(b.obs.shape[1], self.device)
        logits, v, *rest = fwd(b.obs, b.mask, b.is_preview, h0, policy=policy, valid=valid_host, aux=aux)
        out = ((logits.float() if logits is not None else None), v.float())
        return (*out, rest[1]) if aux else out

    @property
    def aux_hp(self) -> bool:
        """Whether updates train the auxiliary HP head (model.aux_hp and a positive weight)."""
        return hasattr(self.net, "aux_hp_head") and self.cfg.aux_hp_coef > 0

    def warm_up(self, batch: Batch) -> None:
        """Run every forward and the backward once on ``batch`` without changing any state
        (weights, optimiser, counters, normaliser): with ``compile`` this is where the
        graphs are compiled, before the first real update is timed or logged."""
        b = batch.to(self.device)
        with self._autocast():
            if self.aux_hp:
                logits, v, hp = self._forward(self.net, b, batch.valid, aux=True)
                v = v + hp.sum() * 0.0  # (the head's backward too)
            else:
                logits, v = self._forward(self.net, b, batch.valid)
            with torch.no_grad():
                self._forward(self.target, b, batch.valid, policy=False)
                for net in (self.reg, self.reg_prev):
                    self._forward(net, b, batch.valid)
        (logits.masked_fill(~b.mask, 0.0).sum() + v.sum()).backward()
        self.opt.zero_grad(set_to_none=True)

    def step(self, batch: Batch) -> dict[str, float]:
        """One update; its metrics as floats (waits for them: see :meth:`step_async`)."""
        return self.step_async(batch).get()

    def step_async(self, batch: Batch) -> StepMetrics:
        """One update; returns its metrics without waiting for the device."""
        reward, reward_terms, group_adv, group_terms = self._batch_terms(batch)
        # (a batch without targets, sim.search_share 0: no term, no figures)
        search = self.cfg.search_coef > 0 and batch.target is not None and bool((batch.target >= 0).any())
        if search and batch.target is not None:
            check_targets(batch.target, batch.mask, batch.valid)
        samples = int(batch.valid.sum())
        valid_host = batch.valid
        b = batch.to(self.device)
        # the request moves' classes, for the diagnostics' Protect and status masses
        move_class = self._move_class[split(b.obs)["act_ids"].long().clamp(0, self._move_class.shape[0] - 1)]
        if self.cfg.id_dropout > 0.0:  # every network of this update reads the same hidden ids
            b = dataclasses.replace(b, obs=drop_ids(b.obs, self.cfg.id_dropout, per_trajectory=True))
        reward = reward.to(self.device, non_blocking=True)
        if group_adv is not None:
            group_adv = group_adv.to(self.device, non_blocking=True)
        alpha, new_iteration = self.schedule(self.steps)
        # no regularisation (a best response, an exploiter): every term pi_reg enters is
        # multiplied by eta, so its forwards are not computed (log(pi / pi_reg) taken as 0;
        # kl_to_reg is not reported)
        no_reg = not self.portfolio and self.cfg.rnad.eta == 0.0
        with self._autocast():
            hp_pred = None
            if self.aux_hp:
                logits, v, hp_pred = self._forward(self.net, b, valid_host, aux=True)
            else:
                logits, v = self._forward(self.net, b, valid_host)
            with torch.no_grad():
                if self.cfg.rnad.vtrace_net == "online":  # v-trace reads the value being trained
                    v_target_net = v.detach()
                else:
                    _, v_target_net = self._forward(self.target, b, valid_host, policy=False)
                if no_reg:
                    logits_reg = logits_reg_prev = logits.detach()
                elif not self.portfolio:  # (with a portfolio its references replace both)
                    logits_reg = self._forward(self.reg, b, valid_host)[0]
                    # alpha = 1 (the second half of an iteration) gives pi_reg_prev weight 0:
                    # the reward transform is then exactly log(pi / pi_reg), no forward needed.
                    logits_reg_prev = logits_reg if alpha >= 1.0 else self._forward(self.reg_prev, b, valid_host)[0]
        host: dict[str, float] = {**reward_terms, **group_terms}
        kl_terms: dict[str, torch.Tensor] = {}
        if self.portfolio:
            with torch.no_grad(), self._autocast():
                ref_logits = [self._forward(net, b, valid_host)[0] for _, net in self.portfolio]
            kl_terms = {
                f"portfolio/kl/{i}": masked_kl(logits.detach(), lr, b.mask, b.valid) for i, lr in enumerate(ref_logits)
            }
            if self.portfolio_weights:  # toward every reference by its Nash weight: prod_i pi_i^w_i
                with torch.no_grad():
                    logits_reg = logits_reg_prev = mixed_log_policy(ref_logits, self.portfolio_weights, b.mask)
                host.update({f"portfolio/weight/{i}": w for i, w in enumerate(self.portfolio_weights)})
            else:  # toward the closest reference this step (the choice waits for the KLs)
                k = closest_reference([float(v) for v in kl_terms.values()])
                logits_reg = logits_reg_prev = ref_logits[k]
                host["portfolio/chosen"] = k
        diag = self._kl_published(b, valid_host, logits)
        rnad_cfg = self.cfg.rnad
        if self.cfg.eta_decay_updates > 0:
            rnad_cfg = dataclasses.replace(rnad_cfg, eta=eta_at(self.cfg, self.steps))
            host["eta"] = rnad_cfg.eta
        loss, terms = rnad_loss(
            logits,
            v,
            v_target_net,
            logits_reg,
            logits_reg_prev,
            alpha,
            b.mask,
            b.valid,
            b.actions,
            b.mu_logp,
            reward,
            rnad_cfg,
            battle=b.battle,
            order=b.order,
            is_preview=b.is_preview,
            move_class=move_class,
            group_adv=group_adv,
        )
        if no_reg:
            terms.pop("kl_to_reg")  # pi_reg was not computed
        if search and b.target is not None:
            search_loss, search_terms = search_target_loss(logits, b.mask, b.target, b.valid)
            loss = loss + self.cfg.search_coef * search_loss
            terms.update(search_terms)
        if hp_pred is not None:
            aux_loss, aux_ev = aux_hp_loss(hp_pred, b.obs, b.valid, b.is_preview)
            loss = loss + self.cfg.aux_hp_coef * aux_loss
            terms["aux/hp_loss"] = aux_loss.detach()
            terms["aux/hp_explained_variance"] = aux_ev
        self.opt.zero_grad(set_to_none=True)
        lr = lr_at(self.cfg, self.steps)
        for group in self.opt.param_groups:
            group["lr"] = lr * group.get("lr_scale", 1.0)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.opt)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.grad_clip_norm)
        self.scaler.step(self.opt)
        self.scaler.update()
        with torch.no_grad():
            # target <- (1 - ema) target + ema online
            torch._foreach_lerp_(self._target_params, self._online_params, self.cfg.target_ema)
            if new_iteration:
                self.reg_prev.load_state_dict(self.reg.state_dict())
                self.reg.load_state_dict(self.target.state_dict())
                self.reg_iterations += 1
        self.steps += 1
        host.update({"lr": lr, "alpha": alpha, "reg_iterations": self.reg_iterations, "samples": samples})
        return StepMetrics(
            {**terms, **kl_terms, **diag, "loss/total": loss, **grad_figures(grad_norm, self.cfg.grad_clip_norm)},
            host,
            SPARSE | GRAD_FIGURES | frozenset(SEARCH_FIGURES),
        )

    def _batch_terms(self, batch: Batch) -> tuple:
        """The batch's rewards and their figures, then its group advantages and theirs
        (:meth:`_group_advantage`), once per batch: another epoch on the same batch
        (learner.epochs > 1) reads them again, so its returns update the normaliser and
        the pairs' baselines once. Rewards on the host batch (shaping reads observations):
        no device sync for their terms."""
        if self.pairs is not None and batch.group is None:
            raise ValueError("ppo_advantage=group needs each trajectory's team pair (Batch.group)")
        if self._batch_last is not None and self._batch_last[0] is batch:
            return self._batch_last[1]
        reward, reward_terms = build_rewards(
            batch.reward, batch.obs, batch.valid, self.cfg.reward, self.cfg.rnad.gamma, self.normalizer
        )
        terms = (reward, reward_terms, *self._group_advantage(batch, reward))
        self._batch_last = (batch, terms)
        return terms

    def _group_advantage(self, batch: Batch, reward: torch.Tensor) -> tuple[torch.Tensor | None, dict[str, float]]:
        """rnad.ppo_advantage=group: [T, B] each step's return to go less its team pair's
        baseline (from earlier batches only; this batch's battles count after), and the
        figures: ``group/explained_variance`` (1 - var(return - baseline) / var(return)
        over the batch's battles: how much of the outcome the pairs' means explain, to
        hold against ``value/explained_variance``) and ``group/pairs`` (pairs seen)."""
        if self.pairs is None or batch.group is None:  # (a missing key: refused by _batch_terms)
            return None, {}
        g = returns_to_go(reward, batch.valid, self.cfg.rnad.gamma)
        keys = [int(k) for k in batch.group.tolist()]
        base = torch.tensor(self.pairs.lookup(keys), dtype=g.dtype)
        first = g[0]
        self.pairs.update(keys, first.tolist())
        terms = {"group/pairs": float(len(self.pairs))}
        var = float(first.var(unbiased=False))
        if var > 1e-8:  # (a batch of equal returns explains nothing: left out)
            terms["group/explained_variance"] = 1.0 - float((first - base).var(unbiased=False)) / var
        adv = (g - base) * batch.valid
        return adv, terms

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
            "pairs": self.pairs.state_dict() if self.pairs is not None else None,
        }

    def reset(self, initial: dict) -> None:
        """Back to ``initial`` (a :meth:`state_dict` taken at start: networks and a fresh
        optimiser) as a league exploiter does; the update counters go on."""
        steps, iterations = self.steps, self.reg_iterations
        self.load_state_dict(initial)
        self.steps, self.reg_iterations = steps, iterations

    def load_state_dict(self, sd: dict) -> None:
        self.diag_net = None  # kl_published starts over: no figure across a jump of the weights
        for k in ("net", "target", "reg", "reg_prev"):
            getattr(self, k).load_state_dict(sd[k])
        self.opt.load_state_dict(sd["opt"])
        self.scaler.load_state_dict(sd["scaler"])
        self.steps = int(sd["steps"])
        self.reg_iterations = int(sd["reg_iterations"])
        if self.normalizer is not None and sd.get("normalizer"):
            self.normalizer.load_state_dict(sd["normalizer"])
        if self.pairs is not None and sd.get("pairs"):
            self.pairs.load_state_dict(sd["pairs"])
