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
        Dims d = Dims.of(embedding());
        if (input.rank() != 4 || input.size(1) != d.ch() || input.size(2) != d.h() || input.size(3) != d.w()) {
            throw new IllegalStateException("PatchEmbeddingKernel" + name() + ": expects [minibatch, " + d.ch() + ", "
                    + d.h() + ", " + d.w() + "], got " + Arrays.toString(input.shape()));
        }
        inputShape = input.shape();
        int mb = (int) input.size(0);
        int tokens = mb * d.n();
        image = HostFloats.atLeast(image, (long) mb * d.ch() * d.h() * d.w());
        HostFloats.read(input, image);
        rows = HostFloats.Native.fit(rows, (long) tokens * d.length());
        projected = HostFloats.Native.fit(projected, (long) tokens * d.c());
        work = HostFloats.atLeast(work, (long) tokens * d.length());
        d.patches(mb, image, work, true);
        rows.buffer.put(0, work, 0, tokens * d.length());
        // [tokens, length] x W [length, c]
        Sgemm.multiply(
                false,
                false,
                tokens,
                d.c(),
                d.length(),
                1,
                rows.pointer,
                0,
                d.length(),
                weights(),
                0,
                d.c(),
                0,
                projected.pointer,
                0,
                d.c());
        float[] y = sequence = HostFloats.atLeast(sequence, (long) tokens * d.c());
        projected.buffer.get(0, y, 0, tokens * d.c());
        readAddends(d);
        float[] out = work = HostFloats.atLeast(work, (long) mb * d.c() * d.steps());
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < d.c(); f++) {
                int o = (b * d.c() + f) * d.steps();
                int pos = f * d.steps();
                if (d.off() == 1) {
                    out[o] = classToken[f] + positions[pos];
                }
                float bf = bias[f];
                int src = b * d.n() * d.c() + f;
                for (int s = 0; s < d.n(); s++) {
                    out[o + d.off() + s] = y[src + s * d.c()] + bf + positions[pos + d.off() + s];
                }
            }
        }
        INDArray ret =
                mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, d.c(), d.steps()}, 'c');
        HostFloats.write(out, ret);
        return ret;
    }

    /** The bias, the positions and the class token, read into their host copies. */
    private void readAddends(Dims d) {
        bias = HostFloats.atLeast(bias, d.c());
        positions = HostFloats.atLeast(positions, (long) d.c() * d.steps());
        classToken = HostFloats.atLeast(classToken, d.c());
        HostFloats.read(getParam(PatchEmbedding.BIAS), bias);
        HostFloats.read(getParam(PatchEmbedding.POSITIONS), positions);
        if (d.off() == 1) {
            HostFloats.read(getParam(PatchEmbedding.CLASS_TOKEN), classToken);
        }
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        Dims d = Dims.of(embedding());
        int mb = inputShape == null ? -1 : (int) inputShape[0];
        if (epsilon.rank() != 3 || epsilon.size(0) != mb || epsilon.size(1) != d.c() || epsilon.size(2) != d.steps()) {
            throw new IllegalStateException(
                    "PatchEmbeddingKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        int tokens = mb * d.n();
        float[] e = work = HostFloats.atLeast(work, (long) mb * d.c() * d.steps());
        HostFloats.read(epsilon, e);
        addendGradients(d, mb, e);
        projected.buffer.put(0, sequence, 0, tokens * d.c());
        INDArray dW = gradTable.get(PatchEmbedding.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "PatchEmbeddingKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        // dW = rows^T [length, tokens] x dy [tokens, c]
        Sgemm.multiply(
                true,
                false,
                d.length(),
                d.c(),
                tokens,
                1,
                rows.pointer,
                0,
                d.length(),
                projected.pointer,
                0,
                d.c(),
                0,
                Sgemm.pointerTo(dW),
                0,
                d.c());
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(PatchEmbedding.WEIGHTS, dW);
        put(ret, PatchEmbedding.BIAS, bias);
        put(ret, PatchEmbedding.POSITIONS, positions);
        if (d.off() == 1) {
            put(ret, PatchEmbedding.CLASS_TOKEN, classToken);
        }
        return new Pair<>(ret, inputGradient(d, mb, mgr));
    }

    /** d rows = dy [tokens, c] x W^T [c, length], each row put back as its patch; zeros where nobody reads it. */
    private INDArray inputGradient(Dims d, int mb, LayerWorkspaceMgr mgr) {
        if (layerConf() instanceof PatchEmbeddingKernel k && !k.inputGradient()) {
            return mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        }
        int tokens = mb * d.n();
        rowsGrad = HostFloats.Native.fit(rowsGrad, (long) tokens * d.length());
        Sgemm.multiply(
                false,
                true,
                tokens,
                d.length(),
                d.c(),
                1,
                projected.pointer,
                0,
                d.c(),
                weights(),
                0,
                d.c(),
                0,
                rowsGrad.pointer,
                0,
                d.length());
        float[] dr = work = HostFloats.atLeast(work, (long) tokens * d.length());
        rowsGrad.buffer.get(0, dr, 0, tokens * d.length());
        d.patches(mb, image, dr, false);
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        HostFloats.write(image, epsNext);
        return epsNext;
    }

    /**
     * The gradients of the positions, the bias and the class token, into their host copies (which the forward pass
     * no longer needs), and the projection's output gradient into {@code sequence}.
     */
    private void addendGradients(Dims d, int mb, float[] e) {
        int c = d.c();
        int steps = d.steps();
        Arrays.fill(positions, 0, c * steps, 0f);
        Arrays.fill(bias, 0, c, 0f);
        Arrays.fill(classToken, 0, c, 0f);
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * steps;
                int pos = f * steps;
                for (int s = 0; s < steps; s++) {
                    positions[pos + s] += e[o + s];
                }
                if (d.off() == 1) {
                    classToken[f] += e[o];
                }
                int dst = b * d.n() * c + f;
                float sum = 0f;
                for (int s = 0; s < d.n(); s++) {
                    float g = e[o + d.off() + s];
                    sequence[dst + s * c] = g;
                    sum += g;
                }
                bias[f] += sum;
            }
        }
    }

    /** The layer's sizes: channels, image, patch, patches across and in all, a patch's length, width, tokens. */
    private record Dims(int ch, int h, int w, int p, int across, int n, int length, int c, int off, int steps) {
        static Dims of(PatchEmbedding pe) {
            int p = pe.patchSize();
            int h = (int) pe.imageHeight();
            int w = (int) pe.imageWidth();
            int n = (h / p) * (w / p);
            int off = pe.classToken() ? 1 : 0;
            int ch = (int) pe.channels();
            return new Dims(ch, h, w, p, w / p, n, ch * p * p, (int) pe.width(), off, n + off);
        }

        /** Copies an image batch into one row per patch ({@code toRows}), or the rows back into the image batch. */
        void patches(int mb, float[] image, float[] rows, boolean toRows) {
            int at = 0;
            for (int b = 0; b < mb; b++) {
                for (int k = 0; k < ch; k++) {
                    for (int y = 0; y < h; y++) {
                        int rowBase = (b * n + (y / p) * across) * length + k * p * p + (y % p) * p;
                        for (int q = 0; q < across; q++) {
                            if (toRows) {
                                System.arraycopy(image, at, rows, rowBase + q * length, p);
                            } else {
                                System.arraycopy(rows, rowBase + q * length, image, at, p);
                            }
                            at += p;
                        }
                    }
                }
            }
        }
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
