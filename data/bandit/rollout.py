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
from line_chart import svg  # noqa: E402
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
        f.write(svg(f"Share of optimal pulls by step, acting on {COUNT} new bandits",
                    [f"{a + 1}–{b}" for a, b in BUCKETS], curves, ["#1f5fa8", "#2e8b57", "#c2571a", "#777"],
                    "steps of the history"))


if __name__ == "__main__":
    main()
