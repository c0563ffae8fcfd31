"""Writes bandit_histories.npz and held_out.npz: learning histories of UCB1 on Bernoulli bandits, for
training a causal transformer to predict the source algorithm's next pull from the pulls and rewards before it
(Algorithm Distillation, Laskin et al. 2022). Deterministic (fixed seeds, fixed zip timestamps): running it again
writes the same bytes. Run with /usr/bin/python3 and NumPy: python3 data/bandit/make_bandit_histories.py"""
import io
import os
import zipfile

import numpy as np

K, T = 5, 64  # arms, pulls per history
TRAIN_COUNT, HELD_OUT_COUNT = 4096, 512
TRAIN_SEED, HELD_OUT_SEED = 4242, 4343
CUT_SHARE, MIN_LENGTH = 0.25, 16
BUCKETS = [(0, 8), (8, 16), (16, 32), (32, 64)]
HERE = os.path.dirname(os.path.abspath(__file__))


def ucb1_histories(count, rng):
    """Arm means drawn uniformly in [0, 1] per bandit; UCB1 (Auer et al. 2002) pulls each arm once, then the arm with
    the highest mean + sqrt(2 ln t / pulls) (ties: the lowest arm), T pulls in all. Returns the arms pulled
    [count, T] and the rewards [count, T]."""
    means = rng.uniform(0.0, 1.0, (count, K))
    arms = np.zeros((count, T), dtype=np.int64)
    rewards = np.zeros((count, T))
    for t in range(T):
        arm = ucb1_choice(arms[:, :t], rewards[:, :t], t)
        arms[:, t] = arm
        rewards[:, t] = (rng.random(count) < means[np.arange(count), arm]).astype(np.float64)
    return arms, rewards


def ucb1_choice(arms, rewards, t):
    """UCB1's pull at step t after the pulls `arms` [count, t] that earned `rewards` [count, t]."""
    if t < K:
        return np.full(arms.shape[0], t)
    pulls = np.stack([(arms == a).sum(axis=1) for a in range(K)], axis=1)
    wins = np.stack([((arms == a) * rewards).sum(axis=1) for a in range(K)], axis=1)
    return np.argmax(wins / pulls + np.sqrt(2.0 * np.log(t) / pulls), axis=1)


def lengths(count, rng, cut_share):
    """Every history is T long, except about cut_share of them, cut at a random length in [MIN_LENGTH, T)."""
    cut = rng.random(count) < cut_share
    return np.where(cut, rng.integers(MIN_LENGTH, T, count), T)


def arrays(arms, rewards, length):
    """The model's view of each step t: the previous action (0 at step 0, else 1 + arm), the previous reward, and the
    source's arm at t as the target; steps at or after a history's length are padding (0, masked out)."""
    count = arms.shape[0]
    mask = (np.arange(T)[None, :] < length[:, None]).astype(np.float32)
    actions = np.zeros((count, T), dtype=np.uint8)
    actions[:, 1:] = arms[:, :-1] + 1
    previous = np.zeros((count, T, 1), dtype=np.float32)
    previous[:, 1:, 0] = rewards[:, :-1]
    real = mask > 0
    return {
        "actions": np.where(real, actions, 0).astype(np.uint8),
        "rewards": (previous * mask[:, :, None]).astype(np.float32),
        "targets": np.where(real, arms, 0).astype(np.uint8),
        "mask": mask,
    }


def save(path, named):
    """Like np.savez_compressed, but with a fixed timestamp on every member so that the file is the same each time."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, array in named.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buffer.getvalue())


def best_so_far(actions, rewards):
    """At each step, the arm with the highest empirical mean reward among the arms pulled before it (ties and step 0:
    the lowest arm), from the previous actions and rewards the model sees."""
    count = actions.shape[0]
    pulls = np.zeros((count, K))
    wins = np.zeros((count, K))
    guesses = np.zeros((count, T), dtype=np.int64)
    rows = np.arange(count)
    for t in range(T):
        if t > 0:
            arm = actions[:, t].astype(np.int64) - 1
            pulls[rows, arm] += 1
            wins[rows, arm] += rewards[:, t, 0]
        empirical = np.where(pulls > 0, wins / np.maximum(pulls, 1), -1.0)
        guesses[:, t] = np.argmax(empirical, axis=1)  # argmax takes the first of equal values
    return guesses


def ucb1_from_inputs(actions, rewards):
    """UCB1's pull at each step recomputed from the previous actions and rewards alone: all targets must follow from
    what the model sees (a check of the arrays' alignment, not a baseline)."""
    arms = actions[:, 1:].astype(np.int64) - 1
    earned = rewards[:, 1:, 0].astype(np.float64)
    return np.stack([ucb1_choice(arms[:, :t], earned[:, :t], t) for t in range(T)], axis=1)


def accuracy(hits, mask, start=0, end=T):
    real = mask[:, start:end] > 0
    return float(hits[:, start:end][real].mean())


def report(data):
    targets, mask = data["targets"].astype(np.int64), data["mask"]
    rows = [
        ("best-so-far arm", best_so_far(data["actions"], data["rewards"]) == targets),
        ("uniformly random", np.full(targets.shape, 1.0 / K)),
        ("UCB1 from the inputs", ucb1_from_inputs(data["actions"], data["rewards"]) == targets),
    ]
    header = "baseline".ljust(26) + "all".rjust(7) + "".join(f"{a}-{b - 1}".rjust(8) for a, b in BUCKETS)
    print("per-step accuracy on held_out.npz (%d histories of %d steps)" % (targets.shape[0], T))
    print(header)
    for name, hits in rows:
        figures = [accuracy(hits, mask)] + [accuracy(hits, mask, a, b) for a, b in BUCKETS]
        print(name.ljust(26) + "".join(f"{f:.3f}".rjust(7 if i == 0 else 8) for i, f in enumerate(figures)))


def main():
    rng = np.random.default_rng(TRAIN_SEED)
    arms, rewards = ucb1_histories(TRAIN_COUNT, rng)
    save(os.path.join(HERE, "bandit_histories.npz"), arrays(arms, rewards, lengths(TRAIN_COUNT, rng, CUT_SHARE)))
    rng = np.random.default_rng(HELD_OUT_SEED)
    arms, rewards = ucb1_histories(HELD_OUT_COUNT, rng)
    held_out = arrays(arms, rewards, np.full(HELD_OUT_COUNT, T))
    save(os.path.join(HERE, "held_out.npz"), held_out)
    report(held_out)


if __name__ == "__main__":
    main()
