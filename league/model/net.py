"""Policy-value network over the encoder's flat observation, with a causal GRU core and a
per-action policy head.

    obs [T, B, OBS_DIM] --split--> the blocks of league/battle/obs.py (LAYOUT)
    move token   (per Pokemon and move, and per active slot and request move):
                 embedding(move id) ++ static dex row (MOVE_STATIC_FEATURES) ++ its features
    Pokemon      embeddings(species, item, ability, tera) ++ features ++ mean of its move
                 tokens -> MLP -> d_mon; one self-attention block over the 12 Pokemon
    torso        mean and max over our six, over their six, ++ field MLP -> d_torso
    core         GRU (one step per decision; hidden state carried from turn to turn);
                 model.recurrent=false: Linear + ReLU over the step's torso, no state
    state x      core ++ torso

Turn policy: each slot's 45 orders get an embedding from what the order is,

    move m, target t, tera b:  move token(slot, m) + target (the Pokemon at t, or "no
                               target", and whether it is a foe, the ally or itself) +
                               the (move, target, tera) features + tera embedding x b
    switch k:                  the embedding of brought Pokemon k ++ its matchup features
    pass:                      a learned vector

each added to a query from the state and the acting Pokemon, then h = MLP(...), per-slot
score s(h), and a pair term so the slots can coordinate:

    logit(a0, a1) = s0(a0) + s1(a1) + <U h0(a0), V h1(a1)> / sqrt(r)

The joint 2,025 stays the action space (a0-major, as the codec). Team preview: each of
our six (after attending to their six) gets a lead score, a back score and a lead-pair
factor; pick (l0, l1, b0, b1) scores lead(l0) + lead(l1) + back(b0) + back(b1) +
<P(l0), P(l1)> / sqrt(r), laid out as the codec's 90 indices.

Equivariance where the game has it: a Pokemon's moves are only ever pooled by a mean
(for its summary) and otherwise scored one by one, so permuting them permutes the
logits; the two foe positions enter only through ``slots`` and the per-target
features, so swapping the opponent's actives swaps the target logits
(tests/unit/test_model.py).

At team preview the preview logits fill indices 0..89 of the 2,025 and the mask marks
only those legal, so sampling, log-probs and losses are the same code for both kinds of
step. Logits are assembled and masked in float32 whatever the autocast dtype (the
lowest float16 value is -65504: a -1e9 mask does not fit it).

The same ``forward`` acts (T=1 per call, hidden state carried by the caller) and
learns (whole trajectories, T steps): nothing looks ahead, so acting and learning
compute the same function.

A network knows the game data it plays with (``data``: "sv" for Scarlet/Violet formats,
"champions" for Pokemon Champions', league/battle/dex.py ``data_of``): its static move
rows are that game's (a move's power, accuracy, PP and flags differ between them). They
are a buffer left out of the state_dict, so the parameters and their shapes are the same
for both; the checkpoint's ``model_cfg`` records the formats and their data, and a
network is only loaded for a format of its own data (league/checkpoint.py ``check_data``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import cast

import torch
from torch import nn

from league.battle.actions import BACK_PAIRS_OF_4, JOINT_ACTIONS, LEAD_PAIRS, PREVIEW_ACTIONS, SLOT_ACTIONS, TEAM_SIZE
from league.battle.analysis import ACT_MOVE_F, ACT_TARGET_F, SWITCH_F, THREAT_F
from league.battle.dex import data_of, mechanics_named
from league.battle.moves import MOVE_STATIC_F
from league.battle.obs import (
    ENCODER_VERSION,
    FIELD_F,
    LAYOUT,
    MON_F,
    MON_MOVE_F,
    N_MONS,
    OBS_DIM,
    VOCAB_SIZES,
    move_static,
)

NEG_INF = -1e9  # masked logits (float32 only: see masked_logits)
# The fewest steps in one forward for which the turn head computes the legal orders only
# (PolicyValueNet.turn_logits' slot_legal). Measured on CPU over recorded decisions (one
# thread, experiments/issue31_learner/ab_turn_head.json): the encoder, torso and turn head
# of B acting decisions cost 5-22 % more with it at B = 1..32 and the same at 64, while a
# learner's update (~200 steps) costs 20 % less.
LEGAL_ORDERS_MIN_STEPS = 64


@dataclass
class ModelConfig:
    species_dim: int = 32  # species embedding width
    move_dim: int = 32  # move embedding width
    item_dim: int = 16  # item embedding width
    ability_dim: int = 16  # ability embedding width
    tera_dim: int = 8  # tera type embedding width
    mon_dim: int = 96  # a Pokemon's encoding (after its MLP and the attention block)
    field_dim: int = 64  # the field MLP's output (weather, terrain, side conditions, ...)
    torso_dim: int = 256  # the torso's output (pooled Pokemon + field), the GRU's input
    core_dim: int = 256  # the GRU's hidden state (carried from decision to decision)
    action_dim: int = 64  # width of an order's embedding in the policy head
    attn_heads: int = 4  # self-attention over the 12 Pokemon (0: none); divides mon_dim
    attn_layers: int = 1  # self-attention blocks over the 12 Pokemon (each attention + feed-forward), with attn_heads
    pair_rank: int = 16  # rank of the slot-pair interaction in the turn head
    # the id embeddings' (species, move, item, ability) initial spread: N(0, embed_std^2);
    # 0: zeros, so an id the network never trained on reads as no id (not as noise)
    embed_std: float = 1.0
    # read the observation's ``threat`` block (encoder version 3: how hard each foe can hit
    # each of our actives): into the torso, each slot's query and each foe target's
    # embedding. Off: two seeds at 2,500 updates were no stronger with it (0.616 vs 0.641
    # greedy against maxdamage on unseen teams, experiments/issue27_threat). Networks of
    # encoder version 2 load with False.
    threat: bool = False
    # read the observation's ``sheets`` flag (encoder version 4: the foe's team sheet is
    # open and its rows hold it; 5: the turn analysis reads it too) into the torso. For
    # networks that learn from replays with open team sheets (tools.bc) or in battles
    # whose players accept them (showdown.open_team_sheets); elsewhere it is 0.
    # Networks of encoder versions 2 and 3 load with False.
    sheets: bool = False
    # the value reads a network of its own (its own Pokemon embeddings, attention, torso
    # and GRU, the same sizes; phasic policy gradient's separate value network), not the
    # policy's trunk: the value loss then shapes no feature the policy reads. The
    # recurrent state holds both GRUs' (state_dim = 2 x core_dim); ~2x the forward's cost.
    value_net: bool = False
    # an auxiliary head on the policy's state (core ++ torso): it predicts how each of the
    # 12 Pokemon's HP fraction changes by the side's next decision (what the foes will hit,
    # and how hard), trained by the learner's ``aux_hp_coef`` loss on what then happened.
    # Never read for acting. Off: two seeds at 2,500 updates, 0.622 greedy / 0.619 sampling
    # against maxdamage on unseen teams, reg_c's 0.623 / 0.627; the state learns to foresee
    # ~0.45 of the changes' variance and the policy still drops Protect and switching
    # (experiments/issue27_aux_hp).
    aux_hp: bool = False
    # a term of the joint turn logits read from what the two slots' orders do together to
    # each foe (:func:`joint_ko_features`: both on it, a KO that needs both, a second hit
    # wasted on a foe the first already KOs, how many foes fall for sure), weighed by the
    # state (``joint_ko``: state -> one weight per feature, from zero). The slot-pair term
    # is bilinear in the two orders' embeddings; a KO that needs both hits is a threshold
    # on their sum, which it can only approximate. Off: three seeds at 2,500 updates,
    # 0.652 greedy / 0.643 sampling against maxdamage on unseen teams, reg_c's 0.632 / 0.623
    # on the same draws (inside the intervals; experiments/issue27_jointko_screen).
    joint_ko: bool = False
    # our own Pokemon's tera types, read from the request (encoder version 6): in their
    # rows and in the tera orders' analysis (tera STAB, Tera Blast's type). poke-env does
    # not read them from requests, so no network before version 6 saw them (their rows
    # showed no tera type, their tera orders the plain orders' figures); their files load
    # with False. Off: three seeds at 2,500 updates read 0.615 [0.592, 0.637] greedy / 0.611
    # sampling against maxdamage on unseen teams with it, 0.651 [0.628, 0.672] / 0.636
    # without (every seed lower; experiments/issue27_owntera_screen); agent:regc fed the
    # types it never trained on plays 0.6125 where it plays 0.6625.
    own_tera: bool = False
    # the core carries a hidden state from decision to decision (a GRU); False: the core is
    # a feed-forward layer of the same width over the step's torso (the state x is then
    # the observation's alone, and the recurrent state stays zero). Files from before the
    # setting load with True.
    recurrent: bool = True


# ModelConfig's fields that say how a new network starts, not its shape: a checkpoint's
# weights replace what they chose, so they never make two networks differ.
INIT_FIELDS = ("embed_std",)
# ModelConfig's fields that say what the observation holds without changing its layout:
# a checkpoint's weights fit either way (a network started from one without ``own_tera``
# learns to read what the run's setting gives it).
READ_FIELDS = ("own_tera",)

# The policy heads' modules: what the value network of model.value_net leaves out.
_POLICY_PARTS = (
    "query",
    "act_move",
    "target",
    "target_kind",
    "act_feat",
    "act_tera",
    "switch",
    "threat_query",
    "threat_target",
    "pass_vec",
    "order_mlp",
    "order_score",
    "pair_u",
    "pair_v",
    "preview_mon",
    "preview_query",
    "preview_out",
    "aux_hp_head",
    "joint_ko",
)

# What a checkpoint's ``model_cfg`` holds beside ModelConfig's sizes.
MODEL_CFG_META = ("encoder_version", "formats", "data")


def model_cfg_dict(cfg: ModelConfig, formats: str | Sequence[str]) -> dict:
    """What checkpoints store as ``model_cfg``: the sizes, the encoder version, the
    format(s) the network was trained on and their game data (one family: "sv" or
    "champions")."""
    formats = [formats] if isinstance(formats, str) else sorted(set(formats))
    families = sorted({data_of(f) for f in formats})
    if len(families) != 1:
        raise ValueError(f"a network plays one game's data; formats {formats} hold {families or 'none'}")
    return {**asdict(cfg), "encoder_version": ENCODER_VERSION, "formats": formats, "data": families[0]}


def model_sizes(model_cfg: dict) -> dict:
    """The ModelConfig fields of a checkpoint's ``model_cfg`` (a network of an encoder
    before version 3 does not read the threat block, one before version 4 not the
    ``sheets`` flag)."""
    sizes = {k: v for k, v in model_cfg.items() if k not in MODEL_CFG_META}
    sizes.setdefault("threat", model_cfg.get("encoder_version", 1) >= 3)
    sizes.setdefault("sheets", False)
    sizes.setdefault("attn_layers", 1)  # (files from before it was a setting: one block)
    sizes.setdefault("value_net", False)
    sizes.setdefault("aux_hp", False)  # (files from before the auxiliary head: none)
    sizes.setdefault("joint_ko", False)  # (files from before the joint KO term: none)
    sizes.setdefault("own_tera", False)  # (files from before encoder version 6: our tera types unread)
    sizes.setdefault("recurrent", True)  # (files from before model.recurrent: a GRU core)
    return sizes


def model_data(model_cfg: dict) -> str:
    """The game data a checkpoint's network was trained on; files written before it was
    recorded are Scarlet/Violet ("sv"), the only data there was."""
    return model_cfg.get("data", "sv")


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions get a large negative logit (probability exactly 0 after softmax).
    Cast to float32 first: -1e9 overflows float16."""
    return logits.float().masked_fill(~mask, NEG_INF)


def legal_slot_orders(mask: torch.Tensor, is_preview: torch.Tensor) -> torch.Tensor:
    """[..., 2025] joint legality and [...] team-preview flags -> [..., 2, 45]: each slot's
    orders that some legal joint action of a turn step uses (none at team preview)."""
    joint = mask.reshape(-1, SLOT_ACTIONS, SLOT_ACTIONS)
    orders = torch.stack([joint.any(2), joint.any(1)], 1) & ~is_preview.reshape(-1, 1, 1)
    return orders.view(*mask.shape[:-1], 2, SLOT_ACTIONS)


def _mlp(i: int, o: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(i, o), nn.ReLU(), nn.Linear(o, o), nn.ReLU())


def _view(obs: torch.Tensor, name: str) -> torch.Tensor:
    a, b, shape = LAYOUT[name]
    return obs[..., a:b].reshape(*obs.shape[:-1], *shape)


def _threat_pooled(obs: torch.Tensor) -> torch.Tensor:
    """The threat block pooled over the two foes (sum, max) for each of our slots:
    [..., 2, 2 THREAT_F], the same whichever foe stands where."""
    th = _view(obs, "threat")
    return torch.cat([th.sum(-2), th.amax(-2)], dim=-1)


# Target index t (codec) -> which of the 4 slots it points at (ours a, ours b, foe a, foe b),
# -1 for "no target"; and its kind seen from each acting slot: 0 self, 1 ally, 2 none, 3 foe.
_TARGET_SLOT = (1, 0, -1, 2, 3)
_TARGET_KIND = ((1, 0, 2, 3, 3), (0, 1, 2, 3, 3))


# act_target's columns (league/battle/analysis.py's _target_row) the joint KO features read:
# the hit's lower and upper roll as a share of the target's current HP (capped at 1), and
# whether each KOs it (the columns hold KOs / 2)
_AT_PRESENT, _AT_LO, _AT_HI, _AT_KO_LO, _AT_KO_HI = 0, 5, 6, 7, 8
JOINT_KO_F = 6
# each slot order's target (o < 40: o % 10 // 2; switches and pass: none): foe a is
# target 3, foe b target 4 (Showdown's locations 1 and 2)
_ORDER_TARGET = torch.tensor([(o % 10) // 2 if o < 40 else -1 for o in range(SLOT_ACTIONS)])


def joint_ko_features(obs: torch.Tensor) -> torch.Tensor:
    """[..., OBS_DIM] -> [..., 45, 45, JOINT_KO_F] (float32): what slot a's order (rows) and
    slot b's (columns) do together to the foes, from each order's own hit on its target
    (``act_target``; single-target moves on a foe only: a spread move's row sums both foes),
    summed over the two foes (so the features, like the game, do not care which foe is a):

    0. both orders hit the same foe;
    1. together they KO it for sure (lower rolls), and neither does alone;
    2. together they may KO it (upper rolls), and neither may alone;
    3. one of them KOs it alone for sure: the other hit is wasted if the first lands first;
    4. foes that fall for sure (lower rolls: either order alone, or the two together);
    5. foes that may fall (upper rolls)."""
    at = _view(obs, "act_target").float()
    at = at.reshape(*at.shape[:-5], 2, 40, at.shape[-1])  # [..., 2, 40, F] (order 10 m + 2 t + b)
    at = torch.nn.functional.pad(at, (0, 0, 0, SLOT_ACTIONS - 40))  # switches and pass: no hit
    tgt = _ORDER_TARGET.to(obs.device)  # (on the CPU: the table itself, no copy)
    present = at[..., _AT_PRESENT]
    lo, hi = at[..., _AT_LO], at[..., _AT_HI]
    ko_lo, ko_hi = (2 * at[..., _AT_KO_LO]).clamp(max=1), (2 * at[..., _AT_KO_HI]).clamp(max=1)

    def rows_cols(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # [..., 2, 45] -> slot a's rows, b's columns
        return x[..., 0, :, None], x[..., 1, None, :]

    out = None
    for t in (3, 4):
        on = present * (tgt == t).to(present.dtype)  # [..., 2, 45]: the order hits this foe
        on0, on1 = rows_cols(on)
        kl0, kl1 = rows_cols(on * ko_lo)
        kh0, kh1 = rows_cols(on * ko_hi)
        lo0, lo1 = rows_cols(on * lo)
        hi0, hi1 = rows_cols(on * hi)
        both = on0 * on1
        together_lo = both * (lo0 + lo1 >= 1).to(both.dtype) * (1 - kl0) * (1 - kl1)
        together_hi = both * (hi0 + hi1 >= 1).to(both.dtype) * (1 - kh0) * (1 - kh1)
        wasted = both * torch.maximum(kl0, kl1)
        falls_lo = torch.maximum(torch.maximum(kl0, kl1), together_lo)
        falls_hi = torch.maximum(torch.maximum(kh0, kh1), together_hi)
        f = torch.stack([both, together_lo, together_hi, wasted, falls_lo, falls_hi], dim=-1)
        out = f if out is None else out + f
    assert out is not None
    return out


class _AttnBlock(nn.Module):
    """One more self-attention block over the Pokemon, the first's shape: pre-norm
    attention, then a pre-norm feed-forward, each added to its input."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.norm(x)
        x = x + self.attn(q, q, q, need_weights=False)[0]
        return x + self.ff(x)


class PolicyValueNet(nn.Module):
    # its buffers (register_buffer below): tensors, which nn.Module's attribute type does not say
    move_static: torch.Tensor  # [moves vocabulary, MOVE_STATIC_F]
    target_slot: torch.Tensor
    target_kind_idx: torch.Tensor
    preview_leads: torch.Tensor  # [90, 2]
    preview_backs: torch.Tensor  # [90, 2]

    def __init__(self, cfg: ModelConfig | None = None, data: str = "sv"):
        """``data``: the game data of the formats it plays ("sv", "champions"; dex.data_of)."""
        cfg = cfg or ModelConfig()
        super().__init__()
        self.cfg = cfg
        self.data = data
        D, A = cfg.mon_dim, cfg.action_dim
        self.species = nn.Embedding(VOCAB_SIZES["species"], cfg.species_dim, padding_idx=0)
        self.moves = nn.Embedding(VOCAB_SIZES["moves"], cfg.move_dim, padding_idx=0)
        self.items = nn.Embedding(VOCAB_SIZES["items"], cfg.item_dim, padding_idx=0)
        self.abilities = nn.Embedding(VOCAB_SIZES["abilities"], cfg.ability_dim, padding_idx=0)
        self.tera = nn.Embedding(22, cfg.tera_dim, padding_idx=0)
        # The dex's static move rows of its game: derived from code and data, not learned, not saved.
        table = move_static(mechanics_named(data))
        self.register_buffer("move_static", torch.from_numpy(table.copy()), persistent=False)
        move_in = cfg.move_dim + MOVE_STATIC_F
        self.mon_move = nn.Sequential(nn.Linear(move_in + MON_MOVE_F, cfg.move_dim), nn.ReLU())
        mon_in = cfg.species_dim + cfg.item_dim + cfg.ability_dim + cfg.tera_dim + MON_F + cfg.move_dim
        self.mon_mlp = _mlp(mon_in, D)
        self.attn = nn.MultiheadAttention(D, cfg.attn_heads, batch_first=True) if cfg.attn_heads else None
        self.attn_norm = nn.LayerNorm(D)
        self.attn_ff = nn.Sequential(nn.LayerNorm(D), nn.Linear(D, 2 * D), nn.ReLU(), nn.Linear(2 * D, D))
        # blocks after the first (model.attn_layers > 1); the first keeps its own names, so a
        # one-block network's checkpoint is what it always was
        n_more = max(cfg.attn_layers - 1, 0) if cfg.attn_heads else 0
        self.attn_more = nn.ModuleList(_AttnBlock(D, cfg.attn_heads) for _ in range(n_more))
        self.empty_row = nn.Parameter(torch.zeros(D))  # the "Pokemon" of an empty slot
        self.field_mlp = nn.Sequential(nn.Linear(FIELD_F, cfg.field_dim), nn.ReLU())
        # the threat block, pooled over the two foes (sum and max) for each of our slots
        threat_in = 4 * THREAT_F if cfg.threat else 0
        self.torso = _mlp(4 * D + cfg.field_dim + threat_in + int(cfg.sheets), cfg.torso_dim)
        self.core = (
            nn.GRU(cfg.torso_dim, cfg.core_dim)
            if cfg.recurrent
            else nn.Sequential(nn.Linear(cfg.torso_dim, cfg.core_dim), nn.ReLU())
        )
        X = cfg.core_dim + cfg.torso_dim
        self.value_head = nn.Sequential(nn.Linear(X, 128), nn.ReLU(), nn.Linear(128, 1))
        if cfg.aux_hp:  # (model.aux_hp) each Pokemon's HP change by the next decision
            self.aux_hp_head = nn.Sequential(nn.Linear(X, 128), nn.ReLU(), nn.Linear(128, N_MONS))
        # ---- turn head: order embeddings
        self.query = nn.Linear(X + D + 2, A)  # state ++ acting Pokemon ++ slot one-hot
        self.act_move = nn.Linear(move_in + ACT_MOVE_F, A)
        self.target = nn.Linear(D, A)
        self.target_kind = nn.Embedding(4, A)
        self.register_buffer("target_slot", torch.tensor(_TARGET_SLOT), persistent=False)
        self.register_buffer("target_kind_idx", torch.tensor(_TARGET_KIND), persistent=False)
        self.act_feat = nn.Linear(ACT_TARGET_F, A)
        self.act_tera = nn.Linear(cfg.tera_dim, A)
        self.switch = nn.Linear(D + SWITCH_F, A)
        if cfg.threat:
            self.threat_query = nn.Linear(2 * THREAT_F, A)  # the acting slot: what both foes threaten it with
            self.threat_target = nn.Linear(2 * THREAT_F, A)  # a foe target: what it threatens us and our ally with
        self.pass_vec = nn.Parameter(torch.zeros(A))
        self.order_mlp = nn.Sequential(
            nn.Linear(A, A), nn.ReLU(inplace=True)
        )  # in place: a [..., 2, 45, A] buffer less
        self.order_score = nn.Linear(A, 1)
        self.pair_u = nn.Linear(A, cfg.pair_rank, bias=False)
        self.pair_v = nn.Linear(A, cfg.pair_rank, bias=False)
        if cfg.joint_ko:  # (model.joint_ko) the state's weight of each joint KO feature, from 0
            self.joint_ko = nn.Linear(X, JOINT_KO_F)
            nn.init.zeros_(self.joint_ko.weight)
            nn.init.zeros_(self.joint_ko.bias)
        # ---- team-preview head
        self.preview_mon = nn.Linear(D, A)
        self.preview_query = nn.Linear(X, A)
        self.preview_out = nn.Linear(A, 2 + cfg.pair_rank)  # lead score, back score, pair factor
        idx_lead, idx_back = [], []
        for lp in LEAD_PAIRS:
            rest = [i for i in range(TEAM_SIZE) if i not in lp]
            for bp in BACK_PAIRS_OF_4:
                idx_lead.append(lp)
                idx_back.append((rest[bp[0]], rest[bp[1]]))
        self.register_buffer("preview_leads", torch.tensor(idx_lead), persistent=False)  # [90, 2]
        self.register_buffer("preview_backs", torch.tensor(idx_back), persistent=False)  # [90, 2]
        # the value's own network (model.value_net): a trunk of the same sizes, without the
        # policy heads or a value head of its own (self.value_head reads it)
        self.value_trunk: PolicyValueNet | None = None
        if cfg.value_net:
            twin = PolicyValueNet(replace(cfg, value_net=False), data)
            for name in _POLICY_PARTS + ("value_head",):
                if hasattr(twin, name):
                    delattr(twin, name)
            self.value_trunk = twin
        for emb in (self.species, self.moves, self.items, self.abilities):
            if cfg.embed_std != 1.0:  # (1.0: nn.Embedding's own N(0, 1), and its random draws)
                with torch.no_grad():
                    emb.weight.normal_(0.0, cfg.embed_std)  # std 0: zeros
                    emb.weight[0].zero_()  # padding_idx
        # Start near-uniform over legal actions: small output weights.
        for head in (self.order_score, self.pair_u, self.pair_v, self.preview_out):
            nn.init.normal_(head.weight, std=1e-3)
            if head.bias is not None:
                nn.init.zeros_(head.bias)

    @property
    def state_dim(self) -> int:
        """Width of the recurrent state a battle carries: the policy's GRU, and the value
        network's after it (model.value_net)."""
        return self.cfg.core_dim * (2 if self.value_trunk is not None else 1)

    def initial_state(self, batch: int, device=None) -> torch.Tensor:
        return torch.zeros(1, batch, self.state_dim, device=device)

    # ------------------------------------------------------------------ pieces
    def _move_input(self, ids: torch.Tensor) -> torch.Tensor:
        """[...] move ids -> [..., move_dim + MOVE_STATIC_F]"""
        return torch.cat([self.moves(ids), self.move_static[ids].to(self.moves.weight.dtype)], dim=-1)

    def _mon_move_tokens(self, mids: torch.Tensor, mm: torch.Tensor) -> torch.Tensor:
        """Each Pokemon's move tokens: ReLU(W [move embedding ++ static row ++ features] + b)
        for move ids ``mids`` [...] and their features ``mm`` [..., MON_MOVE_F].

        The id's part of that sum, W_id [embedding ++ static row] + b, is the same wherever
        the id appears. A learner's batch holds ~10x more move slots (48 a step) than there
        are moves, so there it is computed once per move of the vocabulary and looked up:
        the same numbers as the direct form up to float rounding, at ~40 % of its cost (the
        layer's forward and backward at 180 steps: 3.5 against 8.5 ms). The embedding's
        padding row (id 0) gets no gradient either way."""
        lin = cast(nn.Linear, self.mon_move[0])
        # the direct form with fewer slots than moves (acting under ~20 decisions) and in a
        # compiled forward (sim.compile, learner.compile: one graph for every batch size)
        if torch.compiler.is_compiling() or mids.numel() <= self.move_static.shape[0]:
            return self.mon_move(torch.cat([self._move_input(mids), mm], dim=-1))
        vocab = torch.arange(self.move_static.shape[0], device=mids.device)
        k = lin.in_features - mm.shape[-1]
        per_id = nn.functional.linear(self._move_input(vocab), lin.weight[:, :k], lin.bias)  # [moves, move_dim]
        return torch.relu(per_id[mids] + nn.functional.linear(mm.to(per_id.dtype), lin.weight[:, k:]))

    def pokemon(self, obs: torch.Tensor) -> torch.Tensor:
        """[..., OBS_DIM] -> each Pokemon's embedding [..., 12, mon_dim] (after attention)."""
        ids = _view(obs, "ids").long()
        mons = _view(obs, "mons")
        mm = _view(obs, "mon_moves")
        mids = ids[..., 3:7]
        tok = self._mon_move_tokens(mids, mm)  # [..., 12, 4, move_dim]
        known = (mids > 0).unsqueeze(-1).to(tok.dtype)
        pooled = (tok * known).sum(-2) / known.sum(-2).clamp(min=1.0)  # a set: order does not matter
        x = torch.cat(
            [
                self.species(ids[..., 0]),
                self.items(ids[..., 1]),
                self.abilities(ids[..., 2]),
                self.tera(ids[..., 7]),
                mons,
                pooled,
            ],
            dim=-1,
        )
        e = self.mon_mlp(x)
        if self.attn is not None:
            lead = e.shape[:-2]
            flat = e.reshape(-1, N_MONS, e.shape[-1])
            q = self.attn_norm(flat)
            flat = flat + self.attn(q, q, q, need_weights=False)[0]
            flat = flat + self.attn_ff(flat)
            for block in self.attn_more:
                flat = block(flat)
            e = flat.reshape(*lead, N_MONS, e.shape[-1])
        return e

    def torso_of(self, obs: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        own, opp = e[..., :6, :], e[..., 6:, :]
        field = self.field_mlp(_view(obs, "field"))
        parts = [own.mean(-2), own.amax(-2), opp.mean(-2), opp.amax(-2), field]
        if self.cfg.threat:
            parts.append(_threat_pooled(obs).flatten(-2).to(field.dtype))
        if self.cfg.sheets:
            parts.append(_view(obs, "sheets").to(field.dtype))
        return self.torso(torch.cat(parts, dim=-1))

    def turn_logits(
        self, obs: torch.Tensor, e: torch.Tensor, x: torch.Tensor, slot_legal: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Per-action turn logits [..., 2025] (float32, unmasked).

        ``slot_legal`` [..., 2, 45] bool (each slot's orders that some legal joint action
        uses): only those orders go through the order MLP (~9 of a slot's 45 on a mean
        turn), the others' scores and pair factors are 0. The logits of every joint action
        of two legal orders are the dense form's (up to float rounding); the rest are
        meaningless and must be masked, as ``_policy`` does. Without it: every order (the
        dense form, fixed shapes)."""
        lead = obs.shape[:-1]
        ext = torch.cat([e, self.empty_row.to(e.dtype).expand(*lead, 1, e.shape[-1])], dim=-2)  # [..., 13, D]
        slots = _view(obs, "slots").long().clamp(0, N_MONS)  # [..., 4]
        at = torch.gather(ext, -2, slots.unsqueeze(-1).expand(*lead, 4, ext.shape[-1]))  # [..., 4, D]
        actor = at[..., :2, :]
        slot_onehot = torch.eye(2, device=obs.device, dtype=x.dtype).expand(*lead, 2, 2)
        q = self.query(torch.cat([x.unsqueeze(-2).expand(*lead, 2, x.shape[-1]), actor, slot_onehot], dim=-1))
        if self.cfg.threat:
            q = q + self.threat_query(_threat_pooled(obs).to(q.dtype))
        # moves: [..., 2, 4, A]
        act_ids = _view(obs, "act_ids").long()
        m = self.act_move(torch.cat([self._move_input(act_ids), _view(obs, "act_move")], dim=-1))
        # targets: the Pokemon at each target position (none -> zeros), and its kind: [..., 2, 5, A]
        tgt_rows = torch.cat([at, torch.zeros_like(at[..., :1, :])], dim=-2)[..., self.target_slot, :]  # -1 -> zeros
        tau = self.target(tgt_rows).unsqueeze(-3) + self.target_kind(self.target_kind_idx)
        if self.cfg.threat:  # targets 3, 4 are foe a, foe b
            th = _view(obs, "threat").to(tau.dtype)  # [..., 2 (our slot), 2 (foe), THREAT_F]
            # foe f seen from acting slot s: what it threatens s with, then s's ally
            seen = torch.cat([th, th.flip(-3)], dim=-1)  # [..., 2 (s), 2 (f), 2 THREAT_F]
            tau = tau + torch.nn.functional.pad(self.threat_target(seen), (0, 0, 3, 0))
        tera_ids = torch.gather(_view(obs, "ids")[..., 7].long(), -1, slots[..., :2].clamp(max=N_MONS - 1))
        tera = self.act_tera(self.tera(tera_ids))  # [..., 2, A]
        sw = self.switch(torch.cat([e[..., :4, :], _view(obs, "switch")], dim=-1))  # [..., 4, A]
        if slot_legal is not None:
            s, u, v = self._legal_orders(obs, q, m, tau, tera, sw, slot_legal)
        else:
            s, u, v = self._all_orders(obs, q, m, tau, tera, sw)
        pair = torch.einsum("...ar,...br->...ab", u, v) / self.cfg.pair_rank**0.5
        joint = s[..., 0, :, None] + s[..., 1, None, :] + pair
        if self.cfg.joint_ko:
            w = self.joint_ko(x).float()  # [..., F]
            joint = joint + torch.einsum("...abf,...f->...ab", joint_ko_features(obs), w)
        return joint.flatten(-2)

    def _all_orders(self, obs, q, m, tau, tera, sw) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Every order's score [..., 2, 45] and pair factors [..., 45, r] (slot 0's u, slot 1's v)."""
        f = self.act_feat(_view(obs, "act_target"))  # [..., 2, 4, 5, 2, A]
        lead = obs.shape[:-1]
        b = torch.arange(2, device=obs.device, dtype=f.dtype).view(2, 1)
        # the small terms summed first: two adds at the full [..., 2, 4, 5, 2, A] size, not four
        per_move = (m + q.unsqueeze(-2))[..., :, :, None, None, :]  # [..., 2, 4, 1, 1, A]
        per_target = (tau[..., :, :, None, :] + b * tera[..., :, None, None, :])[
            ..., :, None, :, :, :
        ]  # [..., 2, 1, 5, 2, A]
        moves = f + (per_move + per_target)
        moves = moves.reshape(*lead, 2, 40, moves.shape[-1])  # index 10 m + 2 t + b, as the codec
        switches = sw.unsqueeze(-3) + q.unsqueeze(-2)  # [..., 2, 4, A]
        passes = (self.pass_vec.to(q.dtype) + q).unsqueeze(-2)  # [..., 2, 1, A]
        h = self.order_mlp(torch.cat([moves, switches, passes], dim=-2).relu_())  # [..., 2, 45, A]
        s = self.order_score(h).squeeze(-1).float()  # [..., 2, 45]
        return s, self.pair_u(h[..., 0, :, :]).float(), self.pair_v(h[..., 1, :, :]).float()

    def _legal_orders(self, obs, q, m, tau, tera, sw, slot_legal) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`_all_orders` on the orders of ``slot_legal`` only (0 elsewhere): each
        order's input gathered from the same terms (slot order o < 40: move o // 10,
        target o % 10 // 2, tera o % 2; 40..43 switch; 44 pass)."""
        lead, A = obs.shape[:-1], q.shape[-1]
        n = slot_legal[..., 0, 0].numel()
        ns, o = slot_legal.reshape(n * 2, SLOT_ACTIONS).nonzero(as_tuple=True)  # ns = 2 step + slot
        pre = q.reshape(n * 2, A)[ns]  # every order: its slot's query
        mv = (o < 40).nonzero().squeeze(1)
        om, nm = o[mv], ns[mv]
        rows = _view(obs, "act_target").reshape(n * 2 * 40, ACT_TARGET_F)[nm * 40 + om]
        move_in = (
            self.act_feat(rows)
            + m.reshape(n * 8, A)[nm * 4 + om // 10]
            + tau.reshape(n * 10, A)[nm * 5 + om % 10 // 2]
            + (om % 2).unsqueeze(-1).to(q.dtype) * tera.reshape(n * 2, A)[nm]
        )
        sv = ((o >= 40) & (o < 44)).nonzero().squeeze(1)
        sw_in = sw.reshape(n * 4, A)[(ns[sv] // 2) * 4 + o[sv] - 40]
        add = pre.new_zeros(pre.shape).index_copy(0, mv, move_in.to(pre.dtype)).index_copy(0, sv, sw_in)
        add = add + (o == SLOT_ACTIONS - 1).unsqueeze(-1).to(pre.dtype) * self.pass_vec.to(pre.dtype)
        h = self.order_mlp((pre + add).relu_())  # [M, A]
        flat = ns * SLOT_ACTIONS + o
        s = self.order_score(h).squeeze(-1).float()
        s = s.new_zeros(n * 2 * SLOT_ACTIONS).index_copy(0, flat, s).view(*lead, 2, SLOT_ACTIONS)
        factors = []
        for slot, proj in ((0, self.pair_u), (1, self.pair_v)):
            k = (ns % 2 == slot).nonzero().squeeze(1)
            out = proj(h[k]).float()
            at = (ns[k] // 2) * SLOT_ACTIONS + o[k]
            factors.append(out.new_zeros(n * SLOT_ACTIONS, out.shape[-1]).index_copy(0, at, out))
        return s, *(f.view(*lead, SLOT_ACTIONS, -1) for f in factors)

    def preview_logits(self, e: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Team-preview logits [..., 90] (float32) from our six against theirs."""
        hp = torch.relu(self.preview_mon(e[..., :TEAM_SIZE, :]) + self.preview_query(x).unsqueeze(-2))
        out = self.preview_out(hp).float()  # [..., 6, 2 + r]
        lead_s, back_s, p = out[..., 0], out[..., 1], out[..., 2:]
        pair = torch.einsum("...ir,...jr->...ij", p, p) / self.cfg.pair_rank**0.5  # [..., 6, 6]
        l0, l1 = self.preview_leads[:, 0], self.preview_leads[:, 1]
        b0, b1 = self.preview_backs[:, 0], self.preview_backs[:, 1]
        return lead_s[..., l0] + lead_s[..., l1] + back_s[..., b0] + back_s[..., b1] + pair[..., l0, l1]

    # ------------------------------------------------------------------ forward
    def forward(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        is_preview: torch.Tensor,
        h: torch.Tensor,
        *,
        policy: bool = True,
        valid: torch.Tensor | None = None,
        aux: bool = False,
    ) -> tuple:
        """obs [T, B, OBS_DIM], mask [T, B, 2025] bool, is_preview [T, B] bool, h [1, B, H]
        -> masked logits [T, B, 2025] float32 (None when ``policy`` is False: value only),
        value [T, B], next h [1, B, H] (H = ``state_dim``; with model.value_net a
        value-only forward leaves the policy's half of it where it was).

        ``valid`` [T, B] bool, on any device (right-padded trajectories, as the learner's batches): every
        per-step part (Pokemon, torso, heads) runs on the valid steps only and only the
        GRU sees the padded grid, so a batch of uneven trajectories costs what its real
        steps cost. Valid steps get the same outputs as without it; padded steps get
        logits NEG_INF and value 0, and the returned h is the GRU's state after the whole
        padded grid (the learner does not use it).

        ``aux`` (model.aux_hp, with ``policy``): a fourth output, the auxiliary head's
        predicted HP changes [T, B, 12] float32 (0 on padded steps)."""
        assert obs.dim() == 3 and obs.shape[-1] == OBS_DIM, obs.shape
        assert mask.shape == (*obs.shape[:2], JOINT_ACTIONS), mask.shape
        if aux and (not policy or not hasattr(self, "aux_hp_head")):
            raise ValueError("aux=True needs policy=True and a network built with model.aux_hp")
        if valid is None or bool(valid.all()):
            return self._forward_steps(obs, mask, is_preview, h, policy, aux)
        T, B = valid.shape
        assert not bool((valid[1:] & ~valid[:-1]).any()), "valid must be right-padded (a prefix of each column)"
        # flat (t, b) of the real steps, [N]; found where ``valid`` lives (the learner passes
        # its host copy, so finding them does not wait for the GPU)
        idx = valid.reshape(-1).nonzero().squeeze(1).to(obs.device, non_blocking=True)
        flat_obs = obs.reshape(T * B, OBS_DIM).index_select(0, idx)
        h, hv = self._split_state(h)
        e = xv = None
        if self.value_trunk is None or policy:  # (value only with its own network: not needed)
            e, xv, h = self._trunk_valid(flat_obs, h, idx, T, B)
        if self.value_trunk is not None:
            _, xv_value, hv = self.value_trunk._trunk_valid(flat_obs, hv, idx, T, B)
        else:
            xv_value = xv
        vv = self.value_head(xv_value).squeeze(-1)
        value = vv.new_zeros(T * B).index_copy(0, idx, vv).view(T, B)
        h = self._join_state(h, hv)
        if not policy:
            return None, value, h
        lv = self._policy(
            flat_obs, e, xv, mask.reshape(T * B, -1).index_select(0, idx), is_preview.reshape(-1).index_select(0, idx)
        )
        logits = lv.new_full((T * B, JOINT_ACTIONS), NEG_INF).index_copy(0, idx, lv).view(T, B, JOINT_ACTIONS)
        if aux:
            av = self.aux_hp_head(xv).float()
            return logits, value, h, av.new_zeros(T * B, N_MONS).index_copy(0, idx, av).view(T, B, N_MONS)
        return logits, value, h

    def _trunk_valid(self, flat_obs, h, idx, T: int, B: int):
        """The trunk over a padded grid's real steps: their Pokemon embeddings, the state
        they read ([N, core + torso]) and the GRU's state after the grid."""
        e = self.pokemon(flat_obs)
        zv = self.torso_of(flat_obs, e)
        if not self.cfg.recurrent:  # (model.recurrent=false) the real steps alone; h stays
            cv = self.core(zv)
            return e, torch.cat([cv, zv.to(cv.dtype)], dim=-1), h
        z = zv.new_zeros(T * B, zv.shape[-1]).index_copy(0, idx, zv).view(T, B, -1)
        core, h = self.core(z, h)  # right padding: a real step's output never sees a padded one
        xv = torch.cat([core.reshape(T * B, -1).index_select(0, idx), zv.to(core.dtype)], dim=-1)
        return e, xv, h

    def _trunk(self, obs, h):
        e = self.pokemon(obs)
        z = self.torso_of(obs, e)
        if self.cfg.recurrent:
            core, h = self.core(z, h)
        else:  # (model.recurrent=false) the step's torso alone; h stays as it came
            core = self.core(z)
        return e, torch.cat([core, z.to(core.dtype)], dim=-1), h

    def _split_state(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        if self.value_trunk is None:
            return h, None
        c = self.cfg.core_dim
        return h[..., :c].contiguous(), h[..., c:].contiguous()

    def _join_state(self, h: torch.Tensor, hv: torch.Tensor | None) -> torch.Tensor:
        return h if hv is None else torch.cat([h, hv], dim=-1)

    def _forward_steps(self, obs, mask, is_preview, h, policy, aux=False):
        h, hv = self._split_state(h)
        e = x = None
        if self.value_trunk is None or policy:  # (value only with its own network: not needed)
            e, x, h = self._trunk(obs, h)
        if self.value_trunk is not None:
            _, x_value, hv = self.value_trunk._trunk(obs, hv)
        else:
            x_value = x
        value = self.value_head(x_value).squeeze(-1)
        h = self._join_state(h, hv)
        if not policy:
            return None, value, h
        if aux:
            return self._policy(obs, e, x, mask, is_preview), value, h, self.aux_hp_head(x).float()
        return self._policy(obs, e, x, mask, is_preview), value, h

    def _policy(self, obs, e, x, mask, is_preview) -> torch.Tensor:
        """Masked joint logits [..., 2025] (float32): preview or turn, per step."""
        # On the CPU, in batches of LEGAL_ORDERS_MIN_STEPS steps or more (a learner's), only
        # the legal orders go through the order MLP. Every order does on an accelerator (fixed
        # shapes: finding the legal ones would wait for the device), in small batches, and in
        # a compiled forward (sim.compile: the legal orders' data-dependent count would break
        # its graph and recompile it at every batch).
        slot_legal = None
        if (
            obs.device.type == "cpu"
            and not torch.compiler.is_compiling()
            and is_preview.numel() >= LEGAL_ORDERS_MIN_STEPS
        ):
            slot_legal = legal_slot_orders(mask, is_preview)
        turn = self.turn_logits(obs, e, x, slot_legal)
        preview = self.preview_logits(e, x)
        preview = torch.nn.functional.pad(preview, (0, JOINT_ACTIONS - PREVIEW_ACTIONS), value=NEG_INF)
        logits = torch.where(is_preview.unsqueeze(-1), preview, turn)
        return masked_logits(logits, mask)


assert SLOT_ACTIONS == 45
