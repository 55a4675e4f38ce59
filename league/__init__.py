"""league: a population-based league trainer for Pokemon VGC doubles on real Showdown servers."""
