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


def svg(ranges, model, base):
    width, height, left, bottom, top, right = 560, 320, 60, 50, 30, 150
    x = lambda i: left + (i + 0.5) * (width - left - right) / len(ranges)  # noqa: E731
    y = lambda v: top + (1 - v) * (height - top - bottom)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="18" font-size="13">Accuracy by position in the history (held-out bandits)</text>']
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v)}" y2="{y(v)}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y(v) + 4}" text-anchor="end">{v:.2f}</text>')
    for i, (a, b) in enumerate(ranges):
        parts.append(f'<text x="{x(i)}" y="{height - bottom + 18}" text-anchor="middle">{a}–{b}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">steps of the history</text>')
    series = [("TrainDeck AD model", model, "#1f5fa8"), ("best-so-far arm", base, "#c2571a"),
              ("chance (1/K)", [1.0 / K] * len(ranges), "#777")]
    for n, (name, values, colour) in enumerate(series):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for i, v in enumerate(values):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
        ly = top + 20 + 22 * n
        parts.append(f'<line x1="{width - right + 12}" x2="{width - right + 32}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{width - right + 38}" y="{ly + 4}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    evaluation, out = sys.argv[1], sys.argv[2]
    figures = json.load(open(evaluation))["figures"]
    ranges = buckets(figures)
    model = [figures[f"{PREFIX}{a}-{b}"] for a, b in ranges]
    base = baseline(ranges)
    with open(out, "w") as f:
        f.write(svg(ranges, model, base))
    for (a, b), m, s in zip(ranges, model, base):
        print(f"steps {a}-{b}: model {m:.3f}, best-so-far {s:.3f}")


if __name__ == "__main__":
    main()
