package org.traindeck.engine.train.batch;

/**
 * The errors of real-valued outputs against their targets over batches: their mean square and mean absolute value,
 * and the targets' range, the peak of the PSNR.
 */
public final class ValueErrors {

    private double squared;
    private double absolute;
    private long count;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    public void add(float out, float label) {
        double err = out - label;
        squared += err * err;
        absolute += Math.abs(err);
        min = Math.min(min, label);
        max = Math.max(max, label);
        count++;
    }

    public double mse() {
        return squared / count;
    }

    public double mae() {
        return absolute / count;
    }

    /** In dB, the peak being the targets' range (1 where they are all one value). */
    public double psnr() {
        double range = max > min ? max - min : 1;
        return 10 * Math.log10(range * range / Math.max(mse(), 1e-12));
    }
}
