package org.traindeck.engine.model.kernels.embedding;

/**
 * Volumes [mb, C, D, H, W] (channels first, row-major) and their s×s×s patches as rows [mb·T, C·s³]: patches depth-major,
 * then height, then width (Conv3d's flatten order), each row's values in [C, s, s, s] order. {@link #cut} and
 * {@link #place} are each other's inverse, copying runs of s values.
 */
record VolumePatches(int examples, int channels, int depth, int height, int width, int size) {

    int tokens() {
        return (depth / size) * (height / size) * (width / size);
    }

    int rowLength() {
        return channels * size * size * size;
    }

    long volumeValues() {
        return (long) examples * channels * depth * height * width;
    }

    long rowValues() {
        return (long) examples * tokens() * rowLength();
    }

    /** The volumes' patches, a row each. */
    void cut(float[] volumes, float[] rows) {
        copy(volumes, rows, true);
    }

    /** Each row put back as its patch of the volumes. */
    void place(float[] rows, float[] volumes) {
        copy(volumes, rows, false);
    }

    private void copy(float[] volumes, float[] rows, boolean toRows) {
        int s = size;
        int across = width / s;
        int perSlab = (height / s) * across;
        int n = tokens();
        int length = rowLength();
        int at = 0;
        for (int b = 0; b < examples; b++) {
            for (int c = 0; c < channels; c++) {
                for (int z = 0; z < depth; z++) {
                    for (int y = 0; y < height; y++) {
                        int token = b * n + (z / s) * perSlab + (y / s) * across;
                        int rowBase = token * length + c * s * s * s + (z % s) * s * s + (y % s) * s;
                        for (int q = 0; q < across; q++) {
                            if (toRows) {
                                System.arraycopy(volumes, at, rows, rowBase + q * length, s);
                            } else {
                                System.arraycopy(rows, rowBase + q * length, volumes, at, s);
                            }
                            at += s;
                        }
                    }
                }
            }
        }
    }

    /** [mb, F, T] as rows [mb·T, F], or back. */
    static void transpose(float[] from, float[] to, int examples, int a, int b) {
        for (int e = 0; e < examples; e++) {
            int base = e * a * b;
            for (int i = 0; i < a; i++) {
                for (int j = 0; j < b; j++) {
                    to[base + j * a + i] = from[base + i * b + j];
                }
            }
        }
    }
}
