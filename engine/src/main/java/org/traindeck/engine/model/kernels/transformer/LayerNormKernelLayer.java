package org.traindeck.engine.model.kernels.transformer;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.layers.LayerNorm;

/**
 * The layer norm kernel at run time: Java loops over [samples, features, positions] (positions: 1 for rows, the time
 * steps of a sequence, the pixels of an image), normalising over the features at each position; the normalised
 * values and the inverse deviations are kept for the backward pass, so nothing is computed twice. It runs on the
 * SameDiff layer's parameter handling (the same parameter views as the reference) but never builds a SameDiff graph.
 */
public class LayerNormKernelLayer extends SameDiffLayer {

    private float[] x = new float[0];
    private float[] normalised = new float[0];
    private float[] inverseDeviation = new float[0];
    private float[] grad = new float[0];
    private int samples = -1;
    private int features;
    private int positions;

    public LayerNormKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private LayerNorm norm() {
        return (LayerNorm) layerConf();
    }

    /** DL4J's SameDiffLayer checks the shape and then drops the value. */
    @Override
    public void setParam(String key, INDArray val) {
        super.setParam(key, val);
        getParam(key).assign(val);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        int s = (int) input.size(0);
        int c = (int) input.size(1);
        int p = (int) (input.length() / ((long) s * c));
        if (c != norm().nIn()) {
            throw new IllegalStateException("LayerNormKernel" + name() + ": expects " + norm().nIn()
                    + " features, got input of shape " + Arrays.toString(input.shape()));
        }
        reshape(s, c, p);
        read(input, x);
        float[] gain = values(getParam(LayerNorm.GAIN), c);
        float[] bias = values(getParam(LayerNorm.BIAS), c);
        float eps = (float) norm().epsilon();
        float[] mean = new float[p];
        float[] var = new float[p];
        float[] out = grad; // free until the backward pass
        int block = c * p;
        for (int b = 0; b < s; b++) {
            int base = b * block;
            Arrays.fill(mean, 0f);
            Arrays.fill(var, 0f);
            for (int f = 0; f < c; f++) {
                int row = base + f * p;
                for (int t = 0; t < p; t++) {
                    mean[t] += x[row + t];
                }
            }
            for (int t = 0; t < p; t++) {
                mean[t] /= c;
            }
            for (int f = 0; f < c; f++) {
                int row = base + f * p;
                for (int t = 0; t < p; t++) {
                    float d = x[row + t] - mean[t];
                    var[t] += d * d;
                }
            }
            int rs = b * p;
            for (int t = 0; t < p; t++) {
                inverseDeviation[rs + t] = (float) (1.0 / Math.sqrt(var[t] / c + eps));
            }
            for (int f = 0; f < c; f++) {
                int row = base + f * p;
                float g = gain[f];
                float bf = bias[f];
                for (int t = 0; t < p; t++) {
                    float n = (x[row + t] - mean[t]) * inverseDeviation[rs + t];
                    normalised[row + t] = n;
                    out[row + t] = n * g + bf;
                }
            }
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, input.shape(), 'c');
        Sgemm.buffer(ret).put(0, out, 0, s * block);
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        int s = samples;
        int c = features;
        int p = positions;
        int block = c * p;
        if (epsilon.length() != (long) s * block) {
            throw new IllegalStateException(
                    "LayerNormKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        float[] g = grad;
        read(epsilon, g);
        float[] gain = values(getParam(LayerNorm.GAIN), c);
        float[] dGain = new float[c];
        float[] dBias = new float[c];
        float[] m1 = new float[p];
        float[] m2 = new float[p];
        for (int b = 0; b < s; b++) {
            int base = b * block;
            Arrays.fill(m1, 0f);
            Arrays.fill(m2, 0f);
            for (int f = 0; f < c; f++) {
                int row = base + f * p;
                float gf = gain[f];
                float sg = 0f;
                float sgn = 0f;
                for (int t = 0; t < p; t++) {
                    float dy = g[row + t];
                    float n = normalised[row + t];
                    sg += dy;
                    sgn += dy * n;
                    float dn = dy * gf;
                    g[row + t] = dn; // from here on g holds the normalised values' gradient
                    m1[t] += dn;
                    m2[t] += dn * n;
                }
                dBias[f] += sg;
                dGain[f] += sgn;
            }
            int rs = b * p;
            for (int f = 0; f < c; f++) {
                int row = base + f * p;
                for (int t = 0; t < p; t++) {
                    g[row + t] =
                            inverseDeviation[rs + t] * (g[row + t] - m1[t] / c - normalised[row + t] * (m2[t] / c));
                }
            }
        }
        Gradient ret = new DefaultGradient();
        INDArray gainGrad = gradTable.get(LayerNorm.GAIN);
        INDArray biasGrad = gradTable.get(LayerNorm.BIAS);
        Sgemm.buffer(gainGrad).put(0, dGain, 0, c);
        Sgemm.buffer(biasGrad).put(0, dBias, 0, c);
        ret.gradientForVariable().put(LayerNorm.GAIN, gainGrad);
        ret.gradientForVariable().put(LayerNorm.BIAS, biasGrad);
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        Sgemm.buffer(epsNext).put(0, g, 0, s * block);
        return new Pair<>(ret, epsNext);
    }

    private void reshape(int s, int c, int p) {
        if (s == samples && c == features && p == positions) {
            return;
        }
        samples = s;
        features = c;
        positions = p;
        x = new float[s * c * p];
        normalised = new float[s * c * p];
        grad = new float[s * c * p];
        inverseDeviation = new float[s * p];
    }

    private static void read(INDArray a, float[] into) {
        int n = (int) a.length();
        if (Sgemm.isDenseRowMajor(a)) {
            Sgemm.buffer(a).get(0, into, 0, n);
        } else {
            a.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(into, 0, n);
        }
    }

    private static float[] values(INDArray param, int n) {
        float[] out = new float[n];
        read(param, out);
        return out;
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
