"""Draw the learning curves the PPO examples write (--curve CSV files) in one figure.

    pip install -e '.[examples]'                            # Matplotlib
    python docs/examples/plot_curves.py net.csv scratch.csv --out curves.png --title "..."

Each CSV (iteration, steps, share_won) is one line, labelled by its file name (or
--labels): the share of the rounds ended in each rollout that the learning seat won
against greedy, its actions drawn from the policy, over the steps trained; thin, and its
mean over 5 rollouts bold.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np


def read(path):
    """(steps, share won) arrays of one curve file."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return (np.array([int(r["steps"]) for r in rows]),
            np.array([float(r["share_won"]) for r in rows]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("curves", nargs="+", help="CSV files written by --curve")
    ap.add_argument("--labels", help="comma-separated labels (default: the file names)")
    ap.add_argument("--out", default="curves.png")
    ap.add_argument("--title", default="")
    args = ap.parse_args(argv)
    labels = args.labels.split(",") if args.labels else [Path(c).stem for c in args.curves]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for i, (path, label) in enumerate(zip(args.curves, labels)):
        steps, share = read(path)
        ax.plot(steps, share, lw=0.7, color=f"C{i}", alpha=0.4)
        k = min(5, len(share))
        ax.plot(steps[k - 1:], np.convolve(share, np.ones(k) / k, "valid"), color=f"C{i}",
                label=label)
    ax.set_xlabel("steps of the learning seat")
    ax.set_ylabel("share of rounds won vs greedy")
    if args.title:
        ax.set_title(args.title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)
    print(f"figure: {args.out}")


if __name__ == "__main__":
    main()
