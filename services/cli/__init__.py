"""fallenctl: the command-line tool (serve, token, play, replay, bench)."""
