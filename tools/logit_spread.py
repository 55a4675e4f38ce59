"""How sharp a checkpoint's policy is, and how close its logits sit to NeuRD's threshold.

    python -m tools.logit_spread CKPT... --data DATA_DIR [--trajectories 300] [--beta 2]

DATA_DIR is a parsed behaviour-cloning data set (``tools.bc parse`` / ``train`` write
one: ``heldout_*.pt`` chunks). Each checkpoint's network is unrolled over the first N
held-out trajectories (recurrent state carried), and at every decision the most likely
legal action's logit is measured from NeuRD's two threshold centres: the legal mean and
the reference's mean over all 2,025 actions (illegal ones as 0). Where it sits at or
past +beta, NeuRD cannot raise it further, which caps how sharp the policy can get.
Last stdout line: JSON, one entry per checkpoint: ``steps``, ``entropy_mean``,
``entropy_median``, ``top_centred_median`` (legal / all) and ``top_at_beta`` (legal / all).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch


def spread(ckpt: str, data: Path, n_traj: int, beta: float) -> dict:
    from league.bc.dataset import dataset_formats, unpack_mask
    from league.checkpoint import load_policy_net, safe_load
    from league.learn.rnad import centred_logits

    manifest = data / "manifest.json"
    formats = dataset_formats(json.loads(manifest.read_text())) if manifest.is_file() else [None]
    net = load_policy_net(ckpt, format_id=formats[0], name=ckpt) if formats[0] else load_policy_net(ckpt)
    chunks = sorted(data.glob("heldout_*.pt"))
    if not chunks:
        from tools import cli

        cli.bad_input(f"{data}: no heldout_*.pt chunks (run tools.bc parse first)")
    d = safe_load(chunks[0], "BC chunk")
    obs, mask, prev, lengths = d["obs"].float(), unpack_mask(d["mask"]), d["is_preview"], d["lengths"]
    ent: list[float] = []
    top: dict[str, list[float]] = {"legal": [], "all": []}  # by centring (rnad.centred_logits)
    off = 0
    with torch.no_grad():
        for n in lengths.tolist()[:n_traj]:
            sl = slice(off, off + n)
            off += n
            logits, _, _ = net(obs[sl, None], mask[sl, None], prev[sl, None], net.initial_state(1))
            lg, m = logits[:, 0], mask[sl]
            log_pi = torch.log_softmax(lg, -1)
            ent.extend((-(log_pi.exp() * log_pi.masked_fill(~m, 0.0)).sum(-1)).tolist())
            best = lg.argmax(-1, keepdim=True)
            for c in top:
                top[c].extend(centred_logits(lg, m, c).gather(-1, best).squeeze(-1).tolist())
    return {
        "checkpoint": ckpt,
        "steps": len(ent),
        "entropy_mean": round(float(np.mean(ent)), 3),
        "entropy_median": round(float(np.median(ent)), 3),
        "top_centred_median": {c: round(float(np.median(v)), 2) for c, v in top.items()},
        "top_at_beta": {c: round(float(np.mean(np.array(v) >= beta)), 3) for c, v in top.items()},
    }


def main(argv=None) -> None:
    from tools import cli

    ap = cli.parser("python -m tools.logit_spread", __doc__)
    ap.add_argument("checkpoints", nargs="+", help="league or BC checkpoints")
    ap.add_argument("--data", required=True, type=Path, help="a parsed BC data set (heldout_*.pt chunks)")
    ap.add_argument("--trajectories", type=int, default=300, help="held-out trajectories read")
    ap.add_argument("--beta", type=float, default=2.0, help="NeuRD threshold the top logits are compared with")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        cli.bad_input(f"{args.data}: not a directory (a data set written by tools.bc parse)")
    from league.checkpoint import CheckpointError

    try:
        out = [spread(c, args.data, args.trajectories, args.beta) for c in args.checkpoints]
    except CheckpointError as e:
        cli.bad_input(str(e))
    for r in out:
        print(
            f"{r['checkpoint']}: H mean {r['entropy_mean']:.2f} | top logit − legal mean "
            f"{r['top_centred_median']['legal']:+.2f} (at ≥β {r['top_at_beta']['legal']:.2f}) | − all-mean "
            f"{r['top_centred_median']['all']:+.2f} (at ≥β {r['top_at_beta']['all']:.2f})"
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
