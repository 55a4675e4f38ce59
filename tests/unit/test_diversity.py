"""Policy distance on hand-made distributions, and members' policies on the shipped probe states."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import torch

from league.model.net import PolicyValueNet
from league.population.diversity import DiversityProbe, pairwise_tv, policy_vector, probe_states, summarize
from tests.unit.test_exploiters import SMALL, fake_checkpoint


def test_pairwise_tv_and_summary_on_a_hand_table():
    # two states: the first with 2 legal actions, the second with 3 (rows: the legal entries, concatenated)
    p = [0.5, 0.5, 1.0, 0.0, 0.0]
    q = [1.0, 0.0, 0.0, 0.5, 0.5]
    d = pairwise_tv(np.array([p, q, p]), n_states=2)
    # TV(p, q): state 1 ½(0.5 + 0.5) = 0.5, state 2 ½(1 + 0.5 + 0.5) = 1, mean 0.75
    assert d == pytest.approx(np.array([[0, 0.75, 0], [0.75, 0, 0.75], [0, 0.75, 0]]))
    # the third is the first again (0 apart): it counts once
    assert summarize(d) == {"mean_tv": 0.75, "min_tv": 0.75, "distinct": 2}
    r = pairwise_tv(np.array([p, q, [0.5, 0.5, 0.0, 1.0, 0.0]]), n_states=2)
    # TV(p, r) = (0 + 1) / 2 = ½, TV(q, r) = (½ + ½) / 2 = ½
    assert summarize(r) == pytest.approx({"mean_tv": (0.75 + 0.5 + 0.5) / 3, "min_tv": 0.5, "distinct": 3})
    assert summarize(d[:1, :1]) == {"mean_tv": None, "min_tv": None, "distinct": 1}


def test_members_on_the_probe_states(tmp_path):
    obs, mask, prev, valid = probe_states()
    n = int(valid.sum())
    assert n >= 300 and int(prev.sum()) == obs.shape[1]  # every recorded side starts at team preview
    torch.manual_seed(0)
    v = policy_vector(PolicyValueNet(SMALL).eval())
    assert v.shape == (int(mask[valid].sum()),) and v.sum() == pytest.approx(n)  # one distribution per state
    a, b = fake_checkpoint(tmp_path / "a.pt"), fake_checkpoint(tmp_path / "b.pt")
    probe = DiversityProbe()
    ids, d, skipped = probe.measure([("a", a), ("a2", a), ("b", b), ("gone", str(tmp_path / "gone.pt"))])
    assert ids == ["a", "a2", "b"] and skipped == ["gone"]
    assert d[0, 1] == 0.0 and 0.0 < d[0, 2] <= 1.0 and d[0, 2] == d[2, 0] == d[1, 2]


def test_the_probe_is_what_gen_probe_writes_from_its_battles(tmp_path):
    """The shipped probe's sides, written back as battle logs (league/bc/record.py's
    format, two sides a battle), come back from tools.gen_probe byte for byte."""
    from league.population.diversity import PROBE_PATH
    from tools.gen_probe import write_probe

    sides = json.loads(gzip.decompress(PROBE_PATH.read_bytes()))["sides"]
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(0, len(sides), 2):
        text = [">meta {}"]
        for s in sides[i : i + 2]:
            text += [f">side {s['username']} mixed", *s["lines"]]
        (logs / f"{i // 2:03d}.log").write_text("\n".join(text))
    assert write_probe(logs, tmp_path / "probe.json.gz") == len(sides)
    assert (tmp_path / "probe.json.gz").read_bytes() == PROBE_PATH.read_bytes()


@pytest.mark.parametrize(("placement", "threads"), [("process", 1), ("ray", 1), ("serial", 3)])
def test_the_coordinators_process_keeps_to_one_torch_thread(placement, threads):
    # the diversity probe runs in the coordinator's process: with torch's default (a thread
    # per core) it took ~9 of a 16-core machine's cores from the shards; serial placement
    # steps the learner in that process and keeps whatever was set. A child process: the
    # setting is the process's.
    import subprocess
    import sys

    code = (
        "import torch; torch.set_num_threads(3)\n"
        "from league.run import coordinator_threads\n"
        f"coordinator_threads({placement!r}); print(torch.get_num_threads())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert int(out.stdout.split()[-1]) == threads
