"""league: a population-based league trainer for Pokemon VGC doubles on real Showdown servers."""

from league import accel as _accel

_accel.install()  # the compiled builds of the decision's modules, where fresh (league/accel/)
