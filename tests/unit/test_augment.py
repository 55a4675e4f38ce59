"""Hidden ids while learning (learner.id_dropout) and id embeddings that start at zero
(model.embed_std = 0): what each does to the numbers, on hand-made tensors."""

from __future__ import annotations

import torch

from league.battle.obs import ID_SPECIES, ID_TERA, LAYOUT, N_IDS, N_MONS, OBS_DIM, UNKNOWN_ID, split
from league.learn.augment import drop_ids
from league.learn.learner import Learner, LearnerConfig
from league.model.net import ModelConfig, PolicyValueNet
from tests.unit.test_rnad import _batch

SMALL = dict(mon_dim=16, torso_dim=32, core_dim=32)


def _ids_obs(T: int, B: int) -> torch.Tensor:
    """[T, B, OBS_DIM]: every id 2 + its (row, id) index (all known), the rest 0.25."""
    a, b, _ = LAYOUT["ids"]
    obs = torch.full((T, B, OBS_DIM), 0.25)
    obs[..., a:b] = 2.0 + torch.arange(N_MONS * N_IDS).float()
    return obs


def test_a_hidden_id_stays_hidden_for_the_whole_trajectory():
    obs = _ids_obs(T=6, B=40)
    obs[2:, 0, LAYOUT["ids"][0]] = float(UNKNOWN_ID)  # trajectory 0, row 0's species: unknown from step 2
    out = drop_ids(obs, 0.5, torch.Generator().manual_seed(1), per_trajectory=True)
    hidden = split(out)["ids"] == UNKNOWN_ID  # [T, B, 12, 8]
    hidden[2:, 0, 0, ID_SPECIES] = hidden[0, 0, 0, ID_SPECIES]  # the one id that was not known throughout
    assert (hidden == hidden[:1]).all()  # the same draw at every step
    assert not hidden[..., ID_TERA].any()
    rate = hidden[0, :, :, :ID_TERA].float().mean().item()  # 40 x 12 x 7 = 3,360 draws: sd 0.009
    assert 0.45 < rate < 0.55
    a, b, _ = LAYOUT["ids"]
    assert torch.equal(out[..., :a], obs[..., :a]) and torch.equal(out[..., b:], obs[..., b:])
    assert drop_ids(obs, 0.0, per_trajectory=True) is obs


def test_per_step_draws_differ_between_steps():
    out = drop_ids(_ids_obs(T=6, B=40), 0.5, torch.Generator().manual_seed(1))
    hidden = split(out)["ids"][..., :ID_TERA] == UNKNOWN_ID
    assert (hidden != hidden[:1]).any()


def test_zero_embeddings_leave_an_id_never_learned_reading_as_no_id():
    """embed_std = 0: the rows start at zero and a row gets a gradient only when its id is
    in a batch, so after updates an id the network never saw is still exactly 'no id'."""
    L = Learner(LearnerConfig(), ModelConfig(**SMALL, embed_std=0.0), seed=0)
    b = _batch()
    seen = set(split(b.obs)["ids"][..., ID_SPECIES].long().unique().tolist())
    unseen = next(i for i in range(2, 1000) if i not in seen)
    for _ in range(3):
        L.step(b)
    w = L.net.species.weight
    assert w[unseen].abs().max() == 0 and w[0].abs().max() == 0
    assert all(w[i].abs().max() > 0 for i in seen if i > 0)
    default = PolicyValueNet(ModelConfig(**SMALL))  # nn.Embedding's own N(0, 1)
    assert 0.5 < default.species.weight[1:].std().item() < 1.5


def test_hidden_ids_change_the_update_and_nothing_else():
    b = _batch()
    plain = Learner(LearnerConfig(), ModelConfig(**SMALL), seed=0)
    hidden = Learner(LearnerConfig(id_dropout=0.5), ModelConfig(**SMALL), seed=0)
    m0, m1 = plain.step(b), hidden.step(b)
    assert set(m0) == set(m1) and m0["loss/total"] != m1["loss/total"]
    assert torch.equal(b.obs, _batch().obs)  # the batch itself is not written


def test_how_a_network_starts_is_no_mismatch_with_a_checkpoint(tmp_path):
    """run.init_checkpoint=the first agent:regc (saved before embed_std existed) with
    model.embed_std=0, and today's agent:regc (saved with embed_std 0) with the default 1:
    the weights replace the start, so only real sizes are a mismatch."""
    from league.checkpoint import model_mismatch

    agent = "tests/data/agent_regc_v1.pt"
    assert model_mismatch(agent, ModelConfig(embed_std=0.0, threat=False)) == ""
    assert model_mismatch("league/agents/regc.pt", ModelConfig(embed_std=1.0, threat=False)) == ""
    # both are encoder-version-2 networks: they read no threat block, which is a real difference
    assert model_mismatch(agent, ModelConfig(embed_std=0.0, threat=True)) == "threat False vs True"
    assert model_mismatch(agent, ModelConfig(core_dim=64, threat=False)) == "core_dim 256 vs 64"
