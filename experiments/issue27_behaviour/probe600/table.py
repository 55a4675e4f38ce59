import sys, json
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
tags = ["learner/main/policy/protect_mass", "learner/main/policy/status_mass", "learner/main/policy/switch_mass", "learner/main/policy/tera_mass", "learner/main/entropy/turn"]
out = {}
for job in sys.argv[1:]:
    ea = EventAccumulator(f"runs/probe/{job}/tb", size_guidance={"scalars": 0}); ea.Reload()
    row = {}
    for t in tags:
        if t not in ea.Tags()["scalars"]:
            continue
        ev = ea.Scalars(t)
        for lo, hi in ((0, 50), (100, 150), (250, 300), (400, 450), (550, 600)):
            xs = [e.value for e in ev if lo <= e.step < hi]
            if xs:
                row.setdefault(t.split("/")[-1], {})[f"{lo}-{hi}"] = round(sum(xs) / len(xs), 4)
    out[job] = row
print(json.dumps(out, indent=1))
