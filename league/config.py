"""The run's configuration schema and its check (registered in Hydra's ConfigStore by
league/config_doc.py's ``register``, with the `--help` page made from it).

Each component owns its settings as a dataclass, typed, defaulted and documented once
(``ModelConfig`` in league/model/net.py, ``SimConfig`` in league/sim/simulator.py,
``LearnerConfig`` and its ``RNaDLossConfig`` in league/learn/). YAML under league/conf/ only
sets values. ``verify(cfg)`` checks the whole config at start-up and reports every
problem together: one rule per key (``RULES``), and the checks across keys (``JOINT``).
Each key's allowed choices are defined once, next to the component that reads them
(``rnad.POLICY_LOSSES``, ``sampling.PFSP_WEIGHTINGS``, ...), and imported here; the run's
own settings (``run.*``, ``ray.*``, ``showdown.*``) are defined here, and so are their
choices (``PLACEMENTS``, ``CONSOLES``), which the coordinator imports.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from omegaconf import OmegaConf

from league.config_rules import (
    Rule,
    bind_address,
    distinct_of,
    existing,
    flag,
    format_id,
    integer,
    ints,
    is_int,
    is_real,
    object_store,
    one_of,
    optional,
    ray_address,
    real,
    replaced_by,
    resources,
    weights_of,
)
from league.device import DEVICES
from league.learn.learner import AMP_DTYPES, LearnerConfig
from league.learn.rnad import NEURD_CENTRES, POLICY_LOSSES, PPO_ADVANTAGES, VTRACE_NETS
from league.model.net import ModelConfig
from league.population.exploiters import EXPLOITER_INITS
from league.population.league import LeagueConfig
from league.population.portfolio import MAX_SIZE as PORTFOLIO_MAX_SIZE
from league.population.portfolio import STRATEGIES as PORTFOLIO_STRATEGIES
from league.population.registry import CATEGORIES, SCRIPTED_ROLES
from league.population.sampling import PFSP_WEIGHTINGS, SAMPLING_STRATEGIES
from league.population.selection import SELECTION_SCORES
from league.showdown import BACKENDS
from league.sim.simulator import SEARCH_MUS, SimConfig
from league.teams.repo import DEFAULT_POOLS_DIR, valid_tag


@dataclass
class ShowdownConf:
    # Showdown format id: a gen 9 doubles format with team preview, bring 6 pick 4, checked
    # against Showdown's own format list at start (league/showdown/formats.py)
    format: str = "gen9vgc2023regc"
    teams: str | None = None  # team pool directory; None = the pool shipped for the format (league/teams/default/)
    # Teams added to the training pool, made at start from Showdown's own random-battle
    # sets (its random doubles sets; in Champions formats its Champions random battle's;
    # each validated; seeded by run.seed; written to RUN_DIR/teams/generated/ and tagged
    # "generated"): variety against learning the pool's match-ups by heart. 0: none.
    generated_teams: int = 0
    # Both players of every battle accept open team sheets, as at VGC events: each sees the
    # other's sheet (moves, item, ability, tera type; no stats) at team preview, and the
    # observation of a network with model.sheets reads the foe's (its rows, the turn
    # analysis and the ``sheets`` flag: encoder version 5); a network without it plays as
    # if no sheet were shown. Needs a format with Showdown's "Open Team Sheets" rule (the
    # VGC formats), checked at start. Off: nobody accepts, nothing is shown.
    open_team_sheets: bool = False


PLACEMENTS = ("processes", "serial", "ray")  # run.placement
CONSOLES = ("auto", "rich", "plain")  # run.console (league/coordinator/view.py)


@dataclass
class RunConf:
    seed: int = 0  # seeds the learner, the simulator's draws and the matchmaker (stable per component)
    serial: bool = False  # replaced by run.placement=serial (true is refused, naming it)
    # Where the components run: "processes" (this machine, torch.multiprocessing), "serial"
    # (the same components as threads of this one process: debugging, profiling, fast tests)
    # or "ray" (Ray actors on a local Ray or a cluster: the ray.* settings; pip install -e '.[ray]')
    placement: str = "processes"
    # Where the coordinator's control channels listen with run.placement=ray: "" for
    # 127.0.0.1 on a Ray started here and this node's address on a cluster, or an address.
    # On any address but loopback every peer authenticates (zmq CURVE, keys made per run).
    # (run.placement=processes uses unix sockets in a private directory: no address.)
    bind: str = ""
    max_updates: int = 0  # stop after this many learner updates (0: no limit)
    max_minutes: float = 0.0  # stop after this wall time (0: no limit)
    progress_every_s: float = 10.0  # console progress line period
    # auto: a rich live table when stdout is a terminal, plain progress lines otherwise;
    # rich: always the table; plain: always lines (run.log always gets the plain lines)
    console: str = "auto"
    init_checkpoint: str | None = None  # start the network from this checkpoint's weights
    max_learner_restarts: int = 3  # a dead or silent main learner restarts from its last checkpoint
    max_sim_restarts: int = 3  # a dead or silent simulator restarts (new fleet; lanes told again)
    heartbeat_timeout_s: float = 120.0  # a learner or the simulator silent this long is hung (and restarted)
    # a learner or simulator not yet heard from since it (re)started may be silent this long
    # before it counts as hung (building its policy: the acting forward's torch.compile
    # took ~90 s cold on a slow 2-core box, with Showdown starting beside it)
    start_timeout_s: float = 900.0
    # a simulator (shard) that reports but finishes no battle this long is hung too (and
    # restarted); 0: never
    stall_s: float = 300.0


@dataclass
class RayConf:
    # Used with run.placement=ray. "": start a local Ray on this machine for the run (and
    # stop it after); "auto": join the Ray cluster this machine belongs to (`ray start`);
    # "HOST:PORT": join the cluster whose head is there
    address: str = ""
    coordinator_cpus: float = 0.0  # CPUs reserved for the coordinator actor (placed on this machine's node)
    sim_cpus: float = 1.0  # CPUs each simulator shard actor asks for (its Showdown workers run beside it)
    sim_gpus: float = 0.0  # GPUs each simulator shard asks for (its forwards: sim.device=auto uses one when given)
    learner_cpus: float = 1.0  # CPUs each learner actor asks for (the main agent's, and one per exploiter lane)
    learner_gpus: float = 0.0  # GPUs each learner actor asks for (learner.device=auto uses it when given)
    # Custom resources each shard / learner asks for, to pin roles to nodes: start a node
    # with `ray start ... --resources='{"sim": 4}'` and add +ray.sim_resources={sim:1}
    # (the + adds keys to a mapping on Hydra's command line)
    sim_resources: dict[str, float] = field(default_factory=dict)
    learner_resources: dict[str, float] = field(default_factory=dict)  # as ray.sim_resources, for the learners
    object_store_mb: int = 0  # the object store of a Ray started here (ray.address=""); 0: Ray's default


@dataclass
class Config:
    resume: bool = False  # continue the run in the run directory (hydra.run.dir=...) from its last checkpoint
    run: RunConf = field(default_factory=RunConf)
    showdown: ShowdownConf = field(default_factory=ShowdownConf)
    sim: SimConfig = field(default_factory=SimConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    ray: RayConf = field(default_factory=RayConf)


def to_object(cfg: Any) -> Config:
    """DictConfig -> the typed Config dataclass tree (a DictConfig composed on the schema
    registered as ``Config`` converts to a Config, which OmegaConf's types cannot say)."""
    return cfg if isinstance(cfg, Config) else cast(Config, OmegaConf.to_object(cfg))


class ConfigError(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid configuration:\n" + "\n".join(f"  - {p}" for p in problems))


# ---------------------------------------------------------------------------- verify
# Every leaf key of the schema has exactly one rule in RULES: a function of the key's
# value that returns what is wrong with it ("" when nothing; league/config_rules.py makes
# the common ones); the problem is reported as "<dotted key> <what is wrong>". Checks that read several keys (or the machine) are
# JOINT rules, each naming the keys it reads; one runs only once those keys passed their
# own rules. tests/unit/test_config.py walks the schema: no key without a rule, no rule
# for a key that does not exist.


def portfolio_size(v: Any) -> str:
    """0 (off) or 1..PORTFOLIO_MAX_SIZE references."""
    ok = is_int(v) and 0 <= v <= PORTFOLIO_MAX_SIZE
    return "" if ok else f"must be 0 (plain R-NaD) or 1 to {PORTFOLIO_MAX_SIZE} references (got {v!r})"


def team_tag(v: Any) -> str:
    """None, or a sub-pool: sub-directory names joined by / (checked against the pool by a JOINT rule)."""
    ok = v is None or valid_tag(v)
    return "" if ok else f"must be null or a sub-directory of the team pool, e.g. trickroom (got {v!r})"


def ray_installed() -> bool:
    """Whether Ray can be found (not imported: only the Ray placement imports it)."""
    return importlib.util.find_spec("ray") is not None


RAY_INSTALL = "pip install -e '.[ray]'"

_PROB = real(0, 1)  # a probability or win-rate threshold in [0, 1]
_SECONDS = real(0, lo_open=True)  # a period or timeout > 0


RULES: dict[str, Rule] = {
    "resume": flag,
    # run
    "run.seed": integer(0),
    "run.serial": replaced_by("run.placement=serial"),
    "run.placement": one_of(PLACEMENTS),
    "run.bind": bind_address,
    "run.max_updates": integer(0),
    "run.max_minutes": real(0),
    "run.progress_every_s": _SECONDS,
    "run.init_checkpoint": existing("file"),
    "run.max_learner_restarts": integer(0),
    "run.max_sim_restarts": integer(0),
    "run.heartbeat_timeout_s": _SECONDS,
    "run.start_timeout_s": _SECONDS,
    "run.stall_s": real(0),
    "run.console": one_of(CONSOLES),
    # showdown
    "showdown.format": format_id,
    "showdown.teams": existing("dir"),
    "showdown.generated_teams": integer(0),
    "showdown.open_team_sheets": flag,
    # sim
    "sim.backend": one_of(BACKENDS),
    "sim.servers": integer(1),
    "sim.shards": integer(1),
    "sim.concurrency": integer(1),
    "sim.eval_concurrency": integer(0),
    "sim.infer_batch": integer(1),
    "sim.infer_wait_ms": real(0),
    "sim.device": one_of(DEVICES),
    "sim.compile": flag,
    "sim.eval_window": integer(1),
    "sim.eval_learn": flag,
    "sim.t_max": integer(8),  # decisions
    "sim.n_slots": integer(1),
    "sim.max_pending": integer(1),
    "sim.stats_every_s": _SECONDS,
    "sim.weights_poll_s": _SECONDS,
    "sim.stall_timeout_s": _SECONDS,
    "sim.battle_timeout_s": real(0),  # 0: never
    "sim.search_share": real(0, 1),
    "sim.search_k": integer(2),
    "sim.search_samples": integer(1),
    "sim.search_tau": real(0),
    "sim.search_margin": real(0),
    "sim.search_play": flag,
    "sim.search_mu": one_of(SEARCH_MUS),
    "sim.answer_forced": flag,
    # learner
    "learner.device": one_of(DEVICES),
    "learner.batch_size": integer(1),
    "learner.epochs": integer(1),
    "learner.lr": real(0, lo_open=True),
    "learner.preview_lr_scale": real(0, lo_open=True),
    "learner.lr_decay_updates": integer(0),
    "learner.lr_final": real(0, 1),
    "learner.eta_decay_updates": integer(0),
    "learner.eta_final": real(0, 1),
    "learner.adam_b1": real(0, 1, hi_open=True),
    "learner.adam_b2": real(0, 1, hi_open=True),
    "learner.adam_eps": real(0, lo_open=True),
    "learner.grad_clip_norm": real(0, lo_open=True),
    "learner.id_dropout": real(0, 1, hi_open=True),
    "learner.aux_hp_coef": real(0),
    "learner.search_coef": real(0),
    "learner.target_ema": real(0, 1, lo_open=True),
    "learner.schedule_sizes": ints(1),
    "learner.schedule_repeats": ints(1),
    "learner.amp": flag,
    "learner.amp_dtype": one_of(AMP_DTYPES),
    "learner.compile": flag,
    "learner.publish_every": integer(1),
    "learner.diag_every": integer(0),  # 0: off
    "learner.checkpoint_every": integer(1),
    "learner.keep_checkpoints": integer(1),
    "learner.rnad.eta": real(0),
    "learner.rnad.lambda_vtrace": real(0, 1),
    "learner.rnad.c_vtrace": real(0),
    "learner.rnad.rho_vtrace": real(0, lo_open=True),  # inf: no clip
    "learner.rnad.gamma": real(0, 1, lo_open=True),
    "learner.rnad.policy_loss": one_of(POLICY_LOSSES),
    "learner.rnad.neurd_beta": real(0, lo_open=True),
    "learner.rnad.neurd_centre": one_of(NEURD_CENTRES),
    "learner.rnad.neurd_clip": real(0, lo_open=True),
    "learner.rnad.ppo_epsilon": real(0, 1, lo_open=True, hi_open=True),
    "learner.rnad.ppo_dual_clip": lambda v: (
        "" if is_real(v) and (v == 0 or v > 1) else f"must be 0 (off) or > 1 (got {v!r})"
    ),
    "learner.rnad.ppo_advantage": one_of(PPO_ADVANTAGES),
    "learner.rnad.ppo_adv_norm": flag,
    "learner.rnad.group_rate": real(0, 1, lo_open=True),
    "learner.rnad.vtrace_net": one_of(VTRACE_NETS),
    "learner.rnad.value_coef": real(0),
    "learner.rnad.entropy_coef": real(0),
    "learner.rnad.logit_l2": real(0),
    "learner.rnad.opponent_kl": flag,
    "learner.reward.shaping": real(0),
    "learner.reward.margin": real(0),
    "learner.reward.normalize": flag,
    "learner.reward.normalize_decay": real(0, 1, lo_open=True, hi_open=True),
    "learner.reward.normalize_min_std": real(0, lo_open=True),
    "learner.portfolio.size": portfolio_size,
    "learner.portfolio.strategy": one_of(PORTFOLIO_STRATEGIES),
    "learner.portfolio.update_every_s": _SECONDS,
    # model: sizes
    "model.species_dim": integer(1),
    "model.move_dim": integer(1),
    "model.item_dim": integer(1),
    "model.ability_dim": integer(1),
    "model.tera_dim": integer(1),
    "model.mon_dim": integer(1),
    "model.field_dim": integer(1),
    "model.torso_dim": integer(1),
    "model.core_dim": integer(1),
    "model.action_dim": integer(1),
    "model.attn_heads": integer(0),  # 0: no self-attention
    "model.attn_layers": integer(1),
    "model.pair_rank": integer(1),
    "model.embed_std": real(0),
    "model.threat": flag,
    "model.sheets": flag,
    "model.value_net": flag,
    "model.aux_hp": flag,
    "model.joint_ko": flag,
    "model.own_tera": flag,
    "model.recurrent": flag,
    # league
    "league.enabled": flag,
    "league.fixed": distinct_of(SCRIPTED_ROLES),
    "league.payoff_decay": real(0, 1, lo_open=True),
    "league.cache_size": integer(1),
    "league.learn_from_members": flag,
    "league.bc_checkpoint": existing("file"),
    "league.eval_every_s": real(0),  # 0: never
    "league.eval_pairs": integer(0),
    "league.eval_games": integer(1),
    "league.eval_previous": integer(0),  # 0: fewest games first only
    "league.diversity": flag,
    "league.sampler.strategy": one_of(SAMPLING_STRATEGIES),
    "league.sampler.pfsp_weighting": one_of(PFSP_WEIGHTINGS),
    "league.sampler.k_recent": integer(1),
    "league.sampler.recent_share": _PROB,
    "league.sampler.exploration": _PROB,
    "league.sampler.base": weights_of(CATEGORIES),
    "league.sampler.floor": real(0),
    "league.sampler.team_tag": team_tag,
    "league.sampler.team_pfsp": optional(one_of(PFSP_WEIGHTINGS)),
    "league.sampler.team_uniform": _PROB,
    "league.sampler.team_prior_games": real(0),
    "league.sampler.team_window": real(0),
    "league.snapshot.every_updates": integer(1),
    "league.snapshot.beat_threshold": _PROB,
    "league.snapshot.min_games": integer(1),
    "league.snapshot.min_updates_between": integer(0),
    "league.exploiters.enabled": flag,
    "league.exploiters.every_updates": integer(1),
    "league.exploiters.first_after": integer(0),
    "league.exploiters.train_updates": integer(1),
    "league.exploiters.eval_games": integer(1),
    "league.exploiters.threshold": _PROB,
    "league.exploiters.lanes": integer(1),
    "league.exploiters.concurrency": integer(1),
    "league.exploiters.batch_size": integer(1),
    "league.exploiters.n_slots": integer(1),
    "league.exploiters.finish_timeout_s": real(0),
    "league.exploiters.init": one_of(EXPLOITER_INITS),
    "league.exploiters.team_tag": team_tag,
    "league.league_exploiters.enabled": flag,
    "league.league_exploiters.count": integer(1),
    "league.league_exploiters.pfsp_weighting": one_of(PFSP_WEIGHTINGS),
    "league.league_exploiters.reset_prob": _PROB,
    "league.league_exploiters.freeze.min_updates": integer(0),
    "league.league_exploiters.freeze.max_updates": integer(1),
    "league.league_exploiters.freeze.beat_threshold": _PROB,
    "league.league_exploiters.freeze.min_games": integer(1),
    "league.league_exploiters.concurrency": integer(1),
    "league.league_exploiters.batch_size": integer(1),
    "league.league_exploiters.n_slots": integer(1),
    "league.league_exploiters.checkpoint_every": integer(1),
    "league.league_exploiters.max_restarts": integer(0),
    "league.selection.enabled": flag,
    "league.selection.every_updates": integer(1),
    "league.selection.cap": integer(1),
    "league.selection.clones": integer(0),
    "league.selection.by": one_of(SELECTION_SCORES),
    "league.selection.noise_std": real(0),
    # ray (run.placement=ray)
    "ray.address": ray_address,
    "ray.coordinator_cpus": real(0),
    "ray.sim_cpus": real(0),
    "ray.sim_gpus": real(0),
    "ray.learner_cpus": real(0),
    "ray.learner_gpus": real(0),
    "ray.sim_resources": resources,
    "ray.learner_resources": resources,
    "ray.object_store_mb": object_store,
}


@dataclass(frozen=True)
class Joint:
    """A check across keys (or against the machine): ``check(cfg)`` returns the problem,
    naming the keys, or ""."""

    keys: tuple[str, ...]
    check: Callable[[Config], str]


def _cuda_present(key: str, gpus: str) -> Callable[[Config], str]:
    """``key``=cuda needs a CUDA device here, or with run.placement=ray a GPU asked for
    (``gpus``) on the node the role is placed on."""

    def check(cfg: Config) -> str:
        if value_at(cfg, key) != "cuda":
            return ""
        if cfg.run.placement == "ray":
            return "" if value_at(cfg, gpus) > 0 else f"{key}=cuda with run.placement=ray needs {gpus} > 0"
        import torch

        if torch.cuda.is_available():
            return ""
        return f"{key}=cuda but no CUDA device is available (use {key}=auto)"

    return check


def _tag_in_pool(key: str) -> Callable[[Config], str]:
    """A team tag names a sub-directory of the pool (showdown.teams, or the shipped one)."""

    def check(cfg: Config) -> str:
        tag = value_at(cfg, key)
        pool = Path(cfg.showdown.teams) if cfg.showdown.teams else DEFAULT_POOLS_DIR / cfg.showdown.format
        if tag is None or (pool / tag).is_dir():
            return ""
        tags = sorted(p.relative_to(pool).as_posix() for p in pool.rglob("*") if p.is_dir()) if pool.is_dir() else []
        return (
            f"{key}={tag}: the team pool {pool} has no sub-directory {tag} "
            f"(it has: {', '.join(tags) or 'none'}); set showdown.teams to a pool with it, or {key}=null"
        )

    return check


def _exploiters_from_bc(c: Config) -> str:
    """init=bc starts main exploiters from league.bc_checkpoint: it must exist and fit model.*."""
    if c.league.exploiters.init != "bc":
        return ""
    if not c.league.bc_checkpoint:
        return (
            "league.exploiters.init=bc needs league.bc_checkpoint=PATH (a tools.bc checkpoint), "
            "or league.exploiters.init=scratch|main"
        )
    from league.checkpoint import CheckpointError, model_mismatch

    try:
        what = model_mismatch(c.league.bc_checkpoint, c.model)
    except CheckpointError as e:
        return f"league.exploiters.init=bc: {e}"
    return (
        f"league.exploiters.init=bc: league.bc_checkpoint's network does not fit model.* ({what}): "
        "set model.* to its sizes, or league.exploiters.init=scratch|main"
        if what
        else ""
    )


def _fits_format(key: str) -> Callable[[Config], str]:
    """A checkpoint setting's network was trained on the game data of showdown.format
    (Scarlet/Violet or Pokemon Champions: league/model/net.py reads its move table)."""

    def check(c: Config) -> str:
        path = value_at(c, key)
        if not path:
            return ""
        from league.checkpoint import CheckpointError, check_data, load_checkpoint, model_mismatch

        try:
            check_data(load_checkpoint(path)["model_cfg"], c.showdown.format, f"{key} ({path})")
            what = model_mismatch(path, c.model) if key == "run.init_checkpoint" else ""
        except CheckpointError as e:
            return str(e) if key in str(e) else f"{key}: {e}"
        return (
            f"{key} ({path}): its network's sizes are not model.*'s ({what}, checkpoint vs config): set model.* "
            "to the checkpoint's sizes, or start without it"
            if what
            else ""
        )

    return check


def _slots_hold(prefix: str, c: Any) -> str:
    """An enabled exploiter kind's slots hold one of its batches."""
    if c.enabled and c.n_slots < c.batch_size:
        return f"{prefix}.n_slots ({c.n_slots}) must be >= {prefix}.batch_size ({c.batch_size})"
    return ""


def _needs_search_share(key: str, verb: str) -> Joint:
    """sim.KEY > 0 shapes search targets, which sim.search_share 0 never makes."""
    return Joint(
        (f"sim.{key}", "sim.search_share"),
        lambda c: (
            f"sim.{key} {verb} targets from searches that sim.search_share 0 never makes: "
            f"set sim.search_share > 0 or sim.{key}=0"
            if getattr(c.sim, key) > 0 and c.sim.search_share == 0
            else ""
        ),
    )


JOINT: list[Joint] = [
    Joint(
        ("sim.n_slots", "learner.batch_size"),
        lambda c: (
            f"sim.n_slots ({c.sim.n_slots}) must be >= learner.batch_size ({c.learner.batch_size})"
            if c.sim.n_slots < c.learner.batch_size
            else ""
        ),
    ),
    Joint(
        ("learner.schedule_sizes", "learner.schedule_repeats"),
        lambda c: (
            "learner.schedule_sizes and learner.schedule_repeats must be lists of equal length"
            if len(c.learner.schedule_sizes) != len(c.learner.schedule_repeats)
            else "learner.schedule_repeats: the last repeat must be 1"
            if c.learner.schedule_repeats[-1] != 1
            else ""
        ),
    ),
    Joint(("learner.device", "run.placement", "ray.learner_gpus"), _cuda_present("learner.device", "ray.learner_gpus")),
    Joint(("sim.device", "run.placement", "ray.sim_gpus"), _cuda_present("sim.device", "ray.sim_gpus")),
    Joint(
        ("league.learn_from_members", "learner.rnad.rho_vtrace"),
        lambda c: (
            "league.learn_from_members=true learns from other policies' play: clip its importance weights "
            "with a finite learner.rnad.rho_vtrace (e.g. 1.0)"
            if c.league.learn_from_members and not c.learner.rnad.rho_vtrace < float("inf")
            else ""
        ),
    ),
    Joint(
        ("run.max_updates", "run.max_minutes"),
        lambda c: (
            "set run.max_updates or run.max_minutes (a run must end by itself)"
            if c.run.max_updates == 0 and c.run.max_minutes == 0
            else ""
        ),
    ),
    Joint(
        ("learner.portfolio.size", "league.enabled"),
        lambda c: (
            f"learner.portfolio.size > 0 needs league.enabled=true (got size={c.learner.portfolio.size})"
            if c.learner.portfolio.size > 0 and not c.league.enabled
            else ""
        ),
    ),
    Joint(
        ("league.exploiters.enabled", "league.exploiters.n_slots", "league.exploiters.batch_size"),
        lambda c: _slots_hold("league.exploiters", c.league.exploiters),
    ),
    Joint(
        ("league.league_exploiters.enabled", "league.league_exploiters.n_slots", "league.league_exploiters.batch_size"),
        lambda c: _slots_hold("league.league_exploiters", c.league.league_exploiters),
    ),
    Joint(
        ("league.league_exploiters.freeze.min_updates", "league.league_exploiters.freeze.max_updates"),
        lambda c: (
            f"league.league_exploiters.freeze.min_updates ({c.league.league_exploiters.freeze.min_updates}) must be <= "
            f"max_updates ({c.league.league_exploiters.freeze.max_updates})"
            if c.league.league_exploiters.freeze.min_updates > c.league.league_exploiters.freeze.max_updates
            else ""
        ),
    ),
    Joint(
        ("league.exploiters.enabled", "league.league_exploiters.enabled", "league.enabled"),
        lambda c: (
            "exploiters need the league: set league.enabled=true (league.exploiters.enabled / "
            "league.league_exploiters.enabled)"
            if (c.league.exploiters.enabled or c.league.league_exploiters.enabled) and not c.league.enabled
            else ""
        ),
    ),
    Joint(("league.sampler.team_tag", "showdown.teams", "showdown.format"), _tag_in_pool("league.sampler.team_tag")),
    Joint(
        ("league.sampler.team_pfsp", "sim.backend"),
        lambda c: (
            "team pairs are drawn for both sides at a battle's start, which only the stream backend does: "
            "set sim.backend=stream or league.sampler.team_pfsp=null"
            if c.league.sampler.team_pfsp is not None and c.sim.backend != "stream"
            else ""
        ),
    ),
    Joint(
        ("sim.search_share", "sim.backend"),
        lambda c: (
            "search targets copy battles in the stream workers, which only the stream backend has: "
            "set sim.backend=stream or sim.search_share=0"
            if c.sim.search_share > 0 and c.sim.backend != "stream"
            else ""
        ),
    ),
    Joint(
        ("sim.search_share", "learner.search_coef", "sim.search_play"),
        lambda c: (
            "sim.search_share searches for targets that learner.search_coef 0 never learns: "
            "set learner.search_coef > 0, sim.search_play=true or sim.search_share=0"
            if c.sim.search_share > 0 and c.learner.search_coef == 0 and not c.sim.search_play
            else ""
        ),
    ),
    Joint(
        ("sim.search_play", "sim.search_share"),
        lambda c: (
            "sim.search_play plays the picks of searches that sim.search_share 0 never makes: "
            "set sim.search_share > 0 or sim.search_play=false"
            if c.sim.search_play and c.sim.search_share == 0
            else ""
        ),
    ),
    Joint(
        ("sim.search_mu", "sim.search_play", "learner.rnad.policy_loss", "learner.rnad.ppo_dual_clip"),
        lambda c: (
            "sim.search_mu=network only applies to picks the look-ahead plays: set sim.search_play=true "
            "or sim.search_mu=sure"
            if c.sim.search_mu == "network" and not c.sim.search_play
            else "sim.search_mu=network needs PPO's dual clip (a pick the network found unlikely can reach a "
            "ratio pi/mu of e^20 and more, and with a negative advantage PPO's own clip does not bound its term; "
            "the first try without it went NaN, experiments/issue27_soft_targets): "
            "set learner.rnad.policy_loss=ppo and learner.rnad.ppo_dual_clip (3, say), or sim.search_mu=sure"
            if c.sim.search_mu == "network"
            and (c.learner.rnad.policy_loss != "ppo" or c.learner.rnad.ppo_dual_clip == 0)
            else ""
        ),
    ),
    Joint(
        ("learner.rnad.ppo_adv_norm", "learner.rnad.policy_loss", "learner.rnad.ppo_advantage"),
        lambda c: (
            "learner.rnad.ppo_adv_norm standardises PPO's TD or group advantages: set "
            "learner.rnad.policy_loss=ppo with learner.rnad.ppo_advantage=td (or group), or ppo_adv_norm=false"
            if c.learner.rnad.ppo_adv_norm
            and (c.learner.rnad.policy_loss != "ppo" or c.learner.rnad.ppo_advantage not in ("td", "group"))
            else ""
        ),
    ),
    _needs_search_share("search_tau", "draws"),
    _needs_search_share("search_margin", "filters"),
    Joint(
        ("league.exploiters.team_tag", "showdown.teams", "showdown.format"), _tag_in_pool("league.exploiters.team_tag")
    ),
    Joint(("league.exploiters.init", "league.bc_checkpoint"), _exploiters_from_bc),  # (and model.*)
    Joint(("run.init_checkpoint", "showdown.format"), _fits_format("run.init_checkpoint")),
    Joint(("league.bc_checkpoint", "showdown.format"), _fits_format("league.bc_checkpoint")),
    Joint(
        ("run.placement",),
        lambda c: (
            f"run.placement=ray needs Ray, not installed here: {RAY_INSTALL}"
            if c.run.placement == "ray" and not ray_installed()
            else ""
        ),
    ),
    Joint(
        ("sim.shards", "sim.n_slots"),
        lambda c: (
            f"sim.n_slots ({c.sim.n_slots}) must be >= sim.shards ({c.sim.shards}): each shard owns its slots"
            if c.sim.n_slots < c.sim.shards
            else ""
        ),
    ),
    Joint(
        ("model.attn_heads", "model.mon_dim"),
        lambda c: (
            f"model.attn_heads ({c.model.attn_heads}) must divide model.mon_dim ({c.model.mon_dim})"
            if c.model.attn_heads and c.model.mon_dim % c.model.attn_heads
            else ""
        ),
    ),
]


def value_at(cfg: Any, key: str) -> Any:
    """The value of a dotted key ("learner.rnad.eta")."""
    for part in key.split("."):
        cfg = getattr(cfg, part)
    return cfg


def verify(cfg: Config) -> None:
    """Check the whole config; raise one ConfigError listing every problem."""
    problems: list[str] = []
    bad: set[str] = set()
    for key, rule in RULES.items():
        what = rule(value_at(cfg, key))
        if what:
            problems.append(f"{key} {what}")
            bad.add(key)
    for joint in JOINT:
        if not bad.intersection(joint.keys):
            what = joint.check(cfg)
            if what:
                problems.append(what)
    if problems:
        raise ConfigError(problems)
