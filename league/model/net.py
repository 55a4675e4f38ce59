"""Policy-value network over the encoder's flat observation, with a causal GRU core.

    obs [T, B, OBS_DIM] --split--> ids [.., 12, 8], mons [.., 12, MON_F], field [.., FIELD_F]
    per Pokemon: embeddings(species, item, ability, 4 moves, tera) ++ features -> MLP -> d_mon
    torso: concat(12 x d_mon, field MLP) -> MLP -> d_torso
    core: GRU (one step per decision; hidden state carried from turn to turn)
    heads: team preview (90), turn (2025, factorised), value (1)

The turn head is factorised over the two slots: logit(a0, a1) = s0(a0) + s1(a1) +
<U(a0), V(a1)> with per-slot logits s0, s1 (45 each) and rank-``pair_rank`` factors
U, V, all computed from the state. What a slot's order is worth is then learned once,
not separately for each of the partner's 45 orders, while the pair term still lets the
two slots coordinate (e.g. not both targeting the same foe).

One action space of size 2025 is used for both kinds of step: at team preview the
preview head's 90 logits fill indices 0..89 and the mask (from the codec) marks
only those legal, so sampling, log-probs and losses are the same code for both.

The same ``forward`` acts (T=1 per call, hidden state carried by the caller) and
learns (whole trajectories, T steps): nothing looks ahead, so acting and learning
compute the same function.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS, SLOT_ACTIONS
from league.battle.obs import FIELD_F, LAYOUT, MON_F, N_IDS, N_MONS, OBS_DIM, VOCAB_SIZES

NEG_INF = -1e9


@dataclass
class ModelConfig:
    species_dim: int = 32
    move_dim: int = 32
    item_dim: int = 16
    ability_dim: int = 16
    tera_dim: int = 8
    mon_dim: int = 96
    field_dim: int = 64
    torso_dim: int = 256
    core_dim: int = 256
    pair_rank: int = 16  # rank of the slot-pair interaction in the turn head


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions get a large negative logit (probability exactly 0 after softmax)."""
    return logits.masked_fill(~mask, NEG_INF)


class PolicyValueNet(nn.Module):
    def __init__(self, cfg: ModelConfig | None = None):
        cfg = cfg or ModelConfig()
        super().__init__()
        self.cfg = cfg
        self.species = nn.Embedding(VOCAB_SIZES["species"], cfg.species_dim, padding_idx=0)
        self.moves = nn.Embedding(VOCAB_SIZES["moves"], cfg.move_dim, padding_idx=0)
        self.items = nn.Embedding(VOCAB_SIZES["items"], cfg.item_dim, padding_idx=0)
        self.abilities = nn.Embedding(VOCAB_SIZES["abilities"], cfg.ability_dim, padding_idx=0)
        self.tera = nn.Embedding(22, cfg.tera_dim, padding_idx=0)
        mon_in = cfg.species_dim + cfg.item_dim + cfg.ability_dim + cfg.move_dim + cfg.tera_dim + MON_F
        self.mon_mlp = nn.Sequential(nn.Linear(mon_in, cfg.mon_dim), nn.ReLU(), nn.Linear(cfg.mon_dim, cfg.mon_dim), nn.ReLU())
        self.field_mlp = nn.Sequential(nn.Linear(FIELD_F, cfg.field_dim), nn.ReLU())
        self.torso = nn.Sequential(
            nn.Linear(N_MONS * cfg.mon_dim + cfg.field_dim, cfg.torso_dim), nn.ReLU(),
            nn.Linear(cfg.torso_dim, cfg.torso_dim), nn.ReLU(),
        )
        self.core = nn.GRU(cfg.torso_dim, cfg.core_dim)
        self.preview_head = nn.Linear(cfg.core_dim + cfg.torso_dim, PREVIEW_ACTIONS)
        self.turn_head = nn.Linear(cfg.core_dim + cfg.torso_dim, 2 * SLOT_ACTIONS * (1 + cfg.pair_rank))
        self.value_head = nn.Sequential(nn.Linear(cfg.core_dim + cfg.torso_dim, 128), nn.ReLU(), nn.Linear(128, 1))
        # Start near-uniform over legal actions: small policy weights.
        for head in (self.preview_head, self.turn_head):
            nn.init.normal_(head.weight, std=1e-3)
            nn.init.zeros_(head.bias)

    def initial_state(self, batch: int, device=None) -> torch.Tensor:
        return torch.zeros(1, batch, self.cfg.core_dim, device=device)

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        """[..., OBS_DIM] -> [..., torso_dim]"""
        lead = obs.shape[:-1]
        a, b, _ = LAYOUT["ids"]
        ids = obs[..., a:b].reshape(*lead, N_MONS, N_IDS).long()
        a, b, _ = LAYOUT["mons"]
        mons = obs[..., a:b].reshape(*lead, N_MONS, MON_F)
        a, b, _ = LAYOUT["field"]
        field = obs[..., a:b]
        move_emb = self.moves(ids[..., 3:7]).mean(dim=-2)
        x = torch.cat(
            [self.species(ids[..., 0]), self.items(ids[..., 1]), self.abilities(ids[..., 2]), move_emb, self.tera(ids[..., 7]), mons],
            dim=-1,
        )
        m = self.mon_mlp(x).flatten(-2)
        return self.torso(torch.cat([m, self.field_mlp(field)], dim=-1))

    def turn_logits(self, x: torch.Tensor) -> torch.Tensor:
        """[..., D] -> [..., 2025]: s0(a0) + s1(a1) + <U(a0), V(a1)>, flattened a0-major."""
        r = self.cfg.pair_rank
        out = self.turn_head(x)
        s0, s1, uv = out[..., :SLOT_ACTIONS], out[..., SLOT_ACTIONS : 2 * SLOT_ACTIONS], out[..., 2 * SLOT_ACTIONS :]
        u, v = uv.unflatten(-1, (2, SLOT_ACTIONS, r)).unbind(-3)
        pair = torch.einsum("...ar,...br->...ab", u, v) / r**0.5
        joint = s0.unsqueeze(-1) + s1.unsqueeze(-2) + pair
        return joint.flatten(-2)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, is_preview: torch.Tensor, h: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """obs [T, B, OBS_DIM], mask [T, B, 2025] bool, is_preview [T, B] bool, h [1, B, H]
        -> masked logits [T, B, 2025], value [T, B], next h [1, B, H]."""
        assert obs.dim() == 3 and obs.shape[-1] == OBS_DIM, obs.shape
        assert mask.shape == (*obs.shape[:2], JOINT_ACTIONS), mask.shape
        z = self.encode(obs)
        core, h = self.core(z, h)
        x = torch.cat([core, z], dim=-1)
        turn = self.turn_logits(x)
        preview = self.preview_head(x)
        preview = torch.nn.functional.pad(preview, (0, JOINT_ACTIONS - PREVIEW_ACTIONS), value=NEG_INF)
        logits = torch.where(is_preview.unsqueeze(-1), preview, turn)
        value = self.value_head(x).squeeze(-1)
        return masked_logits(logits, mask), value, h
