"""The learner's policy masses (Protect, status, switch, tera), turn entropy and value
explained variance, averaged over update windows, from a run's TensorBoard events.

    python experiments/issue27_epochs/masses.py RUN_DIR [RUN_DIR ...]
"""

import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

TAGS = [
    "learner/main/policy/protect_mass",
    "learner/main/policy/status_mass",
    "learner/main/policy/switch_mass",
    "learner/main/policy/tera_mass",
    "learner/main/entropy/turn",
    "learner/main/value/explained_variance",
]
WINDOWS = (
    (0, 50),
    (100, 150),
    (250, 300),
    (400, 450),
    (550, 600),
    (900, 1000),
    (1400, 1500),
    (1900, 2000),
    (2400, 2500),
)

for d in sys.argv[1:]:
    ea = EventAccumulator(f"{d}/tb", size_guidance={"scalars": 0})
    ea.Reload()
    print(d)
    for t in TAGS:
        if t not in ea.Tags()["scalars"]:
            continue
        ev = ea.Scalars(t)
        row = {}
        for lo, hi in WINDOWS:
            xs = [e.value for e in ev if lo <= e.step < hi]
            if xs:
                row[f"{lo}"] = round(sum(xs) / len(xs), 4)
        print(" ", t.split("/")[-1], row)
