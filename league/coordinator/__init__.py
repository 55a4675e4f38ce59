"""The coordinator of a run: its decisions (coordinator.py, no process in sight), the
processes it places and watches (supervisor.py), what it shows (monitor.py)."""
