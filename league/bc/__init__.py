"""Behaviour cloning from Showdown battle logs: record (record.py), parse into
trajectories through the RL encoder and codec (dataset.py), train the same network
by supervised learning (train.py). CLI: ``python -m tools.bc``."""
