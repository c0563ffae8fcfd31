package org.traindeck.engine.use.predict;

/**
 * The network's outputs laid out as TrainDeck's arrays are: a sequence's [N, features, T] (DL4J's) as [N, T, features]
 * always (the GPT's next-token probabilities [N, T, vocabulary], as PyTorch's users expect), and per-pixel or per-voxel
 * outputs [N, C, H, W] as [N, H, W, C] where the layout is channels last. The most likely classes are unchanged.
 */
final class OutputLayout {

    private OutputLayout() {}

    static Predictions arrange(Predictions p, ArrayLayout layout) {
        int rank = p.shape().length;
        boolean sequence = rank == 3;
        boolean picture = rank == 4 || rank == 5;
        if (!sequence && !(picture && layout == ArrayLayout.CHANNELS_LAST)) {
            return p;
        }
        return new Predictions(
                channelsToLast(p.values(), p.shape()), lastShape(p.shape()), p.classes(), p.classShape(), p.names());
    }

    /** [N, C, rest…] → [N, rest…, C]. */
    static long[] lastShape(long[] shape) {
        long[] out = new long[shape.length];
        out[0] = shape[0];
        System.arraycopy(shape, 2, out, 1, shape.length - 2);
        out[shape.length - 1] = shape[1];
        return out;
    }

    /** Values of shape [N, C, rest…] moved to [N, rest…, C]. */
    static float[] channelsToLast(float[] values, long[] shape) {
        int n = (int) shape[0];
        int c = (int) shape[1];
        int positions = values.length / Math.max(1, n * c);
        float[] out = new float[values.length];
        for (int i = 0; i < n; i++) {
            int base = i * c * positions;
            for (int k = 0; k < c; k++) {
                for (int p = 0; p < positions; p++) {
                    out[base + p * c + k] = values[base + k * positions + p];
                }
            }
        }
        return out;
    }
}
