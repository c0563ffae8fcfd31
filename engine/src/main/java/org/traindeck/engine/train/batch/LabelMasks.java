package org.traindeck.engine.train.batch;

/** A batch's per-step label mask ([n, T]: 1 counts, 0 padding) spread over every value of the targets. */
public final class LabelMasks {

    private LabelMasks() {}

    /**
     * A weight per target value, laid out as the targets are ([n, k, T]: k values at each of T steps), from the
     * per-step mask of {@code n} samples of {@code valuesPerSample} = k·T values each.
     */
    public static float[] perValue(float[] stepMask, int n, int valuesPerSample) {
        int steps = stepMask.length / n;
        int k = valuesPerSample / steps;
        float[] out = new float[n * valuesPerSample];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < k; c++) {
                System.arraycopy(stepMask, i * steps, out, (i * k + c) * steps, steps);
            }
        }
        return out;
    }
}
