"""Scores generated volumes against the test set's true ones: PSNR (data range 1, the volumes' [0, 1]) and the
projection error (mean absolute difference between the generated volume's means along y and x and the `front` and
`side` views), beside two baselines: the training set's mean volume, and the back-projection of the views (each view
smeared back along its axis, the two averaged). Usage: python3 data/xray/score.py generated.npy
(generated: as `traindeck predict` writes them, [N, 32, 32, 32, 1] or [N, 16, 16, 16, 1] in the data's units, 0-255,
for the first N test samples; 16^3 volumes are scored against the test set's volume16 and the views pooled to 16^2)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
test = np.load(os.path.join(here, "xray_phantoms_test.npz"))
train = np.load(os.path.join(here, "xray_phantoms.npz"))


def pool2(a, axes):
    for axis in axes:
        shape = list(a.shape)
        shape[axis:axis + 1] = [shape[axis] // 2, 2]
        a = a.reshape(shape).mean(axis=axis + 1)
    return a


def scores(x, truth, front, side):
    mse = float(((x - truth) ** 2).mean())
    projection = (np.abs(x.mean(axis=2) - front).mean() + np.abs(x.mean(axis=3) - side).mean()) / 2
    return 10 * np.log10(1 / mse), float(projection)


def baselines(size):
    key = "volume" if size == 32 else "volume16"
    truth = test[key].astype(np.float64) / 255
    front, side = test["front"].astype(np.float64) / 255, test["side"].astype(np.float64) / 255
    if size == 16:
        front, side = pool2(front, (1, 2)), pool2(side, (1, 2))
    mean = np.broadcast_to(train[key].astype(np.float64).mean(axis=0) / 255, truth.shape)
    back = (front[:, :, None, :, :] + side[:, :, :, None, :]) / 2
    return truth, front, side, {"training set's mean volume": mean, "back-projection of the views": back}


def report(name, x, truth, front, side):
    psnr, projection = scores(x, truth[:len(x)], front[:len(x)], side[:len(x)])
    print(f"{name}: PSNR {psnr:.2f} dB  projection error {projection:.4f}")


if __name__ == "__main__":
    generated = np.load(sys.argv[1]).astype(np.float64) / 255 if len(sys.argv) > 1 else None
    size = generated.shape[1] if generated is not None else 32
    truth, front, side, base = baselines(size)
    if generated is not None:
        report("generated", generated, truth, front, side)
    for name, x in base.items():
        report(name, x if generated is None else x[:len(generated)], truth, front, side)
