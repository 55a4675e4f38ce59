"""Playing on a Showdown server: the connection (client.py) and the player side (online.py)."""
