from league.match import _split, wilson_interval


def test_wilson_interval_hand_computed():
    lo, hi = wilson_interval(8, 10)  # p=0.8, z=1.96: (0.4902, 0.9433)
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-9


def test_split_shares():
    assert _split(10, 3) == [4, 3, 3] and sum(_split(500, 2)) == 500
