"""Export a league or BC checkpoint as a small policy-only file.

    python -m tools.export CKPT OUT [--fp32] [--note TEXT] [--weights online|target]

OUT holds the online network's weights (``--weights target``: a league checkpoint's
target network, the learner's exponential average of them; float16 by default, half the size; loaded
back into a float32 network, its policy stays within 1e-2 of the source's,
tests/unit/test_export.py),
the model settings with the encoder version, and where it came from. Every tool's
`checkpoint:OUT` spec, `run.init_checkpoint` and `league.bc_checkpoint` accept it;
`--p1 agent:NAME` plays league/agents/NAME.pt. Written atomically. Last line: JSON
with `out`, `bytes`, `params`, `dtype` and `source`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

WEIGHTS = {"online": "net", "target": "target"}  # --weights -> the checkpoint's learner key


def export(src: str | Path, out: str | Path, fp16: bool = True, note: str = "", weights: str = "online") -> dict:
    from league.checkpoint import CheckpointError, atomic_torch_save, load_checkpoint, load_policy_net

    state = load_checkpoint(src)
    which = WEIGHTS[weights]
    if which not in state.get("learner", {}):
        raise CheckpointError(f"checkpoint {src} holds no {weights} weights (a policy-only file has only online ones)")
    net = load_policy_net(src, which=which)
    sd = {k: (v.half() if fp16 and v.is_floating_point() else v) for k, v in net.state_dict().items()}
    counters = state.get("counters", {}) or {}
    source = {
        "path": str(src),
        "updates": counters.get("updates", state.get("learner", {}).get("steps")),
        "battles": counters.get("battles"),
        "exported": time.strftime("%Y-%m-%d %H:%M:%S"),
        "note": note,
        "weights": weights,
    }
    if "bc" in state:
        source["bc"] = state["bc"]
    exported = {"learner": {"net": sd}, "model_cfg": dict(state["model_cfg"]), "export": source}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_torch_save(exported, out)
    small = load_policy_net(out)  # it loads back
    return {
        "out": str(out),
        "bytes": out.stat().st_size,
        "params": sum(p.numel() for p in small.parameters()),
        "dtype": "float16" if fp16 else "float32",
        "source": source,
    }


def main(argv=None) -> dict:
    from tools import cli

    ap = cli.parser("python -m tools.export", __doc__)
    ap.add_argument("checkpoint", help="a league checkpoint (RUN_DIR/checkpoints/ckpt_*.pt) or a BC bc.pt")
    ap.add_argument("out", help="the file to write, e.g. league/agents/regc.pt")
    ap.add_argument("--fp32", action="store_true", help="keep float32 weights")
    ap.add_argument("--note", default="", help="how it was trained, stored in the file")
    ap.add_argument(
        "--weights",
        choices=sorted(WEIGHTS),
        default="online",
        help="the online network, or a league checkpoint's target network (the learner's moving average of it)",
    )
    args = ap.parse_args(argv)
    from league.checkpoint import CheckpointError

    if not Path(args.checkpoint).is_file():
        print(f"error: no checkpoint file at {args.checkpoint}", file=sys.stderr)
        raise SystemExit(2)
    try:
        out = export(args.checkpoint, args.out, fp16=not args.fp32, note=args.note, weights=args.weights)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
