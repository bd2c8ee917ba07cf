"""How strong a learned player is: one seat against a table of one policy, on paired deals.

Design (as `uno_sim.tournament`): the deal d is game `first + d` of run `seed` (one seed
per deal: the same dealer draw and the same deals of every round whatever is played), and
it is played once per seat of the focal player (seat 0, 1, ..., players-1, every other
seat the opponents' policy).  The focal player's score on a deal is its mean share of the
game's win over those rotations (1 for a win, 1/k for a win shared by k); the figure is
the mean score with the 95% interval of `stats.share_ci` (Wilson at the effective sample
size, respecting the pairing).  The even share is 1 / players.

Two ways to play the focal seat:

- `net_share`: a `Net` being trained, in numpy, through the vector environment (every
  other seat the C policy; one batched forward per step over all the deals).  Deal d of
  seat r is env d of a vector env whose learning seat is r, reset to run `seed + d`;
  only its first game counts.  This is what training's curve uses.
- `spec_share`: any policy spec (the C network player `net(weights=FILE)` included)
  through the runner's games, `play_columns`: what the docs' figures use.

A game that does not end (a young network can stall one: docs/engine.md "Safety limits")
is cut where the engine's limits stop it and counted (`Share.cut`): it has no winner, so
every seat's share of it is 0, as a truncated episode earns no final reward in gymnasium.
The cut depends only on the game's seed, so a figure with cut games is as reproducible as
one without.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules import Rules
from ..stats import share_ci
from .model import greedy_actions, input_columns


@dataclass
class Share:
    """The focal seat's mean share of the game's win over `deals` paired deals."""

    share: float
    low: float
    high: float
    deals: int
    players: int
    cut: int = 0  # games (deal and seating) cut at the engine's safety limits: no winner

    @property
    def even(self) -> float:
        """What the focal seat wins when every seat plays alike: 1 / players."""
        return 1.0 / self.players

    def text(self) -> str:
        """"0.812 [0.774, 0.845] (500 deals)", and the games cut when there are any."""
        cut = f", {cut_text(self.cut, self.deals * self.players)}" if self.cut else ""
        return f"{self.share:.3f} [{self.low:.3f}, {self.high:.3f}] ({self.deals} deals{cut})"

    def to_dict(self) -> dict:
        """The figure as JSON-able fields."""
        return {"share": self.share, "low": self.low, "high": self.high, "deals": self.deals,
                "players": self.players, "cut": self.cut}


def cut_text(cut: int, games: int) -> str:
    """"3 of 600 games cut at the engine's safety limits (no winner)"."""
    return f"{cut} of {games} games cut at the engine's safety limits (no winner)"


def _share(scores: np.ndarray, players: int, cut: int = 0) -> Share:
    m, lo, hi = share_ci(list(scores))
    return Share(float(m), float(lo), float(hi), len(scores), players, cut)


def net_scores(net, rules: Rules, deals: int, seed: int, opponents: str = "greedy",
               act=None, episode: str = "game") -> np.ndarray:
    """Per deal, the focal seat's mean share of the win over its seat rotations, the focal
    seat played by `net` (the legal action of highest logit) through the vector env.
    `episode` "round": the share of the deal's first round won instead (a round without a
    winner, a stalemate, counts 0).
    `act(x, mask) -> actions` (x: the observation of the game's seats,
    `model.input_columns`) replaces the net (None and net None: a uniformly random
    legal action from a Generator seeded by `seed`)."""
    return _net_games(net, rules, deals, seed, opponents, act, episode)[0]


def _net_games(net, rules: Rules, deals: int, seed: int, opponents: str, act,
               episode: str) -> tuple[np.ndarray, int]:
    """(`net_scores`, the episodes the vector env truncated at the engine's limits)."""
    from ..vecenv import SEATS, UnoVectorEnv

    players = rules.players
    rng = np.random.default_rng(seed)
    if act is None:
        if net is None:
            def act(x, m):
                return (rng.random(m.shape, dtype=np.float32) + m).argmax(1)
        else:
            def act(x, m):
                return greedy_actions(net.forward(x)[0], m)
    score = np.zeros(deals)
    cut = 0
    for seat in range(players):
        env = UnoVectorEnv(deals, rules=rules, opponents=opponents, seat=seat,
                           episode=episode, copy=False)
        obs, _ = env.reset(seed=seed)
        cols = input_columns(env.observation_layout, SEATS, players)
        n_actions = len(env.card_codes) + 7 + players  # target slots past the players: never legal
        live = np.ones(deals, bool)
        while live.any():
            m = obs["action_mask"][:, :n_actions].astype(bool)
            x = obs["observation"][:, cols]
            obs, reward, term, trunc, _ = env.step(act(x, m).astype(np.int32))
            cut += int((trunc & ~term & live).sum())
            for i in np.flatnonzero((term | trunc) & live):
                live[i] = False
                if episode == "round":
                    score[i] += reward[i] > 0
                elif term[i]:
                    w = env.last_result(int(i))["winners"]
                    score[i] += (1.0 / len(w)) if seat in w else 0.0
        env.close()
    return score / players, cut


def net_share(net, rules: Rules, deals: int, seed: int, opponents: str = "greedy",
              act=None) -> Share:
    """`net_scores` summarised: the mean share with its 95% interval."""
    scores, cut = _net_games(net, rules, deals, seed, opponents, act, "game")
    return _share(scores, rules.players, cut)


def spec_scores(focal, rules: Rules, deals: int, seed: int, opponents: str = "greedy",
                first: int = 0) -> np.ndarray:
    """Per deal, the mean share of the win of the policy spec `focal` at one seat (each seat
    in turn) with `opponents` at every other seat; deal d is game first + d of run seed."""
    return _spec_games(focal, rules, deals, seed, opponents, first)[0]


def _spec_games(focal, rules: Rules, deals: int, seed: int, opponents: str,
                first: int) -> tuple[np.ndarray, int]:
    """(`spec_scores`, the games cut at the engine's safety limits)."""
    from .specs import parse_policy

    players = rules.players
    f, o = parse_policy(focal), parse_policy(opponents)
    score = np.zeros(deals)
    cut = 0
    for seat in range(players):
        specs = [f if s == seat else o for s in range(players)]
        w, n_cut = win_shares(rules, specs, seed, first, deals)
        cut += n_cut
        total = w.sum(axis=1)
        score += np.divide(w[:, seat], total, out=np.zeros(deals), where=total > 0)
    return score / players, cut


def win_shares(rules: Rules, specs, seed: int, first: int, n: int) -> tuple[np.ndarray, int]:
    """(per game and seat the share of the win (n, players), the games cut) of games first ..
    first + n - 1 of run `seed`: a game the C engine stops at its safety limits
    (GameLimitError names it; the games before it in the batch ended) scores 0 at every
    seat, and the games after it are played on."""
    from ..engine import GameLimitError
    from ..runner import play_columns, win_matrix

    w = np.zeros((n, rules.players))
    cut, at, end = 0, first, first + n
    while at < end:
        try:
            w[at - first:] = win_matrix(play_columns(rules, specs, seed, at, end - at))
            break
        except GameLimitError as exc:
            if exc.game is None or not at <= exc.game < end:
                raise
            if exc.game > at:  # the games before it, which ended, played again
                w[at - first:exc.game - first] = win_matrix(
                    play_columns(rules, specs, seed, at, exc.game - at))
            cut += 1
            at = exc.game + 1
    return w, cut


def spec_share(focal, rules: Rules, deals: int, seed: int, opponents: str = "greedy") -> Share:
    """`spec_scores` summarised: the mean share with its 95% interval, and the games cut."""
    scores, cut = _spec_games(focal, rules, deals, seed, opponents, 0)
    return _share(scores, rules.players, cut)
