"""The in-context learning curve of docs/configs.md as an SVG (NumPy only): the accuracy by position in the history
that `traindeck evaluate` measured for the bandit-ad sample's model on held_out.npz, beside the best-so-far baseline
and chance over the same positions.

    ./traindeck train sample-configs/bandit-ad.json
    ./traindeck evaluate runs/bandit-ad
    python3 data/bandit/plot_in_context.py runs/bandit-ad/evaluation.json docs/bandit-ad-in-context.svg
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from line_chart import svg  # noqa: E402
from make_bandit_histories import K, best_so_far  # noqa: E402

PREFIX = "val/accuracy_by_step/"


def buckets(figures):
    """(first, last) positions, 1-based, of each range evaluate measured, in order."""
    out = []
    for name in figures:
        if name.startswith(PREFIX):
            first, last = name[len(PREFIX):].split("-")
            out.append((int(first), int(last)))
    return out


def baseline(ranges):
    data = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "held_out.npz"))
    hits = best_so_far(data["actions"], data["rewards"]) == data["targets"].astype(np.int64)
    real = data["mask"] > 0
    return [float(hits[:, a - 1:b][real[:, a - 1:b]].mean()) for a, b in ranges]


def main():
    evaluation, out = sys.argv[1], sys.argv[2]
    figures = json.load(open(evaluation))["figures"]
    ranges = buckets(figures)
    model = [figures[f"{PREFIX}{a}-{b}"] for a, b in ranges]
    base = baseline(ranges)
    with open(out, "w") as f:
        curves = [("TrainDeck AD model", model), ("best-so-far arm", base), ("chance (1/K)", [1.0 / K] * len(ranges))]
        f.write(svg("Accuracy by position in the history (held-out bandits)", [f"{a}–{b}" for a, b in ranges], curves,
                    ["#1f5fa8", "#c2571a", "#777"], "steps of the history", width=560))
    for (a, b), m, s in zip(ranges, model, base):
        print(f"steps {a}-{b}: model {m:.3f}, best-so-far {s:.3f}")


if __name__ == "__main__":
    main()
