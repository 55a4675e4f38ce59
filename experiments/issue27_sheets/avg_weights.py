"""Average the online weights ('net') of several checkpoints of one run, or take one
checkpoint's target network: a policy-only file checkpoint:OUT reads."""
import sys
from pathlib import Path

import torch

from league.checkpoint import atomic_torch_save, load_checkpoint

mode, out, *paths = sys.argv[1:]
states = [load_checkpoint(p) for p in paths]
if mode == "target":
    sd = states[-1]["learner"]["target"]
else:
    sds = [s["learner"]["net"] for s in states]
    sd = {k: (sum(d[k].double() for d in sds) / len(sds)).to(sds[0][k].dtype) if sds[0][k].is_floating_point() else sds[-1][k] for k in sds[0]}
atomic_torch_save({"learner": {"net": sd, "steps": 0}, "model_cfg": states[-1]["model_cfg"], "source": f"{mode} of {paths}"}, Path(out))
print(out)
