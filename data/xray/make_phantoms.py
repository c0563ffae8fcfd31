"""Writes xray_phantoms.npz (800 samples, seed 5151) and xray_phantoms_test.npz (100, seed 5252) for
sample-configs/xray-volume-cascade.json: synthetic CT-like phantoms (a body ellipsoid holding three to five smaller
ellipsoids of other densities) and their two orthogonal X-ray views. Deterministic. Run with /usr/bin/python3 and
NumPy: python3 data/xray/make_phantoms.py

Axes of a volume [D, H, W] are (z: head to feet, y: front to back, x: left to right). A view is the volume's MEAN
along one axis (the X-ray's attenuation line integral, divided by the path length so it stays in the volume's units):
`front` along y (height) is [D, W], `side` along x (width) is [D, H]. Everything is stored as uint8 (0-255) and read
with scale 1/255, so volumes and views are in [0, 1]; the views are computed from the stored 32^3 volume, so a
projection of a true volume matches its view to within rounding (at most 1/255). `backprojection16` is made from
the two views alone: each smeared back along its axis, the two averaged, then averaged over 2x2x2 blocks: a
volume-shaped input a model may take beside the views (kept at 16^3, where both stages' tokens lie on a 4x4x4 grid)."""
import os
import numpy as np

SIZE = 32
grid = (np.mgrid[0:SIZE, 0:SIZE, 0:SIZE].astype(np.float64) + 0.5) / SIZE * 2 - 1  # [3, D, H, W] in (-1, 1)


def rotation(rng):
    q = rng.normal(size=4)
    a, b, c, d = q / np.linalg.norm(q)
    return np.array([[a*a+b*b-c*c-d*d, 2*(b*c-a*d), 2*(b*d+a*c)],
                     [2*(b*c+a*d), a*a-b*b+c*c-d*d, 2*(c*d-a*b)],
                     [2*(b*d-a*c), 2*(c*d+a*b), a*a-b*b-c*c+d*d]])


def ellipsoid(rng, centre, radii):
    local = np.einsum("ij,jdhw->idhw", rotation(rng), grid - np.asarray(centre)[:, None, None, None])
    return ((local / np.asarray(radii)[:, None, None, None]) ** 2).sum(axis=0) <= 1


def phantom(rng):
    volume = np.zeros((SIZE, SIZE, SIZE))
    body = ellipsoid(rng, rng.uniform(-0.08, 0.08, 3), [rng.uniform(0.75, 0.9), rng.uniform(0.5, 0.75),
                                                         rng.uniform(0.6, 0.85)])
    volume[body] = rng.uniform(0.25, 0.4)
    for _ in range(rng.integers(3, 6)):
        radii = rng.uniform(0.12, 0.35, 3)
        centre = rng.uniform(-0.45, 0.45, 3)
        volume[ellipsoid(rng, centre, radii) & body] = rng.choice([0.05, 0.6, 0.8, 1.0])
    return np.round(volume * 255).astype(np.uint8)


def make(count, seed):
    rng = np.random.default_rng(seed)
    volume = np.stack([phantom(rng) for _ in range(count)])
    as_float = volume.astype(np.float64)
    front = np.round(as_float.mean(axis=2)).astype(np.uint8)  # along y: [N, D, W]
    side = np.round(as_float.mean(axis=3)).astype(np.uint8)  # along x: [N, D, H]
    half = np.round(as_float.reshape(count, 16, 2, 16, 2, 16, 2).mean(axis=(2, 4, 6))).astype(np.uint8)
    back = backprojection(front.astype(np.float64), side.astype(np.float64))
    back16 = back.reshape(count, 16, 2, 16, 2, 16, 2).mean(axis=(2, 4, 6))
    return {"volume": volume[..., None], "volume16": half[..., None], "front": front[..., None],
            "side": side[..., None], "backprojection16": np.round(back16).astype(np.uint8)[..., None]}


def backprojection(front, side):
    """Each view smeared back along its axis, the two averaged: computed from the views alone, [N, D, H, W]."""
    return (front[:, :, None, :] + side[:, :, :, None]) / 2


here = os.path.dirname(os.path.abspath(__file__))
for name, count, seed in (("xray_phantoms.npz", 800, 5151), ("xray_phantoms_test.npz", 100, 5252)):
    np.savez_compressed(os.path.join(here, name), **make(count, seed))
