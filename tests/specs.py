"""Policy spec strings with every probability knob pinned, for deterministic scenarios."""

# Every knob at the value that makes a decision deterministic and consumes no
# random number: never bluff, challenge, forget or catch; always play a drawn card.
PINNED = {"bluff": 0, "challenge": 0, "forget_uno": 0, "catch": 0, "play_drawn": 1,
          "voluntary_draw": 0}


def pinned(name: str, **knobs) -> str:
    """`name(...)` with every probability knob pinned (PINNED), overridden by `knobs`."""
    k = dict(PINNED)
    k.update(knobs)
    return f"{name}(" + ",".join(f"{a}={b}" for a, b in k.items()) + ")"


def greedy(**knobs) -> str:
    """A greedy policy spec with every probability knob pinned (overridable)."""
    return pinned("greedy", **knobs)
