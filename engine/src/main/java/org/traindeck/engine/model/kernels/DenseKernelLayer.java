package org.traindeck.engine.model.kernels;

import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.BaseLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

import java.nio.FloatBuffer;

/**
 * The dense kernel at run time: one sgemm per product on the arrays' memory, bias, activation and mask as Java loops,
 * and no second forward pass (the pre-activation is kept for the backward pass). Sequences are turned into rows
 * ([mb·T, in]) by a Java loop, so a sequence costs one product like a batch of rows. Host memory only: CPU backend.
 */
public class DenseKernelLayer extends BaseLayer<DenseKernel> {

    private static final String W = DefaultParamInitializer.WEIGHT_KEY;
    private static final String B = DefaultParamInitializer.BIAS_KEY;

    private final KernelActivation activation;
    private final DenseRows rows = new DenseRows();

    public DenseKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
        this.activation = KernelActivation.of(((DenseKernel) conf.getLayer()).getActivationFn());
    }

    @Override
    public boolean isPretrainLayer() {
        return false;
    }

    @Override
    public boolean hasBias() {
        return layerConf().hasBias();
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        applyDropOutIfNecessary(training, mgr);
        int in = (int) layerConf().getNIn();
        int out = (int) layerConf().getNOut();
        boolean sequence = input.rank() == 3;
        int mb = (int) input.size(0);
        int steps = sequence ? (int) input.size(2) : 1;
        int n = mb * steps;
        if (input.size(1) != in) {
            throw new IllegalStateException("DenseKernel" + name() + ": expects " + in + " input features, got input of shape "
                    + java.util.Arrays.toString(input.shape()));
        }
        rows.shape(n, in, out);
        rows.loadInput(input, sequence, mb, steps);
        KernelBlas.gemm(false, true, n, out, in, rows.xPointer(), in, KernelBlas.pointer(getParam(W)), in, 0f, rows.zPointer(), out);
        float[] z = rows.z();
        rows.zBuffer().get(0, z, 0, n * out);
        if (hasBias()) {
            float[] b = new float[out];
            KernelBlas.buffer(getParam(B)).get(0, b, 0, out);
            for (int r = 0, o = 0; r < n; r++, o += out) {
                for (int j = 0; j < out; j++) {
                    z[o + j] += b[j];
                }
            }
        }
        float[] a = rows.a();
        activation.forward(z, a, rows.saved(activation), n * out);
        float[] mask = rowMask(n, mb, steps, sequence);
        if (mask != null) {
            scaleRows(a, mask, n, out);
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT,
                sequence ? new long[] {mb, out, steps} : new long[] {n, out}, 'c');
        rows.store(a, ret, sequence, mb, steps, out);
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        int in = (int) layerConf().getNIn();
        int out = (int) layerConf().getNOut();
        boolean sequence = input.rank() == 3;
        int mb = (int) input.size(0);
        int steps = sequence ? (int) input.size(2) : 1;
        int n = mb * steps;
        if (!rows.holds(n, in, out)) {
            throw new IllegalStateException("DenseKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        float[] g = rows.delta();
        rows.loadRows(epsilon, g, sequence, mb, steps, out);
        activation.backward(rows.z(), rows.saved(activation), g, n * out);
        float[] mask = rowMask(n, mb, steps, sequence);
        if (mask != null) {
            scaleRows(g, mask, n, out);
        }
        rows.deltaBuffer().put(0, g, 0, n * out);

        Gradient ret = new DefaultGradient();
        INDArray wGrad = gradientViews.get(W);
        // W is [in, out] in 'f' order, i.e. row-major [out, in]: dWᵀ = deltaᵀ · X
        KernelBlas.gemm(true, false, out, in, n, rows.deltaPointer(), out, rows.xPointer(), in, 0f, KernelBlas.pointer(wGrad), in);
        ret.gradientForVariable().put(W, wGrad);
        if (hasBias()) {
            INDArray bGrad = gradientViews.get(B);
            float[] sums = new float[out];
            for (int r = 0, o = 0; r < n; r++, o += out) {
                for (int j = 0; j < out; j++) {
                    sums[j] += g[o + j];
                }
            }
            KernelBlas.buffer(bGrad).put(0, sums, 0, out);
            ret.gradientForVariable().put(B, bGrad);
        }
        long[] inputShape = sequence ? new long[] {mb, in, steps} : new long[] {n, in};
        if (!layerConf().inputGradient()) {
            return new Pair<>(ret, mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c'));
        }
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        if (sequence) {
            KernelBlas.gemm(false, false, n, in, out, rows.deltaPointer(), out, KernelBlas.pointer(getParam(W)), in, 0f,
                    rows.dxPointer(), in);
            rows.storeInputGradient(epsNext, mb, steps, in);
        } else {
            KernelBlas.gemm(false, false, n, in, out, rows.deltaPointer(), out, KernelBlas.pointer(getParam(W)), in, 0f,
                    KernelBlas.pointer(epsNext), in);
        }
        epsNext = backpropDropOutIfPresent(epsNext);
        return new Pair<>(ret, epsNext);
    }

    /** One factor per row from the mask ([n, 1] for rows, [mb, T] for a sequence), or null without a mask. */
    private float[] rowMask(int n, int mb, int steps, boolean sequence) {
        if (maskArray == null) {
            return null;
        }
        if (maskArray.length() != n) {
            throw new IllegalStateException("DenseKernel" + name() + ": a mask must have one value per "
                    + (sequence ? "time step ([" + mb + ", " + steps + "])" : "row ([" + n + ", 1])") + ", got shape "
                    + java.util.Arrays.toString(maskArray.shape()));
        }
        return maskArray.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }

    private static void scaleRows(float[] values, float[] mask, int n, int width) {
        for (int r = 0, o = 0; r < n; r++, o += width) {
            float m = mask[r];
            if (m != 1f) {
                for (int j = 0; j < width; j++) {
                    values[o + j] *= m;
                }
            }
        }
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }

    @Override
    public void clearNoiseWeightParams() {
        // the kernel applies no weight noise
    }

    /** Buffers of one batch shape, kept between steps (a new shape replaces them). */
    static final class DenseRows {
        private int n = -1;
        private int in;
        private int out;
        private INDArray x;
        private INDArray zNative;
        private INDArray deltaNative;
        private INDArray dx;
        private FloatPointer xPtr;
        private FloatPointer zPtr;
        private FloatPointer deltaPtr;
        private FloatPointer dxPtr;
        private FloatBuffer zBuf;
        private FloatBuffer deltaBuf;
        private float[] z;
        private float[] a;
        private float[] delta;
        private float[] saved;
        private float[] scratchIn;
        private float[] scratchNcw;
        /** Whether x points at the layer's input itself (a dense row-major batch of rows) rather than a copy. */
        private INDArray inputItself;

        void shape(int n, int in, int out) {
            if (n == this.n && in == this.in && out == this.out) {
                return;
            }
            this.n = n;
            this.in = in;
            this.out = out;
            x = null;
            xPtr = null;
            zNative = org.nd4j.linalg.factory.Nd4j.createUninitializedDetached(DataType.FLOAT, n, out);
            deltaNative = org.nd4j.linalg.factory.Nd4j.createUninitializedDetached(DataType.FLOAT, n, out);
            zPtr = KernelBlas.pointer(zNative);
            deltaPtr = KernelBlas.pointer(deltaNative);
            zBuf = KernelBlas.buffer(zNative);
            deltaBuf = KernelBlas.buffer(deltaNative);
            dx = null;
            dxPtr = null;
            z = new float[n * out];
            a = new float[n * out];
            delta = new float[n * out];
            saved = null;
            scratchIn = null;
        }

        boolean holds(int n, int in, int out) {
            return n == this.n && in == this.in && out == this.out && xPtr != null;
        }

        /** Makes xPointer() the input as rows [n, in]: the input's own memory when it already is, else a copy. */
        void loadInput(INDArray input, boolean sequence, int mb, int steps) {
            if (!sequence && KernelBlas.isDenseRowMajor(input)) {
                inputItself = input;
                xPtr = KernelBlas.pointer(input);
                return;
            }
            inputItself = null;
            if (x == null) {
                x = org.nd4j.linalg.factory.Nd4j.createUninitializedDetached(DataType.FLOAT, n, in);
            }
            if (!sequence) {
                x.assign(input);
            } else {
                float[] src = asRowMajor(input, mb * in * steps);
                float[] dst = scratchIn(n * in);
                transposeSteps(src, dst, mb, in, steps, false);
                KernelBlas.buffer(x).put(0, dst, 0, n * in);
            }
            xPtr = KernelBlas.pointer(x);
        }

        /** Reads a gradient [n, width] or [mb, width, T] into rows of {@code dst}. */
        void loadRows(INDArray eps, float[] dst, boolean sequence, int mb, int steps, int width) {
            if (!sequence) {
                if (KernelBlas.isDenseRowMajor(eps)) {
                    KernelBlas.buffer(eps).get(0, dst, 0, n * width);
                } else {
                    eps.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(dst, 0, n * width);
                }
                return;
            }
            float[] src = asRowMajor(eps, mb * width * steps);
            transposeSteps(src, dst, mb, width, steps, false);
        }

        /** Writes rows [n, width] to {@code target} ([n, width], or [mb, width, T] for a sequence). */
        void store(float[] rowsOut, INDArray target, boolean sequence, int mb, int steps, int width) {
            if (!sequence) {
                KernelBlas.buffer(target).put(0, rowsOut, 0, n * width);
                return;
            }
            float[] tmp = scratchNcw(n * width);
            transposeSteps(rowsOut, tmp, mb, width, steps, true);
            KernelBlas.buffer(target).put(0, tmp, 0, n * width);
        }

        void storeInputGradient(INDArray target, int mb, int steps, int width) {
            float[] rowsIn = scratchIn(n * width);
            KernelBlas.buffer(dx).get(0, rowsIn, 0, n * width);
            store(rowsIn, target, true, mb, steps, width);
        }

        /**
         * Between [mb, width, T] (NCW) and rows [mb·T, width]: {@code back} false reads NCW into rows, true writes rows
         * as NCW.
         */
        private static void transposeSteps(float[] src, float[] dst, int mb, int width, int steps, boolean back) {
            for (int s = 0; s < mb; s++) {
                int base = s * width * steps;
                for (int c = 0; c < width; c++) {
                    int ncw = base + c * steps;
                    int row = base + c;
                    for (int t = 0; t < steps; t++) {
                        if (back) {
                            dst[ncw + t] = src[row + t * width];
                        } else {
                            dst[row + t * width] = src[ncw + t];
                        }
                    }
                }
            }
        }

        private float[] asRowMajor(INDArray a, int length) {
            float[] out = scratchNcw(length);
            if (KernelBlas.isDenseRowMajor(a)) {
                KernelBlas.buffer(a).get(0, out, 0, length);
            } else {
                a.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(out, 0, length);
            }
            return out;
        }

        /** Sequences as they come ([mb, width, T]), read or written one at a time. */
        private float[] scratchNcw(int length) {
            if (scratchNcw == null || scratchNcw.length < length) {
                scratchNcw = new float[length];
            }
            return scratchNcw;
        }

        private float[] scratchIn(int length) {
            if (scratchIn == null || scratchIn.length < length) {
                scratchIn = new float[length];
            }
            return scratchIn;
        }

        FloatPointer xPointer() {
            return xPtr;
        }

        FloatPointer zPointer() {
            return zPtr;
        }

        FloatPointer deltaPointer() {
            return deltaPtr;
        }

        FloatPointer dxPointer() {
            if (dx == null) {
                dx = org.nd4j.linalg.factory.Nd4j.createUninitializedDetached(DataType.FLOAT, n, in);
                dxPtr = KernelBlas.pointer(dx);
            }
            return dxPtr;
        }

        FloatBuffer zBuffer() {
            return zBuf;
        }

        FloatBuffer deltaBuffer() {
            return deltaBuf;
        }

        float[] z() {
            return z;
        }

        float[] a() {
            return a;
        }

        float[] delta() {
            return delta;
        }

        /** What the activation keeps from the forward pass for the backward pass (none for the piecewise linear ones). */
        float[] saved(KernelActivation activation) {
            if (!activation.saves()) {
                return null;
            }
            if (saved == null) {
                saved = new float[z.length];
            }
            return saved;
        }
    }
}
