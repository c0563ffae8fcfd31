package org.traindeck.engine.model.layers;

import java.util.Map;
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
 * dropout keeps SameDiff's graph.
 */
final class TimestepEmbeddingRuntime extends SameDiffLayerRuntime {

    private int mb;
    /** Per example: the timestep, the sinusoidal features [F], the hidden pre-activation [U] and its SiLU [U]. */
    private double[] timesteps;

    private double[] features;
    private double[] hidden;
    private double[] silu;
    private boolean ownPass;

    TimestepEmbeddingRuntime(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private TimestepEmbedding embedding() {
        return (TimestepEmbedding) layerConf();
    }

    /** The values in row-major order; float32 ones read straight from memory (an ND4J dup costs more than the math). */
    private static double[] values(INDArray a) {
        if (a.dataType() != DataType.FLOAT) {
            return a.dup('c').data().asDouble();
        }
        float[] floats = new float[Math.toIntExact(a.length())];
        HostFloats.read(a, floats);
        double[] d = new double[floats.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = floats[i];
        }
        return d;
    }

    /** Writes {@code values} into {@code a} in row-major order, each rounded to a's data type. */
    private static void write(double[] values, INDArray a) {
        if (a.dataType() != DataType.FLOAT) {
            a.assign(Nd4j.createFromArray(values).reshape(a.shape()).castTo(a.dataType()));
            return;
        }
        float[] floats = new float[values.length];
        for (int i = 0; i < floats.length; i++) {
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
        timesteps = values(input);
        double[] row = TimestepEmbedding.frequencyRow(f);
        features = new double[mb * f];
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < half; i++) {
                // in float32 the argument is rounded as SameDiff's and PyTorch's float product rounds it
                double arg =
                        dataType == DataType.FLOAT ? (float) (timesteps[e] * (float) row[i]) : timesteps[e] * row[i];
                features[e * f + i] = Math.cos(arg);
                features[e * f + half + i] = Math.sin(arg);
            }
        }
        hidden = affine(features, f, paramTable.get(TimestepEmbedding.W1), paramTable.get(TimestepEmbedding.B1), u);
        silu = new double[hidden.length];
        for (int i = 0; i < silu.length; i++) {
            silu[i] = hidden[i] / (1 + Math.exp(-hidden[i]));
        }
        double[] out = affine(silu, u, paramTable.get(TimestepEmbedding.W2), paramTable.get(TimestepEmbedding.B2), u);
        INDArray result = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, dataType, new long[] {mb, u}, 'c');
        write(out, result);
        return result;
    }

    /** x [mb, in] W [in, out] + b. */
    private double[] affine(double[] x, int in, INDArray weights, INDArray bias, int out) {
        double[] w = values(weights);
        double[] b = values(bias);
        double[] y = new double[mb * out];
        for (int e = 0; e < mb; e++) {
            System.arraycopy(b, 0, y, e * out, out);
            for (int i = 0; i < in; i++) {
                double a = x[e * in + i];
                for (int k = 0; k < out; k++) {
                    y[e * out + k] += a * w[i * out + k];
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
        double[] dOut = values(epsilon);
        double[] dSilu = new double[mb * u];
        Map<String, double[]> grads = Map.of(
                TimestepEmbedding.W2,
                weightGradient(silu, u, dOut, u),
                TimestepEmbedding.B2,
                columnSums(dOut, u),
                TimestepEmbedding.W1,
                new double[f * u],
                TimestepEmbedding.B1,
                new double[u]);
        inputGradient(dOut, u, values(paramTable.get(TimestepEmbedding.W2)), dSilu, u);
        double[] dHidden = new double[mb * u];
        for (int i = 0; i < dHidden.length; i++) {
            double s = 1 / (1 + Math.exp(-hidden[i]));
            dHidden[i] = dSilu[i] * s * (1 + hidden[i] * (1 - s));
        }
        System.arraycopy(weightGradient(features, f, dHidden, u), 0, grads.get(TimestepEmbedding.W1), 0, f * u);
        System.arraycopy(columnSums(dHidden, u), 0, grads.get(TimestepEmbedding.B1), 0, u);
        Gradient g = new DefaultGradient(gradients);
        for (String key : paramTable.keySet()) {
            INDArray view = gradTable.get(key);
            write(grads.get(key), view);
            g.gradientForVariable().put(key, view);
        }
        return new Pair<>(g, timestepGradient(dHidden, f, u, workspaceMgr));
    }

    /** The timestep's gradient [mb, 1]: zeros where nobody reads it (a network input). */
    private INDArray timestepGradient(double[] dHidden, int f, int u, LayerWorkspaceMgr workspaceMgr) {
        if (!embedding().inputGradient()) {
            return workspaceMgr.create(ArrayType.ACTIVATION_GRAD, dataType, new long[] {mb, 1}, 'c');
        }
        double[] dFeatures = new double[mb * f];
        inputGradient(dHidden, u, values(paramTable.get(TimestepEmbedding.W1)), dFeatures, f);
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

    /** x^T dy: [in, out]. */
    private double[] weightGradient(double[] x, int in, double[] dy, int out) {
        double[] dw = new double[in * out];
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < in; i++) {
                double a = x[e * in + i];
                for (int k = 0; k < out; k++) {
                    dw[i * out + k] += a * dy[e * out + k];
                }
            }
        }
        return dw;
    }

    private double[] columnSums(double[] dy, int out) {
        double[] db = new double[out];
        for (int e = 0; e < mb; e++) {
            for (int k = 0; k < out; k++) {
                db[k] += dy[e * out + k];
            }
        }
        return db;
    }

    /** dx = dy W^T, W [in, out]. */
    private void inputGradient(double[] dy, int out, double[] w, double[] dx, int in) {
        for (int e = 0; e < mb; e++) {
            for (int i = 0; i < in; i++) {
                double sum = 0;
                for (int k = 0; k < out; k++) {
                    sum += dy[e * out + k] * w[i * out + k];
                }
                dx[e * in + i] = sum;
            }
        }
    }
}
