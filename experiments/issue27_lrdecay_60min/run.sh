#!/bin/sh
# Issue 27: the default hour with the learning rate decaying linearly from 3e-4 to 3e-5
# over 12,000 updates (~the hour's updates), alone on the box.
cd "$(dirname "$0")/../.."
exec .venv/bin/python -m league.run learner.lr_decay_updates=12000 learner.lr_final=0.1 \
  hydra.run.dir=outputs/regc_lrdecay_1205 run.console=plain
