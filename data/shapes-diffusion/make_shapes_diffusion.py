"""Writes shapes_diffusion.npz (2,000 samples, seed 4141) and shapes_diffusion_test.npz (200, seed 4242) for
sample-configs/shapes-diffusion.json: 16x16 grey pictures of circles and squares on a noisy background, as float32 in
[-1, 1], and their masks as float32 [N, 16, 16, 1] (0 background, 0.5 circle, 1 square), the diffusion model's
conditioning. Deterministic. Run with /usr/bin/python3 and NumPy: python3 data/shapes-diffusion/make_shapes_diffusion.py"""
import os
import numpy as np

SIZE = 16
yy, xx = np.mgrid[0:SIZE, 0:SIZE]


def make(count, seed):
    rng = np.random.default_rng(seed)
    images = np.zeros((count, SIZE, SIZE, 1), dtype=np.float32)
    masks = np.zeros((count, SIZE, SIZE, 1), dtype=np.float32)
    for i in range(count):
        img = np.full((SIZE, SIZE), rng.uniform(-0.9, -0.4)) + rng.normal(0, 0.05, (SIZE, SIZE))
        mask = np.zeros((SIZE, SIZE), dtype=np.float32)
        for _ in range(rng.integers(1, 3)):
            kind = rng.integers(1, 3)
            r = rng.uniform(2, 4.5)
            cy, cx = rng.uniform(r, SIZE - r, 2)
            if kind == 1:
                inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
            else:
                inside = (np.abs(yy - cy) <= r) & (np.abs(xx - cx) <= r)
            img[inside] = rng.uniform(0.3, 0.9) + rng.normal(0, 0.05, inside.sum())
            mask[inside] = 0.5 * kind
        images[i, :, :, 0] = np.clip(img, -1, 1)
        masks[i, :, :, 0] = mask
    return images, masks


here = os.path.dirname(os.path.abspath(__file__))
for name, count, seed in (("shapes_diffusion.npz", 2000, 4141), ("shapes_diffusion_test.npz", 200, 4242)):
    x, m = make(count, seed)
    np.savez_compressed(os.path.join(here, name), image=x, mask=m)
