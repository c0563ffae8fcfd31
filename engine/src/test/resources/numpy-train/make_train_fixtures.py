"""Writes the arrays NumpySourceTest trains from: the same 64 samples in every dtype, byte order and memory order
the numpy source reads, with their labels. Run with /usr/bin/python3 (Debian's python3-numpy); the outputs are
committed, so the tests need no Python."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
# two features in 0..3; the class is whether the first is larger: learnable by a tiny network in every dtype
base = rng.integers(0, 4, size=(64, 2))
labels = (base[:, 0] > base[:, 1]).astype(np.int64)
np.save(os.path.join(here, "y.npy"), labels)
dtypes = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]
for code in dtypes:
    for order_name, endian in (("le", "<"), ("be", ">")):
        for layout in ("C", "F"):
            a = np.asarray(base, dtype=np.dtype(endian + code))
            a = np.asfortranarray(a) if layout == "F" else np.ascontiguousarray(a)
            np.save(os.path.join(here, "x_%s_%s_%s.npy" % (code, order_name, layout)), a)
# bool has no byte order: values 0/1, the class is "first set, second not"
bits = base >= 2
np.save(os.path.join(here, "x_b1_C.npy"), np.ascontiguousarray(bits))
np.save(os.path.join(here, "x_b1_F.npy"), np.asfortranarray(bits))
np.save(os.path.join(here, "y_b1.npy"), (bits[:, 0] & ~bits[:, 1]).astype(np.uint8))
# the same samples in one .npz
np.savez(os.path.join(here, "xy.npz"), x=base.astype(np.float32), y=labels)
np.save(os.path.join(here, "y_short.npy"), labels[:63])
# a NaN at sample 17, feature 1
bad = base.astype(np.float32)
bad[17, 1] = np.nan
np.save(os.path.join(here, "x_nan.npy"), bad)
# masks for 8x8 one-channel images, 3 classes, one id out of range in the bad copy
images = rng.random((16, 8, 8, 1)).astype(np.float32)
masks = (images[..., 0] * 3).astype(np.uint8).clip(0, 2)
np.save(os.path.join(here, "images.npy"), images)
np.save(os.path.join(here, "masks.npy"), masks)
bad_masks = masks.copy()
bad_masks[3, 4, 5] = 7
np.save(os.path.join(here, "masks_bad.npy"), bad_masks)
