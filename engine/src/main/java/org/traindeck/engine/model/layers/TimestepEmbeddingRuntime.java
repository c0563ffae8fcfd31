package org.traindeck.engine.model.layers;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * {@link TimestepEmbedding}'s passes as loops on the heap, in double: at a diffusion model's sizes ([mb, 1] in, a few
 * dozen frequencies and units) SameDiff's graph, run twice a step, cost 5–8 % of the step, the arithmetic nothing. The
 * parameters are the SameDiff layer's own (same names, shapes, views), so checkpoints are unchanged; a layer with input
 * dropout keeps SameDiff's graph. Its arrays are kept from step to step (grown when a larger batch comes): fresh ones
 * cost more than the loops that fill them.
 */
final class TimestepEmbeddingRuntime extends SameDiffLayerRuntime {

    private int mb;
    /** Per example: the timestep, the sinusoidal features [F], the hidden pre-activation [U] and its SiLU [U]. */
    private double[] timesteps = new double[0];

    private double[] features = new double[0];
    private double[] hidden = new double[0];
    private double[] silu = new double[0];
    /** The output, then in the backward pass the output's gradient [mb, U]. */
    private double[] out = new double[0];
    /** A parameter's values, then its gradient. */
    private double[] weights = new double[0];

    private double[] bias = new double[0];
    private double[] dSilu = new double[0];
    private double[] dHidden = new double[0];
    private float[] floats = new float[0];
    private boolean ownPass;

    TimestepEmbeddingRuntime(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private TimestepEmbedding embedding() {
        return (TimestepEmbedding) layerConf();
    }

    /** {@code a}'s values in row-major order into {@code kept} (grown when shorter), returned; float32 read as is. */
    private double[] values(INDArray a, double[] kept) {
        int n = Math.toIntExact(a.length());
        if (a.dataType() != DataType.FLOAT) {
            double[] d = a.dup('c').data().asDouble();
            return kept.length >= n ? copyInto(d, kept) : d;
        }
        floats = HostFloats.atLeast(floats, n);
        HostFloats.read(a, floats);
        double[] d = kept.length >= n ? kept : new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = floats[i];
        }
        return d;
    }

    private static double[] copyInto(double[] from, double[] into) {
        System.arraycopy(from, 0, into, 0, from.length);
        return into;
    }

    private static double[] atLeast(double[] a, int n) {
        return a.length >= n ? a : new double[n];
    }

    /** Writes the first values of {@code values} into {@code a} in row-major order, each rounded to a's data type. */
    private void write(double[] values, INDArray a) {
        int n = Math.toIntExact(a.length());
        if (a.dataType() != DataType.FLOAT) {
            a.assign(Nd4j.createFromArray(Arrays.copyOf(values, n))
                    .reshape(a.shape())
                    .castTo(a.dataType()));
            return;
        }
        floats = HostFloats.atLeast(floats, n);
        for (int i = 0; i < n; i++) {
            floats[i] = (float) values[i];
        }
        HostFloats.write(floats, a);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        ownPass = layerConf().getIDropout() == null;
        if (!ownPass) {
            return super.activate(training, workspaceMgr);
        }
        assertInputSet(false);
        int f = embedding().frequencies();
        int u = embedding().units();
        int half = f / 2;
        mb = (int) input.size(0);
        timesteps = values(input, timesteps);
        double[] row = TimestepEmbedding.frequencyRow(f);
        features = atLeast(features, mb * f);
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < half; i++) {
                // in float32 the argument is rounded as SameDiff's and PyTorch's float product rounds it
                double arg =
                        dataType == DataType.FLOAT ? (float) (timesteps[e] * (float) row[i]) : timesteps[e] * row[i];
                features[e * f + i] = Math.cos(arg);
                features[e * f + half + i] = Math.sin(arg);
            }
        }
        hidden = affine(features, f, TimestepEmbedding.W1, TimestepEmbedding.B1, u, hidden);
        silu = atLeast(silu, mb * u);
        for (int i = 0; i < mb * u; i++) {
            silu[i] = hidden[i] / (1 + Math.exp(-hidden[i]));
        }
        out = affine(silu, u, TimestepEmbedding.W2, TimestepEmbedding.B2, u, out);
        INDArray result = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, dataType, new long[] {mb, u}, 'c');
        write(out, result);
        return result;
    }

    /** x [mb, in] W [in, out] + b into {@code y} (grown when shorter), returned. */
    private double[] affine(double[] x, int in, String w, String b, int outs, double[] y) {
        double[] wv = weights = values(paramTable.get(w), weights);
        double[] bv = bias = values(paramTable.get(b), bias);
        y = atLeast(y, mb * outs);
        for (int e = 0; e < mb; e++) {
            System.arraycopy(bv, 0, y, e * outs, outs);
            for (int i = 0; i < in; i++) {
                double a = x[e * in + i];
                for (int k = 0; k < outs; k++) {
                    y[e * outs + k] += a * wv[i * outs + k];
                }
            }
        }
        return y;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (!ownPass) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        assertInputSet(true);
        int f = embedding().frequencies();
        int u = embedding().units();
        double[] dOut = out = values(epsilon, out);
        dSilu = atLeast(dSilu, mb * u);
        inputGradient(dOut, u, values(paramTable.get(TimestepEmbedding.W2), weights), dSilu, u);
        put(TimestepEmbedding.W2, weightGradient(silu, u, dOut, u));
        put(TimestepEmbedding.B2, columnSums(dOut, u));
        dHidden = atLeast(dHidden, mb * u);
        for (int i = 0; i < mb * u; i++) {
            double s = 1 / (1 + Math.exp(-hidden[i]));
            dHidden[i] = dSilu[i] * s * (1 + hidden[i] * (1 - s));
        }
        put(TimestepEmbedding.W1, weightGradient(features, f, dHidden, u));
        put(TimestepEmbedding.B1, columnSums(dHidden, u));
        Gradient g = new DefaultGradient(gradients);
        for (String key : paramTable.keySet()) {
            g.gradientForVariable().put(key, gradTable.get(key));
        }
        return new Pair<>(g, timestepGradient(dHidden, f, u, workspaceMgr));
    }

    /** The gradient's values written into the parameter's gradient view. */
    private void put(String key, double[] values) {
        write(values, gradTable.get(key));
    }

    /** The timestep's gradient [mb, 1]: zeros where nobody reads it (a network input). */
    private INDArray timestepGradient(double[] dHidden, int f, int u, LayerWorkspaceMgr workspaceMgr) {
        if (!embedding().inputGradient()) {
            return workspaceMgr.create(ArrayType.ACTIVATION_GRAD, dataType, new long[] {mb, 1}, 'c');
        }
        double[] dFeatures = new double[mb * f];
        inputGradient(dHidden, u, values(paramTable.get(TimestepEmbedding.W1), weights), dFeatures, f);
        INDArray dInput =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, dataType, new long[] {mb, 1}, 'c');
        write(chainToTimestep(dFeatures, f), dInput);
        return dInput;
    }

    /** d/dt of cos(t f_i) is -f_i sin(t f_i), of sin(t f_i) f_i cos(t f_i). */
    private double[] chainToTimestep(double[] dFeatures, int f) {
        int half = f / 2;
        double[] row = TimestepEmbedding.frequencyRow(f);
        double[] dt = new double[mb];
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < half; i++) {
                double fi = dataType == DataType.FLOAT ? (float) row[i] : row[i];
                double cos = features[e * f + i];
                double sin = features[e * f + half + i];
                dt[e] += fi * (cos * dFeatures[e * f + half + i] - sin * dFeatures[e * f + i]);
            }
        }
        return dt;
    }

    /** x^T dy: [in, out], into the kept weights array (its values are not needed after the input gradient). */
    private double[] weightGradient(double[] x, int in, double[] dy, int outs) {
        double[] dw = weights = atLeast(weights, in * outs);
        Arrays.fill(dw, 0, in * outs, 0);
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < in; i++) {
                double a = x[e * in + i];
                for (int k = 0; k < outs; k++) {
                    dw[i * outs + k] += a * dy[e * outs + k];
                }
            }
        }
        return dw;
    }

    private double[] columnSums(double[] dy, int outs) {
        double[] db = bias = atLeast(bias, outs);
        Arrays.fill(db, 0, outs, 0);
        for (int e = 0; e < mb; e++) {
            for (int k = 0; k < outs; k++) {
                db[k] += dy[e * outs + k];
            }
        }
        return db;
    }

    /** dx = dy W^T, W [in, out]. */
    private void inputGradient(double[] dy, int outs, double[] w, double[] dx, int in) {
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < in; i++) {
                double sum = 0;
                for (int k = 0; k < outs; k++) {
                    sum += dy[e * outs + k] * w[i * outs + k];
                }
                dx[e * in + i] = sum;
            }
        }
    }
}
