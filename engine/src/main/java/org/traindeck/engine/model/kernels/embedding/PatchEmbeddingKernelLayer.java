package org.traindeck.engine.model.kernels.embedding;

import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.layers.PatchEmbedding;

/**
 * The patch embedding kernel at run time: the image's patches copied into rows [mb·N, C·p·p] (a Java loop, patches in
 * row-major order, each patch's values in [C, p, p] order as the reference cuts them), one {@link Sgemm} product with
 * W, then bias, class token and positions added while writing the sequence [mb, width, (1 +) N]. The rows are kept for
 * the backward pass (dW = rowsᵀ dY), nothing runs twice. It runs on the SameDiff layer's parameter handling (the same
 * parameter views as the reference) but never builds a SameDiff graph.
 */
public class PatchEmbeddingKernelLayer extends SameDiffLayer {

    private HostFloats.Native rows;
    private HostFloats.Native projected;
    private HostFloats.Native rowsGrad;
    private float[] image = new float[0];
    private float[] sequence = new float[0];
    private float[] bias = new float[0];
    private float[] positions = new float[0];
    private float[] classToken = new float[0];
    private float[] work = new float[0];
    private long[] inputShape;

    public PatchEmbeddingKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private PatchEmbedding embedding() {
        return (PatchEmbedding) layerConf();
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
        PatchEmbedding pe = embedding();
        int ch = (int) pe.channels();
        int h = (int) pe.imageHeight();
        int w = (int) pe.imageWidth();
        if (input.rank() != 4 || input.size(1) != ch || input.size(2) != h || input.size(3) != w) {
            throw new IllegalStateException("PatchEmbeddingKernel" + name() + ": expects [minibatch, " + ch + ", " + h
                    + ", " + w + "], got " + Arrays.toString(input.shape()));
        }
        inputShape = input.shape();
        int mb = (int) input.size(0);
        int p = pe.patchSize();
        int across = w / p;
        int n = (h / p) * across;
        int length = ch * p * p;
        int c = (int) pe.width();
        int off = pe.classToken() ? 1 : 0;
        int steps = n + off;
        image = HostFloats.atLeast(image, (long) mb * ch * h * w);
        HostFloats.read(input, image);
        rows = HostFloats.Native.fit(rows, (long) mb * n * length);
        projected = HostFloats.Native.fit(projected, (long) mb * n * c);
        float[] r = work = HostFloats.atLeast(work, (long) mb * n * length);
        float[] x = image;
        int at = 0;
        for (int b = 0; b < mb; b++) {
            for (int k = 0; k < ch; k++) {
                for (int y = 0; y < h; y++) {
                    int rowBase = (b * n + (y / p) * across) * length + k * p * p + (y % p) * p;
                    for (int q = 0; q < across; q++) {
                        System.arraycopy(x, at, r, rowBase + q * length, p);
                        at += p;
                    }
                }
            }
        }
        rows.buffer.put(0, r, 0, mb * n * length);
        Sgemm.multiply(
                false,
                false,
                mb * n,
                c,
                length,
                1,
                rows.pointer,
                0,
                length,
                weights(),
                0,
                c,
                0,
                projected.pointer,
                0,
                c);
        float[] y = sequence = HostFloats.atLeast(sequence, (long) mb * n * c);
        projected.buffer.get(0, y, 0, mb * n * c);
        bias = HostFloats.atLeast(bias, c);
        positions = HostFloats.atLeast(positions, (long) c * steps);
        classToken = HostFloats.atLeast(classToken, c);
        HostFloats.read(getParam(PatchEmbedding.BIAS), bias);
        HostFloats.read(getParam(PatchEmbedding.POSITIONS), positions);
        if (off == 1) {
            HostFloats.read(getParam(PatchEmbedding.CLASS_TOKEN), classToken);
        }
        float[] out = work = HostFloats.atLeast(work, (long) mb * c * steps);
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * steps;
                int pos = f * steps;
                if (off == 1) {
                    out[o] = classToken[f] + positions[pos];
                }
                float bf = bias[f];
                int src = b * n * c + f;
                for (int s = 0; s < n; s++) {
                    out[o + off + s] = y[src + s * c] + bf + positions[pos + off + s];
                }
            }
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, c, steps}, 'c');
        HostFloats.write(out, ret);
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        PatchEmbedding pe = embedding();
        int ch = (int) pe.channels();
        int h = (int) pe.imageHeight();
        int w = (int) pe.imageWidth();
        int p = pe.patchSize();
        int across = w / p;
        int n = (h / p) * across;
        int length = ch * p * p;
        int c = (int) pe.width();
        int off = pe.classToken() ? 1 : 0;
        int steps = n + off;
        int mb = inputShape == null ? -1 : (int) inputShape[0];
        if (epsilon.rank() != 3 || epsilon.size(0) != mb || epsilon.size(1) != c || epsilon.size(2) != steps) {
            throw new IllegalStateException(
                    "PatchEmbeddingKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        float[] e = work = HostFloats.atLeast(work, (long) mb * c * steps);
        HostFloats.read(epsilon, e);
        float[] dPos = positions;
        float[] dBias = bias;
        float[] dCls = classToken;
        Arrays.fill(dPos, 0, c * steps, 0f);
        Arrays.fill(dBias, 0, c, 0f);
        Arrays.fill(dCls, 0, c, 0f);
        float[] dy = sequence;
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * steps;
                int pos = f * steps;
                for (int s = 0; s < steps; s++) {
                    dPos[pos + s] += e[o + s];
                }
                if (off == 1) {
                    dCls[f] += e[o];
                }
                int dst = b * n * c + f;
                float sum = 0f;
                for (int s = 0; s < n; s++) {
                    float g = e[o + off + s];
                    dy[dst + s * c] = g;
                    sum += g;
                }
                dBias[f] += sum;
            }
        }
        projected.buffer.put(0, dy, 0, mb * n * c);
        INDArray dW = gradTable.get(PatchEmbedding.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "PatchEmbeddingKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        Sgemm.multiply(
                true,
                false,
                length,
                c,
                mb * n,
                1,
                rows.pointer,
                0,
                length,
                projected.pointer,
                0,
                c,
                0,
                Sgemm.pointerTo(dW),
                0,
                c);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(PatchEmbedding.WEIGHTS, dW);
        put(ret, PatchEmbedding.BIAS, dBias);
        put(ret, PatchEmbedding.POSITIONS, dPos);
        if (off == 1) {
            put(ret, PatchEmbedding.CLASS_TOKEN, dCls);
        }
        rowsGrad = HostFloats.Native.fit(rowsGrad, (long) mb * n * length);
        Sgemm.multiply(
                false,
                true,
                mb * n,
                length,
                c,
                1,
                projected.pointer,
                0,
                c,
                weights(),
                0,
                c,
                0,
                rowsGrad.pointer,
                0,
                length);
        float[] dr = work = HostFloats.atLeast(work, (long) mb * n * length);
        rowsGrad.buffer.get(0, dr, 0, mb * n * length);
        float[] dx = image;
        int at = 0;
        for (int b = 0; b < mb; b++) {
            for (int k = 0; k < ch; k++) {
                for (int y = 0; y < h; y++) {
                    int rowBase = (b * n + (y / p) * across) * length + k * p * p + (y % p) * p;
                    for (int q = 0; q < across; q++) {
                        System.arraycopy(dr, rowBase + q * length, dx, at, p);
                        at += p;
                    }
                }
            }
        }
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        HostFloats.write(dx, epsNext);
        return new Pair<>(ret, epsNext);
    }

    private void put(Gradient g, String key, float[] values) {
        INDArray view = gradTable.get(key);
        HostFloats.write(values, view);
        g.gradientForVariable().put(key, view);
    }

    private FloatPointer weights() {
        INDArray w = getParam(PatchEmbedding.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(w)) {
            throw new IllegalStateException("PatchEmbeddingKernel" + name() + ": W is not a dense row-major view");
        }
        return Sgemm.pointerTo(w);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
