"""Scores generated pictures against the test set's true ones: MSE and PSNR (peak-to-peak 2, the range [-1, 1]),
beside two baselines: the training set's mean picture, and the mask painted with the training set's mean grey of
each of its classes (background, circle, square). Usage:
python3 data/shapes-diffusion/score.py generated.npy"""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
truth = np.load(os.path.join(here, "shapes_diffusion_test.npz"))["image"].astype(np.float64)
train = np.load(os.path.join(here, "shapes_diffusion.npz"))
mean = train["image"].astype(np.float64).mean(axis=0)
masks = np.load(os.path.join(here, "shapes_diffusion_test.npz"))["mask"]
painted = np.zeros_like(truth)
for value in (0.0, 0.5, 1.0):
    painted[masks == value] = train["image"][train["mask"] == value].astype(np.float64).mean()


def report(name, x):
    mse = float(((x - truth) ** 2).mean())
    print(f"{name}: MSE {mse:.4f}  PSNR {10 * np.log10(4 / mse):.2f} dB")


report("generated", np.load(sys.argv[1]).astype(np.float64))
report("mean picture", np.broadcast_to(mean, truth.shape))
report("mask painted with each class's mean grey", painted)
