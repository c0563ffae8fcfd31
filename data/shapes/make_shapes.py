"""Writes shapes.npz for sample-configs/shapes-unet.json: 32x32 grey images of circles and squares on a noisy
background, with a mask per image (0 background, 1 circle, 2 square). Deterministic (seed 2026). Run with
/usr/bin/python3 and NumPy: python3 data/shapes/make_shapes.py"""
import os
import numpy as np

SIZE, COUNT = 32, 1200
rng = np.random.default_rng(2026)
yy, xx = np.mgrid[0:SIZE, 0:SIZE]
images = np.zeros((COUNT, SIZE, SIZE, 1), dtype=np.uint8)
masks = np.zeros((COUNT, SIZE, SIZE), dtype=np.uint8)
for i in range(COUNT):
    background = rng.uniform(20, 90)
    img = np.full((SIZE, SIZE), background) + rng.normal(0, 12, (SIZE, SIZE))
    mask = np.zeros((SIZE, SIZE), dtype=np.uint8)
    for _ in range(rng.integers(1, 4)):
        kind = rng.integers(1, 3)
        r = rng.uniform(3, 7)
        cy, cx = rng.uniform(r, SIZE - r, 2)
        if kind == 1:
            inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        else:
            inside = (np.abs(yy - cy) <= r) & (np.abs(xx - cx) <= r)
        img[inside] = rng.uniform(140, 240) + rng.normal(0, 12, inside.sum())
        mask[inside] = kind
    images[i, :, :, 0] = np.clip(img, 0, 255).astype(np.uint8)
    masks[i] = mask
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes.npz"), x=images, y=masks)
