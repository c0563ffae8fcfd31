package org.traindeck.engine.model.kernels;

/** The cross-entropy of softmax rows, as the classifier and sequence heads score it. */
final class CrossEntropyRows {

    private CrossEntropyRows() {}

    /**
     * Σ over rows of −mask · Σ_k y log p, p clipped to [clip, 1 − clip] as DL4J's cross-entropy clips it (no clipping when
     * clip is 0); a row whose mask is 0 adds nothing.
     */
    static double sum(float[] probabilities, float[] targets, float[] mask, int rows, int classes, double clip) {
        double sum = 0;
        for (int r = 0; r < rows; r++) {
            float m = mask[r];
            if (m == 0) {
                continue;
            }
            int o = r * classes;
            double row = 0;
            for (int j = 0; j < classes; j++) {
                float y = targets[o + j];
                if (y != 0) {
                    double p = probabilities[o + j];
                    if (clip > 0) {
                        p = Math.min(Math.max(p, clip), 1 - clip);
                    }
                    row += y * Math.log(p);
                }
            }
            sum -= row * m;
        }
        return sum;
    }
}
