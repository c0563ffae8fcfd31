"""Writes volumes.npz for sample-configs/volumes-autoencoder.json: 16x16x16 one-channel volumes holding a bright
ball or box on a dark, noisy background (values 0..255, channels last). Deterministic (seed 2026). Run with
/usr/bin/python3 and NumPy: python3 data/volumes/make_volumes.py"""
import os
import numpy as np

SIZE, COUNT = 16, 600
rng = np.random.default_rng(2026)
zz, yy, xx = np.mgrid[0:SIZE, 0:SIZE, 0:SIZE]
volumes = np.zeros((COUNT, SIZE, SIZE, SIZE, 1), dtype=np.uint8)
for i in range(COUNT):
    v = rng.uniform(10, 40) + rng.normal(0, 3, (SIZE, SIZE, SIZE))
    r = rng.uniform(2.5, 5)
    c = rng.uniform(r, SIZE - r, 3)
    if rng.integers(0, 2) == 0:
        inside = (zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 <= r * r
    else:
        inside = (np.abs(zz - c[0]) <= r) & (np.abs(yy - c[1]) <= r) & (np.abs(xx - c[2]) <= r)
    v[inside] = rng.uniform(150, 240)
    volumes[i, ..., 0] = np.clip(v, 0, 255).astype(np.uint8)
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "volumes.npz"), x=volumes)
