"""How a run's components talk: typed messages (messages.py) and the sockets and shared
buffers that carry them (wiring.py)."""
