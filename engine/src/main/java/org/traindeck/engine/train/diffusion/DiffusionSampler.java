package org.traindeck.engine.train.diffusion;

import java.util.SplittableRandom;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.DiffusionConfig;

/**
 * Generates samples with a trained denoiser, from pure noise down to t = 0 over {@code steps} timesteps spread evenly
 * over the schedule: DDIM with η = 0 (deterministic given the starting noise, Song et al.) or DDPM's ancestral
 * sampling (fresh noise at every step but the last, at the posterior's variance, Ho et al.; with fewer steps than
 * the schedule, the posterior between two visited timesteps). The clean-sample estimate of each step is clipped
 * to [−1, 1] (diffusers' clip_sample), so samples are expected in that range ({@code scale} the data to it). Every example draws its starting noise and DDPM's
 * noise from its own generator, seeded by the seed and its index, so a sample does not depend on the batch it is in.
 */
public final class DiffusionSampler {

    /** The network: its output for the noised samples, their timesteps and the conditioning, in the graph's order. */
    @FunctionalInterface
    public interface Denoiser {
        INDArray output(INDArray... inputs);
    }

    /** The clean sample's estimate is held to [−1, 1] at every step: samples are expected in that range. */
    public static final double CLIP = 1;

    private final NoiseSchedule schedule;
    private final Prediction prediction;

    public DiffusionSampler(DiffusionConfig c) {
        this.schedule = NoiseSchedule.of(c);
        this.prediction = Prediction.of(c.prediction());
    }

    /** The timesteps visited, from the noisiest: {@code steps} of 0..T−1, evenly spread, ending at 0. */
    public int[] timesteps(int steps) {
        int last = schedule.timesteps() - 1;
        int n = Math.max(1, Math.min(steps, schedule.timesteps()));
        int[] ts = new int[n];
        for (int k = 0; k < n; k++) {
            ts[k] = n == 1 ? last : (int) Math.round((double) (n - 1 - k) * last / (n - 1));
        }
        return ts;
    }

    /**
     * @param batchShape   the network's shape of {@code n} samples (channels first)
     * @param conditioning the conditioning inputs of the n examples, in the graph's order after the timestep
     * @param first        the index of the batch's first example among all generated (for its seed)
     * @return the n samples, flat, channels first
     */
    public float[] sample(
            Denoiser net, long[] batchShape, INDArray[] conditioning, int steps, boolean ddim, long seed, int first) {
        int n = (int) batchShape[0];
        int d = (int) (shapeValues(batchShape) / n);
        SplittableRandom[] draws = new SplittableRandom[n];
        float[] x = new float[n * d];
        for (int i = 0; i < n; i++) {
            draws[i] = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + first + i);
            for (int j = i * d; j < (i + 1) * d; j++) {
                x[j] = (float) Gaussians.next(draws[i]);
            }
        }
        int[] ts = timesteps(steps);
        INDArray[] inputs = new INDArray[2 + conditioning.length];
        System.arraycopy(conditioning, 0, inputs, 2, conditioning.length);
        for (int k = 0; k < ts.length; k++) {
            int t = ts[k];
            inputs[0] = Nd4j.create(x, batchShape, DataType.FLOAT);
            inputs[1] = Nd4j.valueArrayOf(new long[] {n, 1}, (float) t, DataType.FLOAT);
            float[] out = net.output(inputs)
                    .castTo(DataType.FLOAT)
                    .dup('c')
                    .reshape(n * (long) d)
                    .toFloatVector();
            double a = schedule.alphaBar(t);
            double previous = k + 1 < ts.length ? schedule.alphaBar(ts[k + 1]) : 1;
            step(x, out, a, previous, ddim || k + 1 == ts.length, draws, d);
        }
        return x;
    }

    private void step(
            float[] x, float[] out, double a, double previous, boolean deterministic, SplittableRandom[] draws, int d) {
        double alpha = a / previous;
        double beta = 1 - alpha;
        double variance = (1 - previous) / (1 - a) * beta;
        for (int j = 0; j < x.length; j++) {
            // as diffusers' clip_sample: an estimate from a nearly pure-noise x_t is far off, and must not blow up
            double x0 = Math.max(-CLIP, Math.min(CLIP, prediction.x0(out[j], x[j], a)));
            double next;
            if (deterministic) {
                double eps = (x[j] - Math.sqrt(a) * x0) / Math.sqrt(1 - a);
                next = Math.sqrt(previous) * x0 + Math.sqrt(1 - previous) * eps;
            } else {
                double mean =
                        Math.sqrt(previous) * beta / (1 - a) * x0 + Math.sqrt(alpha) * (1 - previous) / (1 - a) * x[j];
                next = mean + Math.sqrt(variance) * Gaussians.next(draws[j / d]);
            }
            x[j] = (float) next;
        }
    }

    private static long shapeValues(long[] shape) {
        long v = 1;
        for (long s : shape) {
            v *= s;
        }
        return v;
    }
}
