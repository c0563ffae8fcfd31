package org.traindeck.engine.model.kernels;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * A measurement, not a test: the transformer block's GELU on the workstation ViT's 3.2 M elements (64 × 65 rows of
 * 768), a chunk of three rows at a time as TransformerBlockGelu works, with the sigmoid from the exponential
 * (1/(1 + e^-1.702x), {@link FloatExp#expInPlace}) and from {@link GeluSigmoid}'s rational tanh,
 * alternated in one JVM; prints the median thread CPU time of each. java -cp test-classes:classes:deps
 * org.traindeck.engine.model.kernels.GeluTiming [rounds]
 */
public final class GeluTiming {

    private static final int ELEMENTS = 64 * 65 * 768;
    private static final int CHUNK = 3 * 768;

    private GeluTiming() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        float[] input = new float[ELEMENTS];
        Random random = new Random(1);
        for (int i = 0; i < ELEMENTS; i++) {
            input[i] = (float) random.nextGaussian() * 2;
        }
        float[][] chunk = new float[5][CHUNK];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[][] times = new long[2][rounds];
        for (int warm = 0; warm < 3; warm++) {
            for (int r = 0; r < rounds; r++) {
                for (int way = 0; way < 2; way++) {
                    long t0 = threads.getCurrentThreadCpuTime();
                    pass(input, chunk, way == 0);
                    times[way][r] = threads.getCurrentThreadCpuTime() - t0;
                }
            }
        }
        String[] names = {"exponential", "rational"};
        for (int way = 0; way < 2; way++) {
            long[] sorted = times[way].clone();
            Arrays.sort(sorted);
            double median = sorted[rounds / 2];
            System.out.printf(
                    Locale.ROOT, "%s: %.3f ms, %.3f ns an element%n", names[way], median / 1e6, median / ELEMENTS);
        }
    }

    private static void pass(float[] input, float[][] chunk, boolean exponential) {
        float[] u = chunk[0];
        float[] bias = chunk[1];
        float[] slope = chunk[2];
        float[] z = chunk[3];
        for (int at = 0; at + CHUNK <= ELEMENTS; at += CHUNK) {
            System.arraycopy(input, at, u, 0, CHUNK);
            if (exponential) {
                exponentialGelu(u, bias, slope, z, chunk[4]);
            } else {
                GeluSigmoid.biasGelu(u, bias, slope, z, CHUNK);
            }
        }
    }

    /** The block's GELU before GeluSigmoid: the sigmoid as 1/(1 + e^-1.702x) with the vectorised float exp. */
    private static void exponentialGelu(float[] u, float[] bias, float[] slope, float[] z, float[] scratch) {
        for (int i = 0; i < CHUNK; i++) {
            float v = u[i] + bias[i];
            u[i] = v;
            slope[i] = -GeluSigmoid.SCALE * v;
        }
        FloatExp.expInPlace(slope, scratch, 0, CHUNK);
        for (int i = 0; i < CHUNK; i++) {
            float v = u[i];
            float sg = 1 / (1 + slope[i]);
            z[i] = v * sg;
            slope[i] = sg * (1 + GeluSigmoid.SCALE * v * (1 - sg));
        }
    }
}
