"""uno_sim.players: how a seat decides, in a room of its own.

The engine never needs to know how a player thinks: it asks a seat's policy for each
decision.  This package holds the players' side of that line (policy specs, user
policies, the learned network player, its training, tournaments and the league); the
engine and the runner below it never import it back.
"""
