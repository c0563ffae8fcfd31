"""Algorithm Distillation's in-context learning curve: the trained bandit-ad model *acting* on 256 new bandits, step
by step (its pull at step t is its most likely arm given the pulls and rewards before t, read with `traindeck
predict`), against UCB1, the greedy best-so-far arm and random pulls on the same bandits with the same luck (one
uniform draw per bandit, step and arm). TRAINDECK names another launcher than ./traindeck. Prints the mean reward and the share of optimal pulls by position, and
writes them as an SVG. NumPy only; 64 `predict` calls.

    python3 data/bandit/rollout.py runs/bandit-ad docs/bandit-ad-rollout.svg
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bandit_histories import K, T, ucb1_choice  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COUNT, SEED = 256, 5151
BUCKETS = [(0, 4), (4, 8), (8, 16), (16, 32), (32, 64)]


def play(choose, means, luck):
    """Pulls of a policy on every bandit: choose(t, arms [n, t], rewards [n, t]) gives the arms at step t."""
    n = means.shape[0]
    arms = np.zeros((n, T), dtype=np.int64)
    rewards = np.zeros((n, T))
    for t in range(T):
        arm = choose(t, arms[:, :t], rewards[:, :t])
        arms[:, t] = arm
        rewards[:, t] = (luck[np.arange(n), t, arm] < means[np.arange(n), arm]).astype(np.float64)
    return arms, rewards


def model_policy(run, work):
    def choose(t, arms, rewards):
        n = arms.shape[0]
        actions = np.zeros((n, T), dtype=np.uint8)
        previous = np.zeros((n, T, 1), dtype=np.float32)
        actions[:, 1:t + 1] = arms + 1
        previous[:, 1:t + 1, 0] = rewards
        np.savez(os.path.join(work, "h.npz"), actions=actions, rewards=previous)
        out = os.path.join(work, "p.npy")
        subprocess.run([os.environ.get("TRAINDECK", os.path.join(ROOT, "traindeck")), "predict", run, os.path.join(work, "h.npz"), "--out", out,
                        "--force"], check=True, stdout=subprocess.DEVNULL)
        return np.load(os.path.join(work, "p.classes.npy"))[:, t]
    return choose


def greedy(t, arms, rewards):
    n = arms.shape[0]
    pulls = np.stack([(arms == a).sum(axis=1) for a in range(K)], axis=1)
    wins = np.stack([((arms == a) * rewards).sum(axis=1) for a in range(K)], axis=1)
    return np.argmax(np.where(pulls > 0, wins / np.maximum(pulls, 1), -1.0), axis=1) if t else np.zeros(n, int)


def svg(curves):
    width, height, left, bottom, top, right = 600, 320, 60, 50, 30, 170
    x = lambda i: left + (i + 0.5) * (width - left - right) / len(BUCKETS)  # noqa: E731
    y = lambda v: top + (1 - v) * (height - top - bottom)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="18" font-size="13">Share of optimal pulls by step, acting on {COUNT} new bandits</text>']
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v)}" y2="{y(v)}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y(v) + 4}" text-anchor="end">{v:.2f}</text>')
    for i, (a, b) in enumerate(BUCKETS):
        parts.append(f'<text x="{x(i)}" y="{height - bottom + 18}" text-anchor="middle">{a + 1}–{b}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">steps of the history</text>')
    colours = ["#1f5fa8", "#2e8b57", "#c2571a", "#777"]
    for n, ((name, values), colour) in enumerate(zip(curves, colours)):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        ly = top + 20 + 22 * n
        parts.append(f'<line x1="{width - right + 12}" x2="{width - right + 32}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{width - right + 38}" y="{ly + 4}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    run, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(SEED)
    means = rng.uniform(0.0, 1.0, (COUNT, K))
    luck = rng.random((COUNT, T, K))
    best = means.argmax(axis=1)
    with tempfile.TemporaryDirectory() as work:
        policies = [("TrainDeck AD model", model_policy(run, work)), ("UCB1 (the source)", lambda t, a, r: ucb1_choice(a, r, t)),
                    ("greedy best-so-far", greedy), ("random", lambda t, a, r: rng.integers(0, K, a.shape[0]))]
        curves = []
        print("share of optimal pulls (mean reward) by step".ljust(40) + "".join(f"{a + 1}-{b}".rjust(14) for a, b in BUCKETS))
        for name, choose in policies:
            arms, rewards = play(choose, means, luck)
            optimal = arms == best[:, None]
            shares = [float(optimal[:, a:b].mean()) for a, b in BUCKETS]
            mean_rewards = [float(rewards[:, a:b].mean()) for a, b in BUCKETS]
            curves.append((name, shares))
            print(name.ljust(40) + "".join(f"{s:.3f} ({m:.3f})".rjust(14) for s, m in zip(shares, mean_rewards)))
    with open(out, "w") as f:
        f.write(svg(curves))


if __name__ == "__main__":
    main()
