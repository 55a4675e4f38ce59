import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in rows if r["battles"] and "learner" in r["cpu"] and "node_simulation" in r["cpu"]]
a = next(r for r in rows if r["t"] - rows[0]["t"] >= 150)  # ~3 min in
b = rows[-1]
n = b["battles"] - a["battles"]; dt = b["t"] - a["t"]
print(f"window {dt/60:.1f} min, battles {n}, {n/dt:.2f} b/s, updates {b['updates']-a['updates']}")
tot = 0
for k in sorted(b["cpu"]):
    v = (b["cpu"][k] - a["cpu"].get(k, 0)) / n; tot += v
    print(f"  {k:22s} {1000*v:6.1f} ms/battle  {(b['cpu'][k]-a['cpu'].get(k,0))/dt:5.2f} cores")
print(f"  total {1000*tot:.1f} ms/battle, {tot*n/dt:.2f} cores")
