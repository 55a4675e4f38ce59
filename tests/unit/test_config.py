"""The config check (league/config.py): every key of the schema has a rule, every rule
rejects what it should and names its key, each allowed choice is defined once and the
component reading it agrees, and the shipped configs pass. Pure config logic: no process."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

import league.config
from league.config import CONSOLES, JOINT, PLACEMENTS, RULES, Config, ConfigError, to_object, value_at, verify
from league.config_doc import register
from league.coordinator.view import make_view
from league.device import DEVICES, resolve_device
from league.learn.learner import AMP_DTYPES, LearnerConfig, amp_dtype
from league.learn.rnad import (
    NEURD_CENTRES,
    POLICY_LOSSES,
    PPO_ADVANTAGES,
    VTRACE_NETS,
    RNaDLossConfig,
    centred_logits,
    rnad_loss,
)
from league.population.exploiters import EXPLOITER_INITS, ExploiterConfig, ExploiterManager
from league.population.league import LeagueConfig, LeagueManager
from league.population.portfolio import STRATEGIES as PORTFOLIO_STRATEGIES
from league.population.portfolio import choose_portfolio
from league.population.registry import CATEGORIES, SCRIPTED_ROLES
from league.population.sampling import (
    PFSP_WEIGHTINGS,
    SAMPLING_STRATEGIES,
    OpponentSampler,
    SamplerConfig,
    pfsp_weights,
)
from league.population.selection import SELECTION_SCORES, SelectionConfig
from league.showdown import BACKENDS, make_fleet
from league.sim.simulator import SEARCH_MUS

CONF = Path(__file__).resolve().parents[2] / "league" / "conf"
REGC_AGENT = Path(__file__).resolve().parents[2] / "league" / "agents" / "regc.pt"
EXPERIMENTS = sorted(p.stem for p in (CONF / "experiment").glob("*.yaml"))
VARIANTS = sorted(p.stem for p in (CONF / "variant").glob("*.yaml"))


def leaf_keys(node, prefix: str = "") -> list[str]:
    """Every leaf of the schema, as a dotted key: the dataclass fields, recursively."""
    keys = []
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if dataclasses.is_dataclass(v):
            keys += leaf_keys(v, f"{prefix}{f.name}.")
        else:
            keys.append(prefix + f.name)
    return keys


def valid_config(**settings) -> Config:
    """The defaults, ended by time (the one thing the defaults leave to the experiment),
    with ``settings`` (dotted key -> value) applied."""
    cfg = Config()
    cfg.run.max_minutes = 1.0
    for key, value in settings.items():
        parent, _, name = key.rpartition(".")
        setattr(value_at(cfg, parent) if parent else cfg, name, value)
    return cfg


def problems(**settings) -> list[str]:
    try:
        verify(valid_config(**settings))
    except ConfigError as e:
        return e.problems
    return []


def compose_config(*overrides: str) -> Config:
    register()
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        return to_object(compose("config", overrides=list(overrides)))


# ------------------------------------------------------------------ the schema is covered


def test_every_key_of_the_schema_has_exactly_one_rule():
    keys = leaf_keys(Config())
    assert len(keys) == len(set(keys))
    unchecked = sorted(set(keys) - set(RULES))
    unknown = sorted(set(RULES) - set(keys))
    assert not unchecked, f"keys without a rule in league.config.RULES: {unchecked}"
    assert not unknown, f"rules for keys the schema does not have: {unknown}"


def test_joint_rules_read_existing_keys():
    keys = set(leaf_keys(Config()))
    for joint in JOINT:
        assert joint.keys and set(joint.keys) <= keys, joint.keys


# ------------------------------------------------------------------ each rule rejects and names its key


def _invalid(value):
    """A value no rule accepts for a key whose valid default is ``value``."""
    if isinstance(value, bool):
        return "yes"  # a string, not a bool
    if isinstance(value, (int, float)):
        return -1  # every number in the schema is >= 0
    if isinstance(value, list):
        return ["bogus"]
    if isinstance(value, dict):
        return {"bogus": -1.0}  # no such name, and a negative amount
    if value is None:
        return "/nonexistent/league-config-test"  # the path keys: an existing file or dir, or None
    return "Not A Choice!"


@pytest.mark.parametrize("key", sorted(RULES))
def test_an_invalid_value_of_any_key_is_one_problem_naming_the_key(key):
    default = value_at(Config(), key)
    found = problems(**{key: _invalid(default)})
    assert len(found) == 1 and found[0].startswith(f"{key} "), found


@pytest.mark.parametrize(
    "key, value",
    [
        # integer: bound, and not a float or a bool
        ("sim.t_max", 7),
        ("sim.servers", 1.5),
        ("run.seed", True),
        ("model.mon_dim", 0),
        ("model.attn_layers", 0),
        # real: closed and open ends, NaN, no string
        ("learner.lr", 0.0),
        ("learner.target_ema", 0.0),
        ("learner.adam_b2", 1.0),
        ("learner.rnad.gamma", 0.0),
        ("learner.rnad.gamma", math.nan),
        ("learner.rnad.lambda_vtrace", 1.5),
        ("learner.reward.normalize_decay", 1.0),
        ("learner.rnad.ppo_epsilon", 1.0),
        # PPO's dual clip: 0 (off) or a bound > 1
        ("learner.rnad.ppo_dual_clip", 1.0),
        ("learner.rnad.ppo_dual_clip", 0.5),
        ("league.payoff_decay", 1.5),
        ("league.exploiters.threshold", 1.01),
        ("league.sampler.recent_share", -0.1),
        ("league.sampler.team_uniform", 1.5),
        ("league.sampler.team_pfsp", "cubic"),
        ("run.heartbeat_timeout_s", 0.0),
        ("learner.lr", "0.1"),
        # the portfolio: 0 (off) or 1 to 5 references
        ("learner.portfolio.size", 6),
        ("learner.portfolio.size", 2.0),
        # flag
        ("learner.amp", 1),
        # lists
        ("learner.schedule_sizes", []),
        ("learner.schedule_repeats", [1, 0]),
        ("league.fixed", ["random", "random"]),
        ("league.fixed", ["bc"]),
        ("league.fixed", "random"),
        # weights over the curriculum categories
        ("league.sampler.base", {"self": -0.1}),
        ("league.sampler.base", {"fixd": 0.3}),
        # a Showdown format id
        ("showdown.format", "Gen9 VGC"),
        ("showdown.format", ""),
        # a Ray head's address, resources, the object store
        ("ray.address", "localhost"),
        ("ray.address", "http://x:1"),
        ("run.bind", "tcp://x"),
        ("run.bind", 5),
        ("run.bind", "a b"),
        ("ray.sim_resources", {"sim": -1}),
        ("ray.learner_resources", [1]),
        ("ray.object_store_mb", 50),
        ("sim.search_share", 1.5),
        ("sim.search_k", 1),  # one candidate: nothing to choose
        ("sim.search_tau", -0.05),
        ("sim.search_margin", -0.1),
    ],
)
def test_out_of_range_values_are_rejected(key, value):
    found = problems(**{key: value})
    assert len(found) == 1 and found[0].startswith(f"{key} "), found


@pytest.mark.parametrize(
    "key, value",
    [
        ("learner.target_ema", 1.0),
        ("learner.adam_b1", 0.0),
        ("learner.rnad.lambda_vtrace", 0.0),
        ("learner.rnad.lambda_vtrace", 1.0),
        ("learner.rnad.rho_vtrace", math.inf),
        ("learner.rnad.rho_vtrace", 1),
        ("sim.battle_timeout_s", 0.0),
        ("sim.eval_concurrency", 0),
        ("model.attn_heads", 0),
        ("league.fixed", []),
        ("league.sampler.base", {"self": 1.0}),
        ("league.sampler.team_pfsp", "variance"),
        ("league.sampler.team_uniform", 1.0),
        ("league.league_exploiters.reset_prob", 1.0),
        ("run.max_updates", 5),
        ("learner.portfolio.size", 0),
        ("ray.address", "auto"),
        ("ray.address", "10.0.0.5:6379"),
        ("run.bind", "10.0.0.5"),
        ("run.bind", "::1"),
        ("run.bind", "head-node.cluster"),
        ("ray.address", "ray://head:10001"),
        ("ray.sim_resources", {"sim_node": 1}),
        ("ray.object_store_mb", 100),
        ("sim.search_share", 1.0),
        ("sim.search_k", 2),
        ("sim.search_tau", 0.0),
        ("sim.search_margin", 0.0),
    ],
)
def test_edge_values_are_accepted(key, value):
    assert problems(**{key: value}) == []


def test_paths_must_exist_and_be_of_their_kind(tmp_path):
    from league.model.net import ModelConfig

    f = tmp_path / "a.pt"
    _bc_checkpoint(str(f), ModelConfig())  # a checkpoint setting's file is also read (its game data)
    good = {"run.init_checkpoint": str(f), "league.bc_checkpoint": str(f), "showdown.teams": str(tmp_path)}
    assert problems(**good) == []
    found = problems(
        **{
            "run.init_checkpoint": str(tmp_path),
            "league.bc_checkpoint": str(tmp_path / "b.pt"),
            "showdown.teams": str(f),
        }
    )
    assert sorted(p.split()[0] for p in found) == ["league.bc_checkpoint", "run.init_checkpoint", "showdown.teams"]


def test_an_init_checkpoint_of_other_sizes_is_one_problem_naming_both(tmp_path):
    from league.model.net import ModelConfig

    f = tmp_path / "small.pt"
    _bc_checkpoint(str(f), ModelConfig(torso_dim=64))
    found = problems(**{"run.init_checkpoint": str(f)})
    assert len(found) == 1 and found[0].startswith("run.init_checkpoint ") and "torso_dim 64 vs 256" in found[0]
    assert problems(**{"run.init_checkpoint": str(f), "model.torso_dim": 64}) == []


# ------------------------------------------------------------------ checks across keys

# the look-ahead's picks played as experience, with PPO and its dual clip (what
# sim.search_mu=network needs around it)
SEARCH_PLAY = {
    "sim.search_share": 0.2,
    "sim.search_play": True,
    "learner.search_coef": 0.0,
    "learner.rnad.policy_loss": "ppo",
    "learner.rnad.ppo_dual_clip": 3.0,
}

JOINT_CASES = {
    ("sim.n_slots", "learner.batch_size"): [({"sim.n_slots": 8, "learner.batch_size": 16}, "sim.n_slots")],
    ("learner.schedule_sizes", "learner.schedule_repeats"): [
        ({"learner.schedule_sizes": [100, 200], "learner.schedule_repeats": [1]}, "learner.schedule_sizes"),
        ({"learner.schedule_sizes": [100], "learner.schedule_repeats": [2]}, "learner.schedule_repeats"),
    ],
    ("learner.device", "run.placement", "ray.learner_gpus"): [
        ({"learner.device": "cuda"}, "learner.device=cuda"),
        ({"learner.device": "cuda", "run.placement": "ray"}, "ray.learner_gpus > 0"),
    ],
    ("sim.device", "run.placement", "ray.sim_gpus"): [
        ({"sim.device": "cuda"}, "sim.device=cuda"),
        ({"sim.device": "cuda", "run.placement": "ray"}, "ray.sim_gpus > 0"),
    ],
    ("run.placement",): [({"run.placement": "ray"}, "pip install -e '.[ray]'")],
    ("sim.shards", "sim.n_slots"): [({"sim.shards": 3, "sim.n_slots": 2, "learner.batch_size": 2}, "sim.shards (3)")],
    ("league.learn_from_members", "learner.rnad.rho_vtrace"): [
        ({"league.learn_from_members": True}, "finite learner.rnad.rho_vtrace")
    ],
    ("run.max_updates", "run.max_minutes"): [({"run.max_minutes": 0.0}, "run.max_updates or run.max_minutes")],
    ("learner.portfolio.size", "league.enabled"): [
        ({"learner.portfolio.size": 3, "league.enabled": False}, "league.enabled=true")
    ],
    ("league.exploiters.enabled", "league.exploiters.n_slots", "league.exploiters.batch_size"): [
        ({"league.exploiters.enabled": True, "league.exploiters.n_slots": 4}, "league.exploiters.n_slots")
    ],
    ("league.league_exploiters.enabled", "league.league_exploiters.n_slots", "league.league_exploiters.batch_size"): [
        (
            {"league.league_exploiters.enabled": True, "league.league_exploiters.n_slots": 4},
            "league.league_exploiters.n_slots",
        )
    ],
    ("league.league_exploiters.freeze.min_updates", "league.league_exploiters.freeze.max_updates"): [
        ({"league.league_exploiters.freeze.min_updates": 500}, "league.league_exploiters.freeze.min_updates")
    ],
    ("league.exploiters.enabled", "league.league_exploiters.enabled", "league.enabled"): [
        ({"league.exploiters.enabled": True, "league.enabled": False}, "league.enabled=true")
    ],
    ("model.attn_heads", "model.mon_dim"): [({"model.attn_heads": 5}, "model.attn_heads")],
    ("league.sampler.team_tag", "showdown.teams", "showdown.format"): [
        ({"league.sampler.team_tag": "trickroom"}, "league.sampler.team_tag=trickroom: the team pool")
    ],
    ("league.sampler.team_pfsp", "sim.backend"): [
        ({"league.sampler.team_pfsp": "squared", "sim.backend": "server"}, "only the stream backend")
    ],
    ("sim.search_share", "sim.backend"): [
        ({"sim.search_share": 0.2, "sim.backend": "server"}, "set sim.backend=stream or sim.search_share=0")
    ],
    ("sim.search_share", "learner.search_coef", "sim.search_play"): [
        ({"sim.search_share": 0.2, "learner.search_coef": 0.0}, "learner.search_coef 0 never learns")
    ],
    ("sim.search_play", "sim.search_share"): [
        ({"sim.search_play": True, "sim.search_share": 0.0}, "set sim.search_share > 0 or sim.search_play=false")
    ],
    ("sim.search_tau", "sim.search_share"): [
        ({"sim.search_tau": 0.05, "sim.search_share": 0.0}, "set sim.search_share > 0 or sim.search_tau=0")
    ],
    ("sim.search_margin", "sim.search_share"): [
        ({"sim.search_margin": 0.1, "sim.search_share": 0.0}, "set sim.search_share > 0 or sim.search_margin=0")
    ],
    ("sim.search_mu", "sim.search_play", "learner.rnad.policy_loss", "learner.rnad.ppo_dual_clip"): [
        ({"sim.search_mu": "network"}, "set sim.search_play=true or sim.search_mu=sure"),
        (
            {**SEARCH_PLAY, "sim.search_mu": "network", "learner.rnad.ppo_dual_clip": 0.0},
            "set learner.rnad.policy_loss=ppo and learner.rnad.ppo_dual_clip",
        ),
        (
            {**SEARCH_PLAY, "sim.search_mu": "network", "learner.rnad.policy_loss": "neurd"},
            "set learner.rnad.policy_loss=ppo and learner.rnad.ppo_dual_clip",
        ),
    ],
    ("learner.rnad.ppo_adv_norm", "learner.rnad.policy_loss", "learner.rnad.ppo_advantage"): [
        (
            {"learner.rnad.ppo_adv_norm": True, "learner.rnad.policy_loss": "neurd"},
            "set learner.rnad.policy_loss=ppo with learner.rnad.ppo_advantage=td",
        ),
        (
            {"learner.rnad.ppo_adv_norm": True, "learner.rnad.policy_loss": "ppo", "learner.rnad.ppo_advantage": "q"},
            "set learner.rnad.policy_loss=ppo with learner.rnad.ppo_advantage=td",
        ),
    ],
    ("league.exploiters.team_tag", "showdown.teams", "showdown.format"): [
        ({"league.exploiters.team_tag": "rain/hard"}, "league.exploiters.team_tag=rain/hard")
    ],
    ("league.exploiters.init", "league.bc_checkpoint"): [
        ({"league.exploiters.init": "bc"}, "league.exploiters.init=bc needs league.bc_checkpoint")
    ],
    ("run.init_checkpoint", "showdown.format"): [  # Reg C's agent for Reg M-B (tests/unit/test_net_data.py)
        (
            {"run.init_checkpoint": str(REGC_AGENT), "showdown.format": "gen9championsvgc2026regmb"},
            "needs a network trained on a Pokemon Champions format",
        )
    ],
    ("league.bc_checkpoint", "showdown.format"): [
        (
            {"league.bc_checkpoint": str(REGC_AGENT), "showdown.format": "gen9championsvgc2026regmb"},
            "needs a network trained on a Pokemon Champions format",
        )
    ],
}


def test_every_joint_rule_has_a_case():
    assert set(JOINT_CASES) == {j.keys for j in JOINT}


@pytest.mark.parametrize("keys, settings, needle", [(k, s, n) for k, cases in JOINT_CASES.items() for s, n in cases])
def test_joint_rules_reject_and_name_the_keys(keys, settings, needle, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(league.config, "ray_installed", lambda: False)  # the case of a machine without Ray
    joint = next(j for j in JOINT if j.keys == keys)
    cfg = valid_config(**settings)
    assert joint.check(cfg)
    with pytest.raises(ConfigError) as e:
        verify(cfg)
    assert any(needle in p for p in e.value.problems), e.value.problems


def test_search_settings_that_work_together_are_accepted():
    # the look-ahead's play as experience only (no cross-entropy), and drawn targets
    assert problems(**{"sim.search_share": 0.2, "sim.search_play": True, "learner.search_coef": 0.0}) == []
    assert problems(**{"sim.search_share": 0.2, "sim.search_tau": 0.05}) == []
    assert problems(**{"sim.search_share": 0.2, "sim.search_margin": 0.1}) == []
    assert problems(**{"learner.rnad.ppo_adv_norm": True, "learner.rnad.policy_loss": "ppo"}) == []
    # the picks played with the network's own log-probs, the ratio bounded by the dual clip
    assert problems(**SEARCH_PLAY, **{"sim.search_mu": "network"}) == []


def test_a_joint_rule_waits_for_its_keys_own_rules():
    # batch_size 0 is its own problem; "n_slots >= batch_size" is not checked on top of it
    assert problems(**{"learner.batch_size": 0, "sim.n_slots": 0}) == [
        "sim.n_slots must be an integer >= 1 (got 0)",
        "learner.batch_size must be an integer >= 1 (got 0)",
    ]


def _bc_checkpoint(path: str, model) -> None:
    from league.checkpoint import atomic_torch_save
    from league.model.net import PolicyValueNet, model_cfg_dict

    atomic_torch_save(
        {"learner": {"net": PolicyValueNet(model).state_dict()}, "model_cfg": model_cfg_dict(model, "gen9vgc2023regc")},
        Path(path),
    )


def test_team_tags_name_sub_directories_of_the_pool(tmp_path):
    (tmp_path / "trickroom" / "hard").mkdir(parents=True)
    ok = {
        "showdown.teams": str(tmp_path),
        "league.exploiters.team_tag": "trickroom/hard",
        "league.sampler.team_tag": "trickroom",
    }
    assert problems(**ok) == []
    found = problems(**{**ok, "league.sampler.team_tag": "rain"})
    assert len(found) == 1 and "has no sub-directory rain (it has: trickroom, trickroom/hard)" in found[0]
    for bad in ("../x", "/abs", "a b", "", 3):
        found = problems(**{**ok, "league.sampler.team_tag": bad})
        assert len(found) == 1 and found[0].startswith("league.sampler.team_tag must be null or a sub-directory")


def test_exploiters_from_bc_need_a_bc_checkpoint_that_fits_the_model(tmp_path):
    from league.model.net import ModelConfig

    bc = str(tmp_path / "bc.pt")
    _bc_checkpoint(bc, ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))
    found = problems(**{"league.exploiters.init": "bc", "league.bc_checkpoint": bc})
    assert len(found) == 1 and "league.bc_checkpoint's network does not fit model.*" in found[0], found
    assert "mon_dim 16 vs 96" in found[0] and "set model.* to its sizes" in found[0]
    assert (
        problems(
            **{
                "league.exploiters.init": "bc",
                "league.bc_checkpoint": bc,
                "model": ModelConfig(mon_dim=16, torso_dim=32, core_dim=32),
            }
        )
        == []
    )
    assert problems(**{"league.exploiters.init": "main"}) == []


# ------------------------------------------------------------------ choices: defined once, the component agrees

CHOICES = {
    "learner.device": DEVICES,
    "learner.amp_dtype": AMP_DTYPES,
    "run.console": CONSOLES,
    "sim.device": DEVICES,
    "learner.rnad.policy_loss": POLICY_LOSSES,
    "learner.rnad.neurd_centre": NEURD_CENTRES,
    "learner.rnad.ppo_advantage": PPO_ADVANTAGES,
    "learner.rnad.vtrace_net": VTRACE_NETS,
    "learner.portfolio.strategy": PORTFOLIO_STRATEGIES,
    "league.sampler.strategy": SAMPLING_STRATEGIES,
    "league.sampler.pfsp_weighting": PFSP_WEIGHTINGS,
    "league.league_exploiters.pfsp_weighting": PFSP_WEIGHTINGS,
    "league.selection.by": SELECTION_SCORES,
    "league.exploiters.init": EXPLOITER_INITS,
    "sim.backend": BACKENDS,
    "run.placement": PLACEMENTS,
    "sim.search_mu": SEARCH_MUS,
}
# what a choice needs around it to be accepted (a joint rule of its own)
CHOICE_CONTEXT = {"sim.search_mu": SEARCH_PLAY}


def test_every_string_key_is_a_choice_key_or_free_text():
    strings = {k for k in RULES if isinstance(value_at(Config(), k), str)}
    assert strings - set(CHOICES) == {"showdown.format", "ray.address", "run.bind"}


@pytest.mark.parametrize("key", sorted(CHOICES))
def test_choice_keys_accept_their_choices_and_nothing_else(key, monkeypatch, tmp_path):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    bc = str(tmp_path / "bc.pt")
    _bc_checkpoint(bc, Config().model)
    for choice in CHOICES[key]:
        assert problems(**{**CHOICE_CONTEXT.get(key, {}), key: choice, "league.bc_checkpoint": bc}) == [], choice
    found = problems(**{key: "bogus"})
    assert len(found) == 1 and found[0].startswith(f"{key} must be one of {', '.join(CHOICES[key])}"), found


def test_list_and_mapping_choice_keys():
    assert problems(**{"league.fixed": list(SCRIPTED_ROLES)}) == []
    assert problems(**{"league.sampler.base": {c: 1.0 for c in CATEGORIES}}) == []
    assert len(problems(**{"league.fixed": ["bc"], "league.sampler.base": {"bogus": 1.0}})) == 2


def test_the_components_accept_the_same_choices(tmp_path):
    # the Showdown backends (built, not started)
    for backend in BACKENDS:
        assert make_fleet(backend, 1, tmp_path).backend == backend
    with pytest.raises(ValueError, match="unknown Showdown backend"):
        make_fleet("bogus", 1, tmp_path)
    # R-NaD: the policy loss and the NeuRD centre
    logits, mask = torch.randn(2, 1, 3), torch.ones(2, 1, 3, dtype=torch.bool)
    for centre in NEURD_CENTRES:
        centred_logits(logits, mask, centre)
    with pytest.raises(ValueError):
        centred_logits(logits, mask, "bogus")
    v, valid, actions = torch.zeros(2, 1), torch.ones(2, 1, dtype=torch.bool), torch.zeros(2, 1, dtype=torch.long)
    args = (logits, v, v, logits, logits, 1.0, mask, valid, actions, torch.full((2, 1), -math.log(3)), v)
    for loss in POLICY_LOSSES:
        rnad_loss(*args, RNaDLossConfig(policy_loss=loss))
    with pytest.raises(ValueError):
        rnad_loss(*args, RNaDLossConfig(policy_loss="bogus"))
    # the console view
    for mode in CONSOLES:
        make_view(mode, sys.stdout)
    with pytest.raises(ValueError):
        make_view("bogus", sys.stdout)
    # the learner's AMP dtype (resolved on CPU too: float32 there)
    for dtype in AMP_DTYPES:
        assert amp_dtype(LearnerConfig(amp_dtype=dtype), torch.device("cpu")) is None
    with pytest.raises(ValueError):
        amp_dtype(LearnerConfig(amp_dtype="bogus"), torch.device("cpu"))
    # opponent sampling
    for strategy in SAMPLING_STRATEGIES:
        OpponentSampler(SamplerConfig(strategy=strategy))
    for weighting in PFSP_WEIGHTINGS:
        OpponentSampler(SamplerConfig(pfsp_weighting=weighting))
        pfsp_weights([0.3, 0.6], weighting)
    OpponentSampler(SamplerConfig(base={c: 1.0 for c in CATEGORIES}))
    for bad in ({"strategy": "bogus"}, {"pfsp_weighting": "bogus"}, {"base": {"bogus": 1.0}}):
        with pytest.raises(ValueError):
            OpponentSampler(SamplerConfig(**bad))
    # the portfolio
    for strategy in PORTFOLIO_STRATEGIES:
        choose_portfolio(["a", "b"], 1, strategy, win_rates=[[0.5], [0.6]], nash={"a": 1.0})
    with pytest.raises(ValueError):
        choose_portfolio(["a", "b"], 1, "bogus")
    # main exploiters: where their learner starts
    for init in EXPLOITER_INITS:
        lg = LeagueManager(LeagueConfig(bc_checkpoint="bc.pt"), tmp_path / f"init-{init}", False)
        ExploiterManager(ExploiterConfig(enabled=True, init=init), lg, [], 0, None, None)
    with pytest.raises(ValueError):
        ExploiterManager(ExploiterConfig(init="bogus"), lg, [], 0, None, None)
    # the league: selection score and fixed baselines
    for by in SELECTION_SCORES:
        LeagueManager(LeagueConfig(fixed=list(SCRIPTED_ROLES), selection=SelectionConfig(by=by)), tmp_path / by, False)
    with pytest.raises(ValueError):
        LeagueManager(LeagueConfig(selection=SelectionConfig(by="bogus")), tmp_path / "x", False)
    with pytest.raises(ValueError):
        LeagueManager(LeagueConfig(fixed=["bc"]), tmp_path / "y", False)
    # the learner's device
    for device in DEVICES:
        resolve_device(device)
    with pytest.raises(ValueError):
        resolve_device("bogus")


# ------------------------------------------------------------------ the shipped configs


def test_the_defaults_lack_only_a_stop_condition():
    with pytest.raises(ConfigError) as e:
        verify(Config())
    assert e.value.problems == ["set run.max_updates or run.max_minutes (a run must end by itself)"]
    verify(valid_config())
    verify(compose_config("run.max_minutes=1"))


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_shipped_experiments_verify(experiment):
    assert {"reg_c", "smoke"} <= set(EXPERIMENTS)
    verify(compose_config(f"experiment={experiment}"))


def test_the_default_experiment_is_reg_c_and_the_plus_form_still_chooses():
    from league.command_line import experiment_args

    assert compose_config().run.max_minutes == 60  # reg_c, with no experiment given
    assert experiment_args(["+experiment=smoke", "+variant=base", "experiment=x"]) == [
        "experiment=smoke",
        "+variant=base",
        "experiment=x",
    ]
    assert compose_config(*experiment_args(["+experiment=smoke"])).run.max_updates == 6


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_variants_verify(variant):
    verify(compose_config("experiment=reg_c", f"+variant={variant}"))


def test_bad_overrides_reach_verify_and_are_reported_together():
    """Hydra takes them (the fields are plain str/int/float/list/dict; a new key needs its +),
    and verify lists them all."""
    cfg = compose_config(
        "experiment=smoke",
        "sim.servers=0",
        "learner.rnad.policy_loss=foo",
        "league.sampler.strategy=bogus",
        "league.fixed=[random,bc]",
        "+league.sampler.base.fixd=0.3",
        "model.attn_heads=5",
        "learner.schedule_repeats=[2]",
    )
    with pytest.raises(ConfigError) as e:
        verify(cfg)
    text = str(e.value)
    for key in (
        "sim.servers",
        "learner.rnad.policy_loss",
        "league.sampler.strategy",
        "league.fixed",
        "league.sampler.base",
        "model.attn_heads",
        "learner.schedule_repeats",
    ):
        assert key in text, text
    assert len(e.value.problems) == 7


def test_a_users_own_config_dir_adds_experiments_beside_the_packaged_ones(tmp_path):
    (tmp_path / "experiment").mkdir()
    (tmp_path / "experiment" / "mine.yaml").write_text("# @package _global_\nrun:\n  max_minutes: 7\n")
    out = subprocess.run(
        [sys.executable, "-m", "league.run", "--config-dir", str(tmp_path), "experiment=mine", "--cfg", "job"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "max_minutes: 7.0" in out.stdout and "policy_loss: neurd" in out.stdout  # its value, the rest defaults


def test_the_old_spelling_of_the_serial_placement_names_the_new_one():
    assert problems(**{"run.serial": True}) == ["run.serial replaced by run.placement=serial"]
    assert problems(**{"run.placement": "serial"}) == []
