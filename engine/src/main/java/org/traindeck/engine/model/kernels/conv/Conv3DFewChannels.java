package org.traindeck.engine.model.kernels.conv;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * A 1×1×1 conv3d with a few channels in and out (a volume head from one channel to one) as Java loops over the
 * voxels: there each of {@link Conv3DPointwise}'s OpenBLAS calls per example is a rank-one product whose call costs
 * more than its arithmetic (16 calls forward and 24 backward for a batch of 8). The weight and bias gradients are sums
 * over every voxel of the batch, accumulated in double.
 */
final class Conv3DFewChannels {

    /** The largest out × in channel count taken: each product reads the volume once per pair. */
    static final int MAX_PAIRS = 4;

    private float[] x = new float[0];
    private float[] z = new float[0];
    private float[] g = new float[0];

    static boolean takes(int out, int in) {
        return (long) out * in <= MAX_PAIRS;
    }

    /** y[e, o] = Σ_c w[o, c] x[e, c] + b[o] per voxel, into {@code out} (overwritten; b null: none). */
    void forward(INDArray input, INDArray w, INDArray b, INDArray out, int n, int c, int o, int voxels) {
        float[] weights = values(w);
        float[] bias = b == null ? null : values(b);
        x = HostFloats.atLeast(x, (long) n * c * voxels);
        HostFloats.read(input, x);
        z = HostFloats.atLeast(z, (long) n * o * voxels);
        for (int e = 0; e < n; e++) {
            for (int to = 0; to < o; to++) {
                int at = (e * o + to) * voxels;
                for (int from = 0; from < c; from++) {
                    axpy(weights[to * c + from], x, (e * c + from) * voxels, z, at, voxels, from == 0);
                }
                if (bias != null) {
                    float add = bias[to];
                    for (int v = 0; v < voxels; v++) {
                        z[at + v] += add;
                    }
                }
            }
        }
        HostFloats.write(z, out);
    }

    /**
     * dW[o, c] = Σ dz[e, o] x[e, c], db[o] = Σ dz[e, o] over examples and voxels, and dx[e, c] = Σ_o w[o, c] dz[e, o]
     * where dx is not null; dW and db (null: no bias) overwritten.
     */
    void backward(
            INDArray input,
            INDArray w,
            INDArray dz,
            INDArray dx,
            INDArray dW,
            INDArray db,
            int n,
            int c,
            int o,
            int voxels) {
        x = HostFloats.atLeast(x, (long) n * c * voxels);
        HostFloats.read(input, x);
        g = HostFloats.atLeast(g, (long) n * o * voxels);
        HostFloats.read(dz, g);
        float[] dWeights = new float[o * c];
        float[] dBias = new float[o];
        for (int to = 0; to < o; to++) {
            double biasSum = 0;
            for (int from = 0; from < c; from++) {
                double sum = 0;
                for (int e = 0; e < n; e++) {
                    sum += dot(g, (e * o + to) * voxels, x, (e * c + from) * voxels, voxels);
                }
                dWeights[to * c + from] = (float) sum;
            }
            for (int e = 0; e < n; e++) {
                biasSum += TransformerBlockMath.sum(g, (e * o + to) * voxels, voxels);
            }
            dBias[to] = (float) biasSum;
        }
        HostFloats.write(dWeights, dW);
        if (db != null) {
            HostFloats.write(dBias, db);
        }
        if (dx != null) {
            inputGradient(values(w), dx, n, c, o, voxels);
        }
    }

    private void inputGradient(float[] weights, INDArray dx, int n, int c, int o, int voxels) {
        z = HostFloats.atLeast(z, (long) n * c * voxels);
        for (int e = 0; e < n; e++) {
            for (int from = 0; from < c; from++) {
                int at = (e * c + from) * voxels;
                for (int to = 0; to < o; to++) {
                    axpy(weights[to * c + from], g, (e * o + to) * voxels, z, at, voxels, to == 0);
                }
            }
        }
        HostFloats.write(z, dx);
    }

    /** y = a x (first) or y += a x over {@code length} values. */
    private static void axpy(float a, float[] x, int xAt, float[] y, int yAt, int length, boolean first) {
        if (first) {
            for (int v = 0; v < length; v++) {
                y[yAt + v] = a * x[xAt + v];
            }
        } else {
            for (int v = 0; v < length; v++) {
                y[yAt + v] += a * x[xAt + v];
            }
        }
    }

    /**
     * Σ a b, each product in double (TransformerBlockMath.dot multiplies in float), four running sums so that the
     * additions do not wait on each other.
     */
    private static double dot(float[] a, int aAt, float[] b, int bAt, int length) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int v = 0;
        for (; v + 3 < length; v += 4) {
            s0 += (double) a[aAt + v] * b[bAt + v];
            s1 += (double) a[aAt + v + 1] * b[bAt + v + 1];
            s2 += (double) a[aAt + v + 2] * b[bAt + v + 2];
            s3 += (double) a[aAt + v + 3] * b[bAt + v + 3];
        }
        for (; v < length; v++) {
            s0 += (double) a[aAt + v] * b[bAt + v];
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static float[] values(INDArray a) {
        float[] v = new float[Math.toIntExact(a.length())];
        HostFloats.read(a, v);
        return v;
    }
}
