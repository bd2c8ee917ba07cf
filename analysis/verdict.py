"""Verdicts an analyst can use: corrected intervals that agree with the tests, differences
between arms, ceilings and empty cells named as such, the size that would settle an open
question, and the sentence a game designer reads.

* `holm_intervals`: a family of normal estimates (estimate, standard error) tested with
  Holm's step-down (`statsmodels.stats.multitest.multipletests`, method ``holm``), each
  with its plain 95% interval and its *Holm interval*: the normal interval at the level at
  which Holm's procedure tested it.  The i-th smallest p-value (from 0) of m is tested at
  alpha / (m - i) while every smaller one was rejected; from the first one not rejected
  on, at alpha / m.  So a value is rejected (clearly signed) exactly when its Holm
  interval excludes 0, and the interval printed is the one the verdict used.
* `arm_difference`: the difference of two arms' mean values per decision point (the
  strong player's less greedy's), on the same games, with a standard error clustered by
  game (the delta method on per-game sums, both arms' points of one game in one cluster:
  the games are common, so their luck is shared).
* `share_interval`: a share of decision points (how often a policy acts) with a Wilson
  interval (`statsmodels.stats.proportion.proportion_confint`) on the effective number of
  points (the points divided by the design effect of their clustering by game), so that
  0 of 300 reads [0, 0.012], not [0, 0].
* `cell_state`: "empty" (no decision point), "ceiling" (the focal seat wins, or loses,
  every game at its points whichever it answers: the value is 0 by construction),
  "unchanged" (no point's answer changed its game's outcome, though the outcomes differ
  from game to game: a value of 0 without spread), else "measured".
* `games_to_settle`: how many games per arm would make an interval exclude 0 with 80%
  power at the family's level, were the estimate the truth.
* `advice`: one sentence in the designer's words for a bluff or challenge value, by state
  where the state matters.
"""

from __future__ import annotations

import math

import numpy as np

ALPHA = 0.05
POWER = 0.8


def _z(level: float) -> float:
    """The two-sided normal quantile of a test at `level` (scipy.special.ndtri)."""
    from scipy import special

    return float(-special.ndtri(level / 2))


def p_value(est: float, se: float) -> float:
    """Two-sided normal p-value of est = 0 (NaN without a positive finite SE)."""
    from scipy import special

    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0:
        return math.nan
    return float(2 * special.ndtr(-abs(est) / se))


def holm_intervals(estimates, ses, alpha: float = ALPHA) -> list[dict]:
    """Per estimate: p, p_holm, reject, level (the level Holm's step-down tested it at),
    low/high (plain 95%) and holm_low/holm_high (at `level`).  Estimates without a positive
    finite SE are not in the family (every field NaN or False)."""
    from statsmodels.stats.multitest import multipletests

    est = np.asarray(estimates, dtype=float)
    se = np.asarray(ses, dtype=float)
    p = np.array([p_value(e, s) for e, s in zip(est, se)])
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    out = []
    for e, s, pv in zip(est, se, p):
        half = _z(ALPHA) * s if math.isfinite(s) else math.nan
        out.append({"estimate": float(e), "se": float(s), "p": float(pv), "p_holm": math.nan,
                    "reject": False, "level": math.nan, "low": e - half, "high": e + half,
                    "holm_low": math.nan, "holm_high": math.nan, "family": m})
    if m == 0:
        return out
    reject, p_adj, _, _ = multipletests(p[ok], alpha=alpha, method="holm")
    order = ok[np.argsort(p[ok], kind="stable")]
    open_ = True  # every smaller p-value rejected so far
    for rank, i in enumerate(order):
        level = alpha / (m - rank) if open_ else alpha / m
        j = int(np.flatnonzero(ok == i)[0])
        if not reject[j]:
            open_ = False
        half = _z(level) * se[i]
        out[i].update(p_holm=float(p_adj[j]), reject=bool(reject[j]), level=level,
                      holm_low=float(est[i] - half), holm_high=float(est[i] + half))
    return out


def arm_difference(values_b, games_b, values_a, games_a) -> tuple[float, float]:
    """(difference, clustered SE) of mean(values_b) - mean(values_a): per-point values of
    two arms played on the same games (`games_*` the game of each point)."""
    vb, va = np.asarray(values_b, dtype=float), np.asarray(values_a, dtype=float)
    gb, ga = np.asarray(games_b), np.asarray(games_a)
    if vb.size == 0 or va.size == 0:
        return math.nan, math.nan
    mb, ma = float(vb.mean()), float(va.mean())
    keys, inv = np.unique(np.concatenate([gb, ga]), return_inverse=True)
    g = keys.size
    # each game's influence on the difference of two ratio estimators (the delta method)
    u = (np.bincount(inv[:vb.size], weights=vb - mb, minlength=g) / vb.size
         - np.bincount(inv[vb.size:], weights=va - ma, minlength=g) / va.size)
    if g < 2:
        return mb - ma, math.nan
    return mb - ma, math.sqrt(g / (g - 1) * float((u ** 2).sum()))


def share_interval(acts, games, level: float = ALPHA) -> tuple[float, float, float]:
    """(share, low, high) of the points where a policy acts (1) rather than not (0): a
    Wilson interval on the effective number of points (n over the design effect of their
    clustering by game, at least 1)."""
    from statsmodels.stats.proportion import proportion_confint

    from .counterfactual import clustered_se

    a = np.asarray(acts, dtype=float)
    n = a.size
    if n == 0:
        return math.nan, math.nan, math.nan
    share = float(a.mean())
    binom = share * (1 - share) / n
    se = clustered_se(a, games) if n > 1 else math.nan
    deff = (se * se / binom) if binom > 0 and math.isfinite(se) else 1.0
    n_eff = n / max(deff, 1.0)
    low, high = proportion_confint(share * n_eff, n_eff, alpha=level, method="wilson")
    return share, float(max(0.0, low)), float(min(1.0, high))


def cell_state(win_0, win_1) -> str:
    """'empty' (no point), 'ceiling' (the same game-win share under both answers at every
    point, and the same at all points: a seat that wins, or loses, every game whatever it
    answers), 'unchanged' (the same under both answers at every point), else
    'measured'."""
    w0, w1 = np.asarray(win_0, dtype=float), np.asarray(win_1, dtype=float)
    if w0.size == 0:
        return "empty"
    if np.all(w0 == w1):
        return "ceiling" if np.ptp(np.concatenate([w0, w1])) == 0 else "unchanged"
    return "measured"


def games_to_settle(est: float, se: float, games: int, family: int = 1,
                    alpha: float = ALPHA, power: float = POWER) -> float:
    """Games per arm at which the interval (at the family's Bonferroni level alpha / family,
    the strictest Holm can use) excludes 0 with `power`, were `est` the true value; the SE
    shrinks as one over the square root of the games.  inf where est is 0."""
    from scipy import special

    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0 or games < 1:
        return math.nan
    if est == 0:
        return math.inf
    z = _z(alpha / max(family, 1)) + float(special.ndtri(power))
    return games * (z * se / abs(est)) ** 2


def games_to_bound(est: float, se: float, games: int, bound: float, family: int = 1,
                   alpha: float = ALPHA, power: float = POWER) -> float:
    """Games per arm at which the interval (at the family's Bonferroni level) lies on
    `est`'s side of +-`bound` with `power`, were `est` the true value: within +-`bound`
    where |est| < bound, wholly beyond it where |est| > bound; inf where |est| = bound."""
    from scipy import special

    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0 or games < 1:
        return math.nan
    if abs(est) == bound:
        return math.inf
    z = _z(alpha / max(family, 1)) + float(special.ndtri(power))
    return games * (z * se / abs(bound - abs(est))) ** 2


def round_size(n: float) -> str:
    """A size to say in words: two significant digits, thousands separated."""
    if not math.isfinite(n):
        return "no size in reach (the estimate is 0)"
    n = max(1.0, n)
    digits = max(0, int(math.floor(math.log10(n))) - 1)
    return f"{int(round(n / 10 ** digits) * 10 ** digits):,}"


def _ci(est: float, low: float, high: float) -> str:
    return f"{est:+.3f} [{low:+.3f}, {high:+.3f}]"


def _hands(states: list[str]) -> str:
    """'1', '2', '6+' -> '1 or 2 cards', '6 or more cards'."""
    words = [s.replace("+", " or more") for s in states]
    text = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    return text + (" card" if states == ["1"] else " cards")


def advice(kind: str, card: str, who: str, against: str, pooled: dict,
           states: list[dict], settle: float | None = None) -> str:
    """The designer's sentence for one arm: should `who` bluff (challenge) a `card` against
    `against`, from its pooled value row and its by-state rows.

    Rows: {'state', 'value', 'holm_low', 'holm_high', 'reject', 'cell'} (value in game-win
    share, Holm intervals); `settle`: games per arm that would settle an open question.
    """
    act = "bluff with" if kind == "bluff" else "challenge"
    doing = "bluffing" if kind == "bluff" else "challenging"
    whose = "the next player" if kind == "bluff" else "the offender"
    cell = pooled.get("cell", "measured")
    if cell == "empty":
        return (f"{who} met no {kind} decision point against {against}: nothing to say "
                f"about when it should {act} a {card}.")
    if cell == "ceiling":
        return (f"{who} wins (or loses) every game at its {kind} points against {against} "
                f"whichever it answers: one decision cannot change a game it always wins, so "
                f"its game-win value is 0 by construction (a ceiling, not a finding); its "
                "round points say more.")
    if cell == "unchanged":
        return (f"At none of {who}'s {kind} points against {against} did the answer change "
                "who won the game: a value of 0 without spread, nothing to test at this "
                "size (near a ceiling); its round points say more.")
    v, lo, hi = pooled["value"], pooled["holm_low"], pooled["holm_high"]
    ci = _ci(v, lo, hi)
    if not pooled.get("reject"):
        text = (f"Whether {who} should {act} a {card} against {against} is not settled at "
                f"this size: {doing} is worth {ci} of game-win share per decision (Holm "
                "interval)")
        if settle is not None and math.isfinite(settle):
            text += f"; about {round_size(settle)} games per arm would settle it"
        elif settle is not None:
            text += "; no size in reach would (the estimate is 0)"
        return text + "."
    sign = 1 if v > 0 else -1
    clear = [s for s in states if s.get("reject") and s.get("cell", "measured") == "measured"]
    against_sign = [s["state"] for s in clear if (s["value"] > 0) != (sign > 0)]
    with_sign = [s["state"] for s in clear if (s["value"] > 0) == (sign > 0)]
    if sign < 0:
        text = (f"{who} should not {act} a {card} against {against}: {doing} costs it "
                f"{ci} of game-win share per decision")
        if against_sign:
            text += (f", except when {whose} holds {_hands(against_sign)}, where it pays "
                     "(clearly, by state)")
    else:
        text = (f"{who} should {act} a {card} against {against}: {doing} gains it {ci} of "
                "game-win share per decision")
        if against_sign:
            text += f", but not when {whose} holds {_hands(against_sign)} (clearly, by state)"
    if with_sign and not against_sign and len(with_sign) < len(states):
        text += f"; clearly so when {whose} holds {_hands(with_sign)}"
    return text + " (Holm intervals)."
