"""The run's configuration schema, registered in Hydra's ConfigStore, and its check.

Each component owns its settings as a dataclass, typed, defaulted and documented once
(``ModelConfig`` in league/model/net.py, ``SimConfig`` in league/sim/simulator.py,
``LearnerConfig`` and its ``RNaDLossConfig`` in league/learn/). YAML under conf/ only
sets values. ``verify(cfg)`` checks the whole config at start-up and reports every
problem together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from league.learn.learner import DEVICES, LearnerConfig
from league.learn.rnad import NEURD_CENTRES, POLICY_LOSSES
from league.model.net import ModelConfig
from league.population.league import LeagueConfig
from league.population.portfolio import STRATEGIES as PORTFOLIO_STRATEGIES
from league.population.registry import SCRIPTED_ROLES
from league.population.sampling import PFSP_WEIGHTINGS, SAMPLING_STRATEGIES
from league.population.selection import SELECTION_SCORES
from league.sim.simulator import SimConfig


@dataclass
class ShowdownConf:
    format: str = "gen9vgc2023regc"  # Showdown format id
    teams: str | None = None  # team pool directory; None = the shipped pool


@dataclass
class RunConf:
    seed: int = 0
    serial: bool = False  # simulator and learner in this one process (debugging, fast tests)
    max_updates: int = 0  # stop after this many learner updates (0: no limit)
    max_minutes: float = 0.0  # stop after this wall time (0: no limit)
    progress_every_s: float = 10.0  # console progress line period
    init_checkpoint: str | None = None  # start the network from this checkpoint's weights
    max_learner_restarts: int = 3  # a dead or silent main learner restarts from its last checkpoint
    max_sim_restarts: int = 3  # a dead or silent simulator restarts (new fleet; lanes told again)
    heartbeat_timeout_s: float = 120.0  # a learner or the simulator silent this long is hung (and restarted)


@dataclass
class Config:
    resume: bool = False  # continue the run in the run directory (hydra.run.dir=...) from its last checkpoint
    run: RunConf = field(default_factory=RunConf)
    showdown: ShowdownConf = field(default_factory=ShowdownConf)
    sim: SimConfig = field(default_factory=SimConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)


def register() -> None:
    ConfigStore.instance().store(name="schema", node=Config)


def to_object(cfg: Any) -> Config:
    """DictConfig -> the typed Config dataclass tree."""
    return cfg if isinstance(cfg, Config) else OmegaConf.to_object(cfg)


class ConfigError(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid configuration:\n" + "\n".join(f"  - {p}" for p in problems))


def verify(cfg: Config) -> None:
    """Check the whole config; raise one ConfigError listing every problem."""
    p: list[str] = []
    s, L, r = cfg.sim, cfg.learner, cfg.run
    if s.servers < 1:
        p.append(f"sim.servers must be >= 1 (got {s.servers})")
    if s.concurrency < 1:
        p.append(f"sim.concurrency must be >= 1 (got {s.concurrency})")
    if s.eval_concurrency < 0:
        p.append(f"sim.eval_concurrency must be >= 0 (got {s.eval_concurrency})")
    if s.t_max < 8:
        p.append(f"sim.t_max must be >= 8 decisions (got {s.t_max})")
    if L.batch_size < 1:
        p.append(f"learner.batch_size must be >= 1 (got {L.batch_size})")
    elif s.n_slots < L.batch_size:
        p.append(f"sim.n_slots ({s.n_slots}) must be >= learner.batch_size ({L.batch_size})")
    if not L.lr > 0:
        p.append(f"learner.lr must be > 0 (got {L.lr})")
    if not 0 < L.target_ema <= 1:
        p.append(f"learner.target_ema must be in (0, 1] (got {L.target_ema})")
    if L.rnad.policy_loss not in POLICY_LOSSES:
        p.append(f"learner.rnad.policy_loss must be 'neurd' or 'ppo' (got {L.rnad.policy_loss!r})")
    if L.rnad.neurd_centre not in NEURD_CENTRES:
        p.append(f"learner.rnad.neurd_centre must be 'legal' or 'all' (got {L.rnad.neurd_centre!r})")
    if not L.rnad.neurd_beta > 0:
        p.append(f"learner.rnad.neurd_beta must be > 0 (got {L.rnad.neurd_beta})")
    if L.rnad.eta < 0:
        p.append(f"learner.rnad.eta must be >= 0 (got {L.rnad.eta})")
    if not 0.0 <= L.rnad.lambda_vtrace <= 1.0:
        p.append(f"learner.rnad.lambda_vtrace must be in [0, 1] (got {L.rnad.lambda_vtrace})")
    if not 0.0 < L.rnad.gamma <= 1.0:
        p.append(f"learner.rnad.gamma must be in (0, 1] (got {L.rnad.gamma})")
    if not L.rnad.neurd_clip > 0:
        p.append(f"learner.rnad.neurd_clip must be > 0 (got {L.rnad.neurd_clip})")
    if L.rnad.value_coef < 0 or L.rnad.entropy_coef < 0:
        p.append(f"learner.rnad.value_coef and entropy_coef must be >= 0 (got {L.rnad.value_coef}, {L.rnad.entropy_coef})")
    if not (0.0 <= L.adam_b1 < 1.0 and 0.0 <= L.adam_b2 < 1.0):
        p.append(f"learner.adam_b1 and adam_b2 must be in [0, 1) (got {L.adam_b1}, {L.adam_b2})")
    if L.reward.shaping < 0:
        p.append(f"learner.reward.shaping must be >= 0 (got {L.reward.shaping})")
    if not (0.0 < L.reward.normalize_decay < 1.0 and L.reward.normalize_min_std > 0):
        p.append("learner.reward.normalize_decay must be in (0, 1) and normalize_min_std > 0 "
                 f"(got {L.reward.normalize_decay}, {L.reward.normalize_min_std})")
    if cfg.league.learn_from_members and not L.rnad.rho_vtrace < float("inf"):
        p.append("league.learn_from_members=true learns from other policies' play: clip its importance weights "
                 "with a finite learner.rnad.rho_vtrace (e.g. 1.0)")
    if len(L.schedule_sizes) != len(L.schedule_repeats) or not L.schedule_sizes:
        p.append("learner.schedule_sizes and learner.schedule_repeats must be non-empty lists of equal length")
    elif min(L.schedule_sizes) <= 0 or min(L.schedule_repeats) <= 0 or L.schedule_repeats[-1] != 1:
        p.append("learner.schedule_sizes/_repeats must be positive and the last repeat must be 1")
    if L.device not in DEVICES:
        p.append(f"learner.device must be auto, cpu or cuda (got {L.device!r})")
    elif L.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            p.append("learner.device=cuda but no CUDA device is available (use learner.device=auto)")
    if min(L.checkpoint_every, L.publish_every, L.keep_checkpoints) < 1:
        p.append("learner.checkpoint_every, publish_every and keep_checkpoints must be >= 1")
    if r.max_updates < 0 or r.max_minutes < 0:
        p.append("run.max_updates and run.max_minutes must be >= 0")
    if r.max_learner_restarts < 0 or r.max_sim_restarts < 0 or r.heartbeat_timeout_s <= 0:
        p.append("run.max_learner_restarts and run.max_sim_restarts must be >= 0, run.heartbeat_timeout_s > 0")
    if r.max_updates == 0 and r.max_minutes == 0:
        p.append("set run.max_updates or run.max_minutes (a run must end by itself)")
    if cfg.showdown.teams is not None and not Path(cfg.showdown.teams).is_dir():
        p.append(f"showdown.teams: directory {cfg.showdown.teams} does not exist")
    lg = cfg.league
    if lg.sampler.strategy not in SAMPLING_STRATEGIES:
        p.append(f"league.sampler.strategy must be self_play, recent_historical, pfsp or curriculum (got {lg.sampler.strategy!r})")
    if lg.sampler.pfsp_weighting not in PFSP_WEIGHTINGS:
        p.append(f"league.sampler.pfsp_weighting must be squared, variance, linear or linear_capped (got {lg.sampler.pfsp_weighting!r})")
    if not 0 < lg.payoff_decay <= 1:
        p.append(f"league.payoff_decay must be in (0, 1] (got {lg.payoff_decay})")
    bad_fixed = [f for f in lg.fixed if f not in SCRIPTED_ROLES]
    if bad_fixed:
        p.append(f"league.fixed: {bad_fixed} are not fixed baselines (random, maxdamage)")
    pf = cfg.learner.portfolio
    if pf.strategy not in PORTFOLIO_STRATEGIES:
        p.append(f"learner.portfolio.strategy must be recent, best, diverse or nash (got {pf.strategy!r})")
    if pf.size < 0 or (pf.size > 0 and (not lg.enabled or r.serial)):
        p.append(f"learner.portfolio.size must be >= 0, and > 0 needs league.enabled=true and run.serial=false "
                 f"(got size={pf.size})")
    if lg.selection.by not in SELECTION_SCORES or lg.selection.cap < 1 or lg.selection.noise_std < 0:
        p.append(f"league.selection: by must be nash or rating, cap >= 1, noise_std >= 0 (got by={lg.selection.by!r}, "
                 f"cap={lg.selection.cap}, noise_std={lg.selection.noise_std})")
    if lg.eval_every_s < 0 or lg.eval_pairs < 0 or lg.eval_games < 1:
        p.append(f"league.eval_every_s and eval_pairs must be >= 0 and eval_games >= 1 (got {lg.eval_every_s}, "
                 f"{lg.eval_pairs}, {lg.eval_games})")
    ex, le = lg.exploiters, lg.league_exploiters
    if not 0 <= ex.threshold <= 1:
        p.append(f"league.exploiters.threshold must be in [0, 1] (got {ex.threshold})")
    for name, v in (("lanes", ex.lanes), ("train_updates", ex.train_updates), ("eval_games", ex.eval_games),
                    ("batch_size", ex.batch_size), ("concurrency", ex.concurrency)):
        if v < 1:
            p.append(f"league.exploiters.{name} must be >= 1 (got {v})")
    if ex.enabled and ex.n_slots < ex.batch_size:
        p.append(f"league.exploiters.n_slots ({ex.n_slots}) must be >= its batch_size ({ex.batch_size})")
    if le.pfsp_weighting not in PFSP_WEIGHTINGS:
        p.append(f"league.league_exploiters.pfsp_weighting must be squared, variance, linear or linear_capped "
                 f"(got {le.pfsp_weighting!r})")
    if not 0 <= le.reset_prob <= 1:
        p.append(f"league.league_exploiters.reset_prob must be in [0, 1] (got {le.reset_prob})")
    if le.enabled and (le.count < 1 or le.batch_size < 1 or le.n_slots < le.batch_size):
        p.append("league.league_exploiters: count and batch_size must be >= 1 and n_slots >= batch_size "
                 f"(got count={le.count}, batch_size={le.batch_size}, n_slots={le.n_slots})")
    if le.freeze.min_updates > le.freeze.max_updates:
        p.append(f"league.league_exploiters.freeze.min_updates ({le.freeze.min_updates}) must be <= max_updates "
                 f"({le.freeze.max_updates})")
    if (ex.enabled or le.enabled) and r.serial:
        p.append("run.serial=true runs the main agent alone: set league.exploiters.enabled=false and "
                 "league.league_exploiters.enabled=false")
    if (ex.enabled or le.enabled) and not lg.enabled:
        p.append("exploiters need the league: set league.enabled=true")
    if lg.bc_checkpoint is not None and not Path(lg.bc_checkpoint).is_file():
        p.append(f"league.bc_checkpoint: file {lg.bc_checkpoint} does not exist (train one with python -m tools.bc train)")
    if r.init_checkpoint is not None and not Path(r.init_checkpoint).is_file():
        p.append(f"run.init_checkpoint: file {r.init_checkpoint} does not exist")
    if p:
        raise ConfigError(p)


def resolve_device(name: str) -> str:
    import torch

    if name not in DEVICES:
        raise ValueError(f"learner.device: {name!r} is not one of {DEVICES}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name
