package org.traindeck.engine.train.diffusion;

import java.util.List;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.ViewProjection;

/**
 * How close generated samples are to the truth: PSNR against the true samples, the peak being the true samples' range
 * (max − min, 1 when they are constant), over every value of every example at once; and the projection error, the mean
 * absolute difference between the generated volumes' means along each view's axis and the views (pooled to the mean's
 * size), each view weighing the same.
 */
public final class SampleScores {

    /** The squared error below which PSNR is not told apart (a perfect sample): 120 dB for a range of 1. */
    private static final double LEAST_MSE = 1e-12;

    private SampleScores() {}

    /** PSNR in dB of {@code generated} against {@code truth}, values [from, to) of each. */
    public static double psnr(float[] generated, float[] truth, int from, int to) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double squared = 0;
        for (int j = from; j < to; j++) {
            double e = generated[j] - truth[j];
            squared += e * e;
            min = Math.min(min, truth[j]);
            max = Math.max(max, truth[j]);
        }
        double range = max > min ? max - min : 1;
        double mse = squared / (to - from);
        return 10 * Math.log10(range * range / Math.max(mse, LEAST_MSE));
    }

    /**
     * @param generated {@code n} volumes, channels first, of the first {@code n} examples of {@code data}
     * @return the mean over the projections of each one's mean absolute difference to its view
     */
    public static double projectionError(List<ViewProjection> projections, Dataset data, float[] generated, int n) {
        double sum = 0;
        for (ViewProjection p : projections) {
            int d = p.volume().values();
            float[] view = new float[p.view().values()];
            double absolute = 0;
            for (int i = 0; i < n; i++) {
                data.copyInput(p.inputIndex(), i, view, 0);
                float[] projected = p.project(generated, i * d);
                float[] pooled = p.pool(view, 0);
                for (int j = 0; j < pooled.length; j++) {
                    absolute += Math.abs(projected[j] - pooled[j]);
                }
            }
            sum += absolute / ((double) n * p.projection().values());
        }
        return sum / projections.size();
    }
}
