"""uno_sim.players: how a seat decides, in a room of its own.

The engine never needs to know how a player thinks: it asks a seat's policy for each
decision.  This package holds the players' side of that line: the seat's contract,
which the engines take and which stands below them (`specs`: the knob table and policy
specs; `user`: user policies, the observation and actions a Python seat is given), and
what plays whole games, which stands above the runner and which nothing below it
imports (`human`: a seat played from the terminal; `tournament`; `league`; and the
learned network player and its training).  docs/contributing.md "The layers".
"""
