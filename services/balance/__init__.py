"""Balance measurement: seeded bot games per pairing, win rates with Wilson intervals, heat maps.

``fallenctl balance <game>`` (docs/balance.md) is the command; ``run.measure`` the library.
"""
