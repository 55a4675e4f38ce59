"""A network plays one game's data (league/model/net.py): its static move table is the
format's (Scarlet/Violet or Pokemon Champions), its checkpoint records the formats and
their data, and a network of one family is refused, with the fix, for a format of the
other, by the loaders, the tools and the run's config check. Reg C's shipped agent is
unchanged: same parameters, same logits as before the table became per format."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from league.battle.dex import SV, champions, data_of
from league.battle.moves import MOVE_STATIC_FEATURES
from league.battle.obs import _INDEX, move_static
from league.checkpoint import CheckpointError, check_data, load_policy_net, save_checkpoint
from league.learn.learner import Learner, LearnerConfig
from league.model.net import ModelConfig, PolicyValueNet, model_cfg_dict, model_data, model_sizes
from league.specs import AGENTS_DIR, check_spec_format, player_factory
from tests.conftest import ROOT
from tests.recorded import decisions

# the first shipped agent:regc (2026-11-26, written before checkpoints recorded their
# formats or embed_std): kept to test the files of that time
LEGACY_REGC = ROOT / "tests" / "data" / "agent_regc_v1.pt"

SMALL = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
REGC, REGMB, REGMA = "gen9vgc2023regc", "gen9championsvgc2026regmb", "gen9championsvgc2026regma"
BP = MOVE_STATIC_FEATURES.index("base_power")
PP = MOVE_STATIC_FEATURES.index("pp")


def _row(net: PolicyValueNet, move: str) -> torch.Tensor:
    return net.move_static[_INDEX["moves"][move]]


def test_the_move_table_is_the_formats_own():
    sv, ch = PolicyValueNet(SMALL), PolicyValueNet(SMALL, data=data_of(REGMB))
    assert (sv.data, ch.data) == ("sv", "champions") and data_of(REGC) == "sv" and data_of(REGMA) == "champions"
    # Showdown's data: Anchor Shot 80 power in Scarlet/Violet, 90 in Champions; Baton Pass 40 PP, 20 in Champions
    assert float(_row(sv, "anchorshot")[BP]) == pytest.approx(0.8)
    assert float(_row(ch, "anchorshot")[BP]) == pytest.approx(0.9)
    assert float(_row(sv, "batonpass")[PP]) == pytest.approx(1.0)
    assert float(_row(ch, "batonpass")[PP]) == pytest.approx(0.5)
    assert torch.equal(sv.move_static, torch.from_numpy(move_static(SV).copy()))
    assert torch.equal(ch.move_static, torch.from_numpy(move_static(champions()).copy()))
    # the table is a buffer outside the state_dict: both families have the same parameters, names and shapes
    a, b = sv.state_dict(), ch.state_dict()
    assert "move_static" not in a and list(a) == list(b) and all(a[k].shape == b[k].shape for k in a)
    with pytest.raises(ValueError, match="unknown game data 'gen9'"):
        PolicyValueNet(SMALL, data="gen9")


def test_model_cfg_records_the_formats_and_their_data():
    mc = model_cfg_dict(SMALL, REGMB)
    assert mc["formats"] == [REGMB] and mc["data"] == "champions" and mc["encoder_version"] == 6
    assert model_sizes(mc) == vars(SMALL) and model_data(mc) == "champions"
    # a network of encoder version 2 (no ``threat`` field then) does not read the threat block
    v2 = {k: v for k, v in mc.items() if k != "threat"} | {"encoder_version": 2}
    assert model_sizes(v2) == vars(SMALL) | {"threat": False}
    assert model_cfg_dict(SMALL, [REGMB, REGMA, REGMB])["formats"] == [REGMA, REGMB]
    with pytest.raises(ValueError, match="one game's data"):
        model_cfg_dict(SMALL, [REGC, REGMB])
    assert model_data(model_sizes(mc)) == "sv"  # a file from before the field: Scarlet/Violet


def test_a_legacy_agent_is_unchanged():
    """The first agent:regc (written before formats were recorded) loads as a Scarlet/Violet network
    with the default sizes' parameters and gives the logits and values it gave before
    (measured on the recorded Reg C battles at the commit before this change; the whole
    logit tensors were bit-identical there). Measured again when the analysis began to count
    a third Pokemon's ruin ability (2026-12-07): decisions 1, 2 and 4 of this battle have one
    on the field, their observations changed, and so did those logits. It reads no tera type
    of its own Pokemon (``own_tera`` False, encoder version 6), so those stay as they were."""
    net = load_policy_net(LEGACY_REGC, format_id=REGC)
    assert net.data == "sv" and torch.equal(net.move_static, torch.from_numpy(move_static(SV).copy()))
    fresh = PolicyValueNet(ModelConfig(threat=False)).state_dict()  # encoder version 2: no threat block
    assert {k: v.shape for k, v in net.state_dict().items()} == {k: v.shape for k, v in fresh.items()}
    assert not net.cfg.own_tera
    side = decisions(own_tera=False)[0]
    obs = torch.from_numpy(np.stack([o for o, _, _ in side]))[:, None]
    mask = torch.from_numpy(np.stack([m for _, m, _ in side]))[:, None]
    prev = torch.tensor([p for _, _, p in side])[:, None]
    with torch.no_grad():
        lg, v, _ = net(obs, mask, prev, net.initial_state(1))
    top = lg[:6, 0].argmax(-1)
    assert top.tolist() == [9, 187, 249, 1934, 204, 2022]
    assert lg[:6, 0].gather(-1, top[:, None])[:, 0].tolist() == pytest.approx(
        [2.112926, 11.133322, 11.478821, 0.035605, 12.201187, 0.095526], abs=1e-4
    )
    assert v[:6, 0].tolist() == pytest.approx(
        [0.075437, -0.107201, -0.058139, -0.120326, -0.184347, -0.566979], abs=1e-5
    )


def test_a_champions_checkpoint_round_trips_with_its_table(tmp_path):
    L = Learner(LearnerConfig(), SMALL, seed=1, data="champions")
    state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(SMALL, REGMB), "counters": {}}
    path = save_checkpoint(tmp_path, state, 0)
    net = load_policy_net(path, format_id=REGMA)  # another Champions format: the same data
    assert net.data == "champions" and torch.equal(net.move_static, L.net.move_static)
    side = decisions()[0]
    obs, mask = torch.from_numpy(side[1][0])[None, None], torch.from_numpy(side[1][1])[None, None]
    with torch.no_grad():
        a = net(obs, mask, torch.tensor([[False]]), net.initial_state(1))[0]
        b = L.net.eval()(obs, mask, torch.tensor([[False]]), L.net.initial_state(1))[0]
        c = PolicyValueNet(SMALL)  # the same weights on the Scarlet/Violet table: other logits
        c.load_state_dict(net.state_dict())
        c = c.eval()(obs, mask, torch.tensor([[False]]), c.initial_state(1))[0]
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_a_network_of_the_other_family_is_refused(tmp_path):
    with pytest.raises(CheckpointError) as e:
        load_policy_net(LEGACY_REGC, format_id=REGMB, name="legacy")
    assert str(e.value).startswith(
        "legacy was trained on Scarlet/Violet data (its file records no format); "
        f"{REGMB} plays on Pokemon Champions data and needs a network trained on a "
        "Pokemon Champions format"
    )
    mb = tmp_path / "mb.pt"
    torch.save(
        {
            "learner": {"net": PolicyValueNet(SMALL, data="champions").state_dict()},
            "model_cfg": model_cfg_dict(SMALL, REGMB),
        },
        mb,
    )
    with pytest.raises(
        CheckpointError,
        match=f"^x was trained for {REGMB} \\(Pokemon Champions data\\); {REGC} plays on Scarlet/Violet data",
    ):
        check_data(torch.load(mb)["model_cfg"], REGC, "x")
    with pytest.raises(CheckpointError, match=f"agent:regc was trained for {REGC} \\(Scarlet/Violet data\\)"):
        check_spec_format("agent:regc", REGMB)
    with pytest.raises(CheckpointError, match=f"checkpoint:{mb} was trained for {REGMB}"):
        player_factory(f"checkpoint:{mb}", format_id=REGC)
    check_spec_format("agent:regc", REGC)
    check_spec_format(f"checkpoint:{mb}", REGMA)
    check_spec_format("maxdamage", REGMB)  # not a network: nothing to check
    player_factory(f"checkpoint:{mb}", format_id=REGMB)


def test_tools_refuse_it_before_any_battle():
    """Exit 2, one line naming the SPEC and the fix, before Showdown starts."""
    for tool, args in (
        ("tools.battle", ["--p1", "maxdamage", "--p2", "agent:regc", "-n", "1"]),
        ("tools.tournament", [str(AGENTS_DIR / "regc.pt"), "--baselines", "random", "-n", "1"]),
        ("tools.bc", ["generate", "-n", "1", "--out", "/nonexistent/x", "--p1", "agent:regc", "--p2", "random"]),
    ):
        argv = [sys.executable, "-m", tool, *args, "--format", REGMB]
        out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert out.returncode == 2, (tool, out.stderr[-2000:])
        assert f"trained for {REGC} (Scarlet/Violet data)" in out.stderr, out.stderr
        assert "Pokemon Champions format" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


def test_the_run_refuses_an_init_or_bc_checkpoint_of_the_other_family(tmp_path):
    from tests.unit.test_config import problems

    regc = str(AGENTS_DIR / "regc.pt")
    for key in ("run.init_checkpoint", "league.bc_checkpoint"):
        found = problems(**{key: regc, "showdown.format": REGMB})
        assert len(found) == 1 and found[0].startswith(
            f"{key} ({regc}) was trained for {REGC} (Scarlet/Violet data)"
        ), found
        assert "needs a network trained on a Pokemon Champions format" in found[0]
        assert problems(**{key: regc, "model.threat": False}) == []  # Reg C: the agent's own data


def _log(path, fmt: str) -> None:
    path.write_text(
        f'>meta {{"format": "{fmt}", "p1": "maxdamage", "p2": "random"}}\n>side a maxdamage\n>side b random\n'
    )


def test_a_bc_data_set_holds_one_games_data(tmp_path):
    """BC: a data set records its formats; one of both families is refused before parsing;
    a network is evaluated only on battles of its own data."""
    import json

    from league.bc.dataset import LogError, build_dataset, dataset_formats, log_format
    from league.bc.train import eval_bc

    logs = tmp_path / "logs"
    logs.mkdir()
    _log(logs / "a.log", REGC)
    _log(logs / "b.log", REGMB)
    assert log_format(logs / "b.log") == REGMB
    with pytest.raises(LogError, match=f"different game data \\(champions: {REGMB}; sv: {REGC}\\)"):
        build_dataset(logs, tmp_path / "data")
    assert not (tmp_path / "data").exists()
    assert dataset_formats({}) == [REGC]  # a data set parsed before formats were recorded: Reg C's
    data = tmp_path / "mb"
    data.mkdir()
    from league.battle.obs import ENCODER_VERSION, OBS_DIM

    (data / "manifest.json").write_text(
        json.dumps(
            {
                "formats": [REGMB],
                "chunks": {"train": [], "heldout": []},
                "encoder_version": ENCODER_VERSION,
                "obs_dim": OBS_DIM,
            }
        )
    )
    with pytest.raises(
        CheckpointError, match=f"trained for {REGC} \\(Scarlet/Violet data\\); {REGMB} plays on Pokemon Champions"
    ):
        eval_bc(AGENTS_DIR / "regc.pt", data)


def test_tools_exploit_starts_from_a_network_with_its_own_sizes():
    """--init agent:regc (encoder version 2, no threat block) with model.threat=true
    given: the network's own model.* settings come after it and win, and the run's
    config check finds nothing."""
    from tests.unit.test_config import problems
    from tools.exploit import init_model_overrides

    regc = AGENTS_DIR / "regc.pt"
    over = init_model_overrides(regc)
    assert "model.threat=false" in over and "model.core_dim=256" in over
    assert not any(o.startswith("model.embed_std=") for o in over)  # how it started is no size
    settings = {k: (v == "true" if v in ("true", "false") else int(v)) for k, v in (o.split("=") for o in over)}
    assert problems(**{"run.init_checkpoint": str(regc), "model.threat": True, **settings}) == []
    assert problems(**{"run.init_checkpoint": str(regc), "model.threat": True})  # without them: it differs


def test_a_resume_takes_the_network_sizes_of_its_checkpoint_unless_named(tmp_path):
    """A run started when model.threat defaulted to true, resumed after the default
    became false: the resume adopts the checkpoint's value (and says so); a size named on
    the command line stays the user's, and resume_point refuses the mismatch."""
    import dataclasses

    from league.checkpoint import adopt_model_sizes, resume_point

    started = dataclasses.replace(SMALL, threat=True)
    L = Learner(LearnerConfig(), started, seed=0)
    state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(started, REGC), "counters": {"updates": 0}}
    save_checkpoint(tmp_path, state, 4)
    today = dataclasses.replace(SMALL, threat=False)
    assert adopt_model_sizes(tmp_path, today, set()) == ["model.threat: False -> True"]
    assert today == started and resume_point(tmp_path, today)[0].endswith("ckpt_000000004.pt")
    named = dataclasses.replace(SMALL, threat=False)
    assert adopt_model_sizes(tmp_path, named, {"threat"}) == [] and not named.threat
    with pytest.raises(CheckpointError, match="threat True vs False"):
        resume_point(tmp_path, named)
    assert adopt_model_sizes(tmp_path / "none", today, set()) == []


def test_tools_exploit_and_chaos_take_settings_before_or_after_their_options():
    """`tools.exploit maxdamage --minutes 1 model.x=1` (settings last, as a user types it)
    parses as `tools.exploit maxdamage model.x=1 --minutes 1` does."""
    from tools.chaos import parse_args as chaos_args
    from tools.exploit import parse_args as exploit_args

    a = exploit_args(["maxdamage", "--minutes", "1", "model.mon_dim=128", "--updates", "5"])
    b = exploit_args(["maxdamage", "model.mon_dim=128", "--minutes", "1", "--updates", "5"])
    assert (
        (a.spec, a.overrides, a.updates) == (b.spec, b.overrides, b.updates) == ("maxdamage", ["model.mon_dim=128"], 5)
    )
    c = chaos_args(["--minutes", "1", "--every", "5", "sim.servers=1", "--seed", "3"])
    assert c.overrides == ["sim.servers=1"] and c.seed == 3


def test_only_a_network_with_model_sheets_reads_the_open_sheets_flag():
    """model.sheets=true adds the ``sheets`` flag to the torso's input (one weight column);
    without it the flag changes nothing, so networks of versions 2 and 3 (which load
    with sheets False) give what they gave."""
    from league.battle.obs import LAYOUT

    torch.manual_seed(0)
    side = decisions()[0]
    obs = torch.from_numpy(np.stack([o for o, _, _ in side[:4]]))[:, None]
    mask = torch.from_numpy(np.stack([m for _, m, _ in side[:4]]))[:, None]
    prev = torch.tensor([p for _, _, p in side[:4]])[:, None]
    flagged = obs.clone()
    flagged[..., LAYOUT["sheets"][0]] = 1.0
    for sheets, differs in ((False, False), (True, True)):
        net = PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32, sheets=sheets)).eval()
        with torch.no_grad():
            a = net(obs, mask, prev, net.initial_state(1))
            b = net(flagged, mask, prev, net.initial_state(1))
        assert (not torch.equal(a[0], b[0]) or not torch.equal(a[1], b[1])) == differs, sheets
    widths = {s: PolicyValueNet(ModelConfig(sheets=s)).torso[0].in_features for s in (False, True)}
    assert widths[True] == widths[False] + 1
    v3 = {k: v for k, v in model_cfg_dict(SMALL, "gen9vgc2023regc").items() if k != "sheets"} | {"encoder_version": 3}
    assert model_sizes(v3)["sheets"] is False
