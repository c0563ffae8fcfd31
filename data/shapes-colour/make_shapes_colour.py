"""Writes shapes_colour.npz and shapes_colour_test.npz: a two-input classification set whose class depends on both a
16x16 grey picture (circle, square or triangle) and a colour code given as three numbers (red or blue), so that
neither input alone can reach the accuracy of both. Deterministic (fixed seeds and fixed zip timestamps): running it
again writes the same bytes. Run with Python 3 and NumPy: python3 data/shapes-colour/make_shapes_colour.py"""
import io
import os
import zipfile

import numpy as np

SIZE = 16
SHAPES = ("circle", "square", "triangle")
COLOURS = {"red": (0.8, 0.2, 0.2), "blue": (0.2, 0.2, 0.8)}
COLOUR_NOISE = 0.15
TRAIN_COUNT, TEST_COUNT = 3000, 600
TRAIN_SEED, TEST_SEED = 3131, 3232
HERE = os.path.dirname(os.path.abspath(__file__))
YY, XX = np.mgrid[0:SIZE, 0:SIZE] + 0.5


def inside(shape, cy, cx, r):
    """The pixels a shape of half-size r centred at (cy, cx) covers."""
    if shape == 0:
        return (YY - cy) ** 2 + (XX - cx) ** 2 <= r * r
    if shape == 1:
        return (np.abs(YY - cy) <= r * 0.85) & (np.abs(XX - cx) <= r * 0.85)
    # an upright triangle: apex at the top, base at the bottom, widening downwards
    top, bottom = cy - r, cy + r
    half_width = (YY - top) / (bottom - top) * r
    return (YY >= top) & (YY <= bottom) & (np.abs(XX - cx) <= half_width)


def picture(shape, rng):
    """A noisy background of a random grey, and the shape in a random brighter grey, size and place."""
    background = rng.uniform(10, 100)
    img = background + rng.normal(0, 14, (SIZE, SIZE))
    r = rng.uniform(3.5, 6.5)
    cy, cx = rng.uniform(r, SIZE - r, 2)
    covered = inside(shape, cy, cx, r)
    img[covered] = rng.uniform(150, 245) + rng.normal(0, 14, covered.sum())
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def samples(count, rng):
    shapes = rng.integers(0, len(SHAPES), count)
    colours = rng.integers(0, len(COLOURS), count)
    centres = np.array(list(COLOURS.values()), dtype=np.float64)
    image = np.zeros((count, SIZE, SIZE, 1), dtype=np.uint8)
    for i in range(count):
        image[i, :, :, 0] = picture(shapes[i], rng)
    colour = centres[colours] + rng.normal(0, COLOUR_NOISE, (count, 3))
    return {
        "image": image,
        "colour": colour.astype(np.float32),
        "label": (shapes * len(COLOURS) + colours).astype(np.int64),
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


def report(train, test):
    """Class counts, and how well the colour code alone tells red from blue (nearest class mean, fitted on train)."""
    colours = len(COLOURS)
    means = np.stack([train["colour"][train["label"] % colours == c].mean(axis=0) for c in range(colours)])
    distances = ((test["colour"][:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    colour_right = float((np.argmin(distances, axis=1) == test["label"] % colours).mean())
    print("classes (shape*2 + colour):", ", ".join(f"{s}-{c}" for s in SHAPES for c in COLOURS))
    print("train counts per class:", np.bincount(train["label"], minlength=6).tolist())
    print("test counts per class: ", np.bincount(test["label"], minlength=6).tolist())
    print(f"colour told apart by the nearest class mean on the test set: {colour_right:.3f}")
    print(f"best accuracy from the colour alone (colour right, shape guessed): {colour_right / len(SHAPES):.3f}")
    print("best accuracy from the image alone (shape right, colour guessed): 0.500")


def main():
    train = samples(TRAIN_COUNT, np.random.default_rng(TRAIN_SEED))
    test = samples(TEST_COUNT, np.random.default_rng(TEST_SEED))
    save(os.path.join(HERE, "shapes_colour.npz"), train)
    save(os.path.join(HERE, "shapes_colour_test.npz"), test)
    report(train, test)


if __name__ == "__main__":
    main()
