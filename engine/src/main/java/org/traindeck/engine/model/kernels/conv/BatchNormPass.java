package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The fused batch norm's loops over activations {@code [samples, channels, positions]} (positions: 1 for feature
 * rows, the pixels of an NCHW image): a channel's values at one sample are one contiguous row, so every loop is a
 * same-index loop over a row (which the JIT vectorises) with the channel's figures held in scalars. The forward pass
 * keeps only the per-channel mean and inverse deviation; the backward pass reads the layer's input again (DL4J keeps
 * it for every layer) instead of a stored x̂. The arrays stream through one sample at a time (channels × positions,
 * copied in bulk into scratch space kept per thread, not per layer): the forward pass reads x twice (the statistics,
 * then the output) and the backward pass x and dy twice (the sums, then dx), each writing its result once.
 */
final class BatchNormPass {

    /** Per-channel figures summed over the replicas of a synchronous step, or this replica's own (null exchange). */
    record Link(BatchStatsExchange exchange, String layer) {}

    private static final ThreadLocal<float[][]> SCRATCH =
            ThreadLocal.withInitial(() -> new float[][] {new float[0], new float[0]});

    private float[] mean = new float[0];
    private float[] inverseStd = new float[0];
    private double[] batchMean;
    private double[] batchVar;
    private long count;
    private long[] shape;

    /** Whether the kernel computes a training pass of {@code input}; otherwise DL4J's layer does. */
    static boolean computes(INDArray input, BatchNormalization conf, DataType layerType) {
        int rank = input.rank();
        return layerType == DataType.FLOAT
                && input.dataType() == DataType.FLOAT
                && !conf.isLockGammaBeta()
                && (rank == 2 || rank == 4 && conf.getCnn2DFormat() == CNN2DFormat.NCHW)
                && input.length() < Integer.MAX_VALUE;
    }

    /** Whether {@link #forward} ran for the batch whose gradient arrives now. */
    boolean holds(INDArray epsilon) {
        return shape != null && Arrays.equals(shape, epsilon.shape());
    }

    void clear() {
        shape = null;
    }

    /** The training forward pass: γ·(x − μ)/σ + β with the batch's (or the round's) statistics. */
    INDArray forward(INDArray input, float[] gamma, float[] beta, double eps, Link link, LayerWorkspaceMgr mgr) {
        int n = (int) input.size(0);
        int c = (int) input.size(1);
        int p = (int) (input.length() / ((long) n * c));
        int block = c * p;
        INDArray x = Sgemm.dense(input);
        FloatBuffer from = Sgemm.buffer(x);
        float[] xs = scratch(0, block);
        // per channel: count, mean and sum of squared deviations, rows merged as Chan et al.'s parallel variance
        double[] mu = new double[c];
        double[] m2 = new double[c];
        for (int b = 0; b < n; b++) {
            from.get(b * block, xs, 0, block);
            for (int ch = 0; ch < c; ch++) {
                int at = ch * p;
                float rowMean = (float) (rowSum(xs, at, p) / p);
                double rowM2 = rowSquares(xs, at, p, rowMean);
                double delta = rowMean - mu[ch];
                long before = (long) b * p;
                double after = before + p;
                mu[ch] += delta * p / after;
                m2[ch] += rowM2 + delta * delta * before * p / after;
            }
        }
        long local = (long) n * p;
        double[] var = new double[c];
        for (int ch = 0; ch < c; ch++) {
            var[ch] = m2[ch] / local;
        }
        keepStatistics(link, local, mu, var, eps);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, input.shape(), 'c');
        FloatBuffer to = Sgemm.buffer(out);
        for (int b = 0; b < n; b++) {
            from.get(b * block, xs, 0, block);
            for (int ch = 0; ch < c; ch++) {
                normaliseRow(xs, ch * p, p, mean[ch], gamma[ch] * inverseStd[ch], beta[ch]);
            }
            to.put(b * block, xs, 0, block);
        }
        shape = input.shape();
        return out;
    }

    private void keepStatistics(Link link, long local, double[] mu, double[] var, double eps) {
        int c = mu.length;
        if (link == null) {
            count = local;
            batchMean = mu;
            batchVar = var;
        } else {
            double[] all = link.exchange().forward(link.layer(), local, mu, var);
            count = (long) all[0];
            batchMean = Arrays.copyOfRange(all, 1, 1 + c);
            batchVar = Arrays.copyOfRange(all, 1 + c, 1 + 2 * c);
        }
        mean = HostFloats.atLeast(mean, c);
        inverseStd = HostFloats.atLeast(inverseStd, c);
        for (int ch = 0; ch < c; ch++) {
            mean[ch] = (float) batchMean[ch];
            inverseStd[ch] = (float) (1 / Math.sqrt(batchVar[ch] + eps));
        }
    }

    /** The batch's (or round's) mean and biased variance per channel, for the running statistics. */
    double[] batchMean() {
        return batchMean;
    }

    double[] batchVariance() {
        return batchVar;
    }

    /**
     * The backward pass: writes this replica's Σ dy·x̂ and Σ dy into {@code dGamma} and {@code dBeta} and returns
     * dx = γ/σ · (dy − mean(dy) − (x̂ − mean(x̂)) · mean(dy·x̂)), the means over the batch (or the whole round).
     */
    INDArray backward(
            INDArray input,
            INDArray epsilon,
            float[] gamma,
            float[] dGamma,
            float[] dBeta,
            Link link,
            LayerWorkspaceMgr mgr) {
        int n = (int) input.size(0);
        int c = (int) input.size(1);
        int p = (int) (input.length() / ((long) n * c));
        int block = c * p;
        FloatBuffer xFrom = Sgemm.buffer(Sgemm.dense(input));
        FloatBuffer gFrom = Sgemm.buffer(Sgemm.dense(epsilon));
        float[] x = scratch(0, block);
        float[] g = scratch(1, block);
        double[] sums = new double[3 * c];
        double[] row = new double[3];
        for (int b = 0; b < n; b++) {
            xFrom.get(b * block, x, 0, block);
            gFrom.get(b * block, g, 0, block);
            for (int ch = 0; ch < c; ch++) {
                rowGradientSums(x, g, ch * p, p, mean[ch], row);
                sums[ch] += row[0];
                sums[c + ch] += row[1];
                sums[2 * c + ch] += row[2];
            }
        }
        for (int ch = 0; ch < c; ch++) {
            sums[c + ch] *= inverseStd[ch];
            sums[2 * c + ch] *= inverseStd[ch];
            dBeta[ch] = (float) sums[ch];
            dGamma[ch] = (float) sums[c + ch];
        }
        double[] total = link == null ? sums : link.exchange().backward(link.layer(), sums);
        float[] scale = new float[c];
        float[] offset = new float[c];
        float[] slope = new float[c];
        for (int ch = 0; ch < c; ch++) {
            double k = (double) gamma[ch] * inverseStd[ch];
            double meanDy = total[ch] / count;
            double meanDyXhat = total[c + ch] / count;
            double meanXhat = total[2 * c + ch] / count;
            scale[ch] = (float) k;
            offset[ch] = (float) (k * (meanDyXhat * meanXhat - meanDy));
            slope[ch] = (float) (k * meanDyXhat * inverseStd[ch]);
        }
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        FloatBuffer to = Sgemm.buffer(dx);
        for (int b = 0; b < n; b++) {
            xFrom.get(b * block, x, 0, block);
            gFrom.get(b * block, g, 0, block);
            for (int ch = 0; ch < c; ch++) {
                inputGradientRow(x, g, ch * p, p, mean[ch], scale[ch], offset[ch], slope[ch]);
            }
            to.put(b * block, g, 0, block);
        }
        shape = null;
        return dx;
    }

    private static float[] scratch(int which, long length) {
        float[][] s = SCRATCH.get();
        s[which] = HostFloats.atLeast(s[which], length);
        return s[which];
    }

    // four partial sums: a single chain of float additions neither vectorises nor keeps its precision
    private static double rowSum(float[] x, int at, int p) {
        float s0 = 0f;
        float s1 = 0f;
        float s2 = 0f;
        float s3 = 0f;
        int i = 0;
        for (; i + 3 < p; i += 4) {
            s0 += x[at + i];
            s1 += x[at + i + 1];
            s2 += x[at + i + 2];
            s3 += x[at + i + 3];
        }
        for (; i < p; i++) {
            s0 += x[at + i];
        }
        return (double) s0 + s1 + s2 + s3;
    }

    private static double rowSquares(float[] x, int at, int p, float m) {
        float s0 = 0f;
        float s1 = 0f;
        float s2 = 0f;
        float s3 = 0f;
        int i = 0;
        for (; i + 3 < p; i += 4) {
            float d0 = x[at + i] - m;
            float d1 = x[at + i + 1] - m;
            float d2 = x[at + i + 2] - m;
            float d3 = x[at + i + 3] - m;
            s0 += d0 * d0;
            s1 += d1 * d1;
            s2 += d2 * d2;
            s3 += d3 * d3;
        }
        for (; i < p; i++) {
            float d = x[at + i] - m;
            s0 += d * d;
        }
        return (double) s0 + s1 + s2 + s3;
    }

    /** Σ dy, Σ dy·(x − m) and Σ (x − m) over one row, into {@code into}. */
    private static void rowGradientSums(float[] x, float[] g, int at, int p, float m, double[] into) {
        float a0 = 0f;
        float a1 = 0f;
        float b0 = 0f;
        float b1 = 0f;
        float c0 = 0f;
        float c1 = 0f;
        int i = 0;
        for (; i + 1 < p; i += 2) {
            float g0 = g[at + i];
            float g1 = g[at + i + 1];
            float d0 = x[at + i] - m;
            float d1 = x[at + i + 1] - m;
            a0 += g0;
            a1 += g1;
            b0 += g0 * d0;
            b1 += g1 * d1;
            c0 += d0;
            c1 += d1;
        }
        for (; i < p; i++) {
            float d = x[at + i] - m;
            a0 += g[at + i];
            b0 += g[at + i] * d;
            c0 += d;
        }
        into[0] = (double) a0 + a1;
        into[1] = (double) b0 + b1;
        into[2] = (double) c0 + c1;
    }

    private static void normaliseRow(float[] x, int at, int p, float m, float scale, float shift) {
        for (int i = 0; i < p; i++) {
            x[at + i] = (x[at + i] - m) * scale + shift;
        }
    }

    private static void inputGradientRow(
            float[] x, float[] g, int at, int p, float m, float scale, float offset, float slope) {
        for (int i = 0; i < p; i++) {
            g[at + i] = scale * g[at + i] + offset - slope * (x[at + i] - m);
        }
    }
}
