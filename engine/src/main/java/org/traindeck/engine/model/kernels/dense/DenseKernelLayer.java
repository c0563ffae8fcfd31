package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
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
import org.traindeck.engine.model.kernels.KernelActivation;
import org.traindeck.engine.model.kernels.Sgemm;

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
        if (dataType != DataType.FLOAT) {
            return activateWithNd4j(training, mgr);
        }
        applyDropOutIfNecessary(training, mgr);
        int in = (int) layerConf().getNIn();
        int out = (int) layerConf().getNOut();
        boolean sequence = input.rank() == 3;
        int mb = (int) input.size(0);
        int steps = sequence ? (int) input.size(2) : 1;
        int n = mb * steps;
        if (input.size(1) != in) {
            throw new IllegalStateException("DenseKernel" + name() + ": expects " + in
                    + " input features, got input of shape " + Arrays.toString(input.shape()));
        }
        rows.shape(n, in, out);
        rows.loadInput(input, sequence, mb, steps);
        float[] z = preActivations(n, in, out);
        float[] a = rows.a();
        activation.forward(z, a, rows.saved(activation), n * out);
        float[] mask = rowMask(n, mb, steps, sequence);
        if (mask != null) {
            scaleRows(a, mask, n, out);
        }
        INDArray ret = mgr.createUninitialized(
                ArrayType.ACTIVATIONS,
                DataType.FLOAT,
                sequence ? new long[] {mb, out, steps} : new long[] {n, out},
                'c');
        rows.store(a, ret, sequence, mb, steps, out);
        return ret;
    }

    /** z = x Wᵀ + b for the loaded rows, in the rows' own z (kept for the backward pass). */
    private float[] preActivations(int n, int in, int out) {
        Sgemm.multiply(
                false,
                true,
                n,
                out,
                in,
                1f,
                rows.xPointer(),
                0,
                in,
                Sgemm.pointerTo(getParam(W)),
                0,
                in,
                0f,
                rows.zPointer(),
                0,
                out);
        float[] z = rows.z();
        rows.zBuffer().get(0, z, 0, n * out);
        if (hasBias()) {
            float[] b = new float[out];
            Sgemm.buffer(getParam(B)).get(0, b, 0, out);
            for (int r = 0, o = 0; r < n; r++, o += out) {
                for (int j = 0; j < out; j++) {
                    z[o + j] += b[j];
                }
            }
        }
        return z;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        if (dataType != DataType.FLOAT) {
            return backpropWithNd4j(epsilon, mgr);
        }
        int in = (int) layerConf().getNIn();
        int out = (int) layerConf().getNOut();
        boolean sequence = input.rank() == 3;
        int mb = (int) input.size(0);
        int steps = sequence ? (int) input.size(2) : 1;
        int n = mb * steps;
        if (!rows.holds(n, in, out)) {
            throw new IllegalStateException(
                    "DenseKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        float[] g = rows.delta();
        rows.loadRows(epsilon, g, sequence, mb, steps, out);
        activation.backward(rows.z(), rows.saved(activation), g, n * out);
        float[] mask = rowMask(n, mb, steps, sequence);
        if (mask != null) {
            scaleRows(g, mask, n, out);
        }
        rows.deltaBuffer().put(0, g, 0, n * out);

        Gradient ret = parameterGradients(g, n, in, out);
        long[] inputShape = sequence ? new long[] {mb, in, steps} : new long[] {n, in};
        if (!layerConf().inputGradient()) {
            return new Pair<>(ret, mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c'));
        }
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        // delta · W: a sequence goes through the rows' own buffer, then back to [mb, in, steps]
        FloatPointer target = sequence ? rows.dxPointer() : Sgemm.pointerTo(epsNext);
        Sgemm.multiply(
                false,
                false,
                n,
                in,
                out,
                1f,
                rows.deltaPointer(),
                0,
                out,
                Sgemm.pointerTo(getParam(W)),
                0,
                in,
                0f,
                target,
                0,
                in);
        if (sequence) {
            rows.storeInputGradient(epsNext, mb, steps, in);
        }
        epsNext = backpropDropOutIfPresent(epsNext);
        return new Pair<>(ret, epsNext);
    }

    /** W's and b's gradients from the output gradient {@code g} [n, out] held in the rows' delta buffer. */
    private Gradient parameterGradients(float[] g, int n, int in, int out) {
        Gradient ret = new DefaultGradient();
        INDArray wGrad = gradientViews.get(W);
        // W is [in, out] in 'f' order, i.e. row-major [out, in]: dWᵀ = deltaᵀ · X
        Sgemm.multiply(
                true,
                false,
                out,
                in,
                n,
                1f,
                rows.deltaPointer(),
                0,
                out,
                rows.xPointer(),
                0,
                in,
                0f,
                Sgemm.pointerTo(wGrad),
                0,
                in);
        ret.gradientForVariable().put(W, wGrad);
        if (hasBias()) {
            INDArray bGrad = gradientViews.get(B);
            float[] sums = new float[out];
            for (int r = 0, o = 0; r < n; r++, o += out) {
                for (int j = 0; j < out; j++) {
                    sums[j] += g[o + j];
                }
            }
            Sgemm.buffer(bGrad).put(0, sums, 0, out);
            ret.gradientForVariable().put(B, bGrad);
        }
        return ret;
    }

    /**
     * Float16 training: DL4J's own dense computation (BaseLayer's, which DenseLayer uses), a sequence turned into rows
     * and back with ND4J ops. The kernel itself computes in float32 only.
     */
    private INDArray activateWithNd4j(boolean training, LayerWorkspaceMgr mgr) {
        if (input.rank() != 3) {
            return super.activate(training, mgr);
        }
        INDArray sequence = input;
        long mb = sequence.size(0);
        long steps = sequence.size(2);
        input = sequence.permute(0, 2, 1).dup('c').reshape('c', mb * steps, sequence.size(1));
        try {
            INDArray rowsOut = super.activate(training, mgr);
            return mgr.leverageTo(
                    ArrayType.ACTIVATIONS,
                    rowsOut.reshape('c', mb, steps, rowsOut.size(1))
                            .permute(0, 2, 1)
                            .dup('c'));
        } finally {
            input = sequence;
        }
    }

    private Pair<Gradient, INDArray> backpropWithNd4j(INDArray epsilon, LayerWorkspaceMgr mgr) {
        if (input.rank() != 3) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray sequence = input;
        long mb = sequence.size(0);
        long steps = sequence.size(2);
        input = sequence.permute(0, 2, 1).dup('c').reshape('c', mb * steps, sequence.size(1));
        try {
            INDArray eps = epsilon.permute(0, 2, 1).dup('c').reshape('c', mb * steps, epsilon.size(1));
            Pair<Gradient, INDArray> p = super.backpropGradient(eps, mgr);
            INDArray dx = p.getSecond()
                    .reshape('c', mb, steps, sequence.size(1))
                    .permute(0, 2, 1)
                    .dup('c');
            return new Pair<>(p.getFirst(), mgr.leverageTo(ArrayType.ACTIVATION_GRAD, dx));
        } finally {
            input = sequence;
        }
    }

    /** One factor per row from the mask ([n, 1] for rows, [mb, T] for a sequence), or null without a mask. */
    private float[] rowMask(int n, int mb, int steps, boolean sequence) {
        if (maskArray == null) {
            return null;
        }
        if (maskArray.length() != n) {
            throw new IllegalStateException("DenseKernel" + name() + ": a mask must have one value per "
                    + (sequence ? "time step ([" + mb + ", " + steps + "])" : "row ([" + n + ", 1])") + ", got shape "
                    + Arrays.toString(maskArray.shape()));
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
}
