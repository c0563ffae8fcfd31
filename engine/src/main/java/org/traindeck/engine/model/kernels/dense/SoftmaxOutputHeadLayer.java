package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.OutputLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The classifier head's kernel at run time. DL4J's OutputLayer computes the logits, softmax, loss and their gradients
 * as a chain of about twenty ND4J ops, each with its own output array, and the forward pass twice a step (backward
 * pass, then score). Here: one {@link Sgemm} product for the logits, softmax, cross-entropy and its gradient (p − y,
 * masked per example) as Java loops on arrays kept between steps, two more products for dW and the input's gradient.
 * The score is computed again with the same kernel (a product of [n, in] by [in, classes]: microseconds). Cases the
 * kernel does not cover (a per-output mask, weight noise, other data types) go to DL4J's
 * implementation.
 */
public class SoftmaxOutputHeadLayer extends OutputLayer {

    private static final String W = DefaultParamInitializer.WEIGHT_KEY;
    private static final String B = DefaultParamInitializer.BIAS_KEY;

    private HostFloats.Native rowsCopy;
    private HostFloats.Native logits;
    private FloatPointer rows;
    private float[] values = new float[0];
    private float[] targets = new float[0];
    private float[] probabilities = new float[0];
    private float[] rowMask = new float[0];
    private float[] bias = new float[0];
    private String who;

    public SoftmaxOutputHeadLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean own() {
        return input != null
                && input.rank() == 2
                && input.dataType() == DataType.FLOAT
                && layerConf().getWeightNoise() == null
                && (maskArray == null || maskArray.length() == input.size(0));
    }

    private int inputs() {
        return (int) layerConf().getNIn();
    }

    private int classes() {
        return (int) layerConf().getNOut();
    }

    /** Points {@link #rows} at the input as row-major [n, in] (its own memory when it is), then the softmax of each row. */
    private void forward() {
        int n = (int) input.size(0);
        int c = inputs();
        int k = classes();
        if (input.size(1) != c) {
            throw new IllegalStateException(
                    who() + ": expects [minibatch, " + c + "], got " + Arrays.toString(input.shape()));
        }
        if (Sgemm.isDenseRowMajor(input)) {
            rows = Sgemm.pointerTo(input);
        } else {
            values = HostFloats.atLeast(values, (long) n * c);
            HostFloats.read(input, values);
            rowsCopy = HostFloats.Native.fit(rowsCopy, (long) n * c);
            rowsCopy.buffer.put(0, values, 0, n * c);
            rows = rowsCopy.pointer;
        }
        logits = HostFloats.Native.fit(logits, (long) n * k);
        HeadProducts.logits(rows, getParam(W), logits.pointer, n, c, k, who());
        float[] p = HostFloats.atLeast(probabilities, (long) n * k);
        probabilities = p;
        logits.buffer.get(0, p, 0, n * k);
        bias = HostFloats.atLeast(bias, k);
        if (layerConf().hasBias()) {
            HostFloats.read(getParam(B), bias);
        } else {
            Arrays.fill(bias, 0, k, 0f);
        }
        CrossEntropyRows.softmax(p, bias, n, k);
    }

    /** The labels as rows [n, K] and the per-example mask (1 without one). */
    private void readTargets(int n) {
        int k = classes();
        if (labels == null || labels.rank() != 2 || labels.size(0) != n || labels.size(1) != k) {
            throw new IllegalStateException(who() + ": labels "
                    + (labels == null ? "missing" : Arrays.toString(labels.shape())) + " do not match the output ["
                    + n + ", " + k + "]");
        }
        targets = HostFloats.atLeast(targets, (long) n * k);
        HostFloats.read(labels, targets);
        rowMask = HostFloats.atLeast(rowMask, n);
        if (maskArray == null) {
            Arrays.fill(rowMask, 0, n, 1f);
        } else {
            HostFloats.read(maskArray, rowMask);
        }
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (!own()) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        assertInputSet(true);
        // the same draw as DL4J's layer, at the same point: once per input, kept for the score
        applyDropOutIfNecessary(true, workspaceMgr);
        forward();
        int n = (int) input.size(0);
        readTargets(n);
        logitGradient(n);
        Gradient g = new DefaultGradient();
        g.gradientForVariable().put(W, weightGradient(n));
        if (layerConf().hasBias()) {
            g.gradientForVariable().put(B, biasGradient(n));
        }
        return new Pair<>(g, backpropDropOutIfPresent(inputGradient(n, workspaceMgr)));
    }

    /** dZ = (p − y) × the example's mask, in {@link #probabilities} and copied to {@link #logits} for the products. */
    private void logitGradient(int n) {
        int k = classes();
        CrossEntropyRows.gradient(probabilities, targets, rowMask, n, k);
        logits.buffer.put(0, probabilities, 0, n * k);
    }

    /** dW = Xᵀ dZ, written into W's gradient view in W's own layout. */
    private INDArray weightGradient(int n) {
        INDArray dW = gradientViews.get(W);
        HeadProducts.weightGradient(logits.pointer, rows, getParam(W), dW, n, inputs(), classes(), who());
        return dW;
    }

    /** db = Σ over examples of dZ, written into b's gradient view. */
    private INDArray biasGradient(int n) {
        int k = classes();
        CrossEntropyRows.columnSums(probabilities, bias, n, k);
        INDArray dbView = gradientViews.get(B);
        HostFloats.write(bias, dbView);
        return dbView;
    }

    /** dX = dZ Wᵀ, straight into the returned array. */
    private INDArray inputGradient(int n, LayerWorkspaceMgr workspaceMgr) {
        int c = inputs();
        INDArray epsilonNext =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {n, c}, 'c');
        HeadProducts.inputGradient(logits.pointer, getParam(W), Sgemm.pointerTo(epsilonNext), n, c, classes(), who());
        return epsilonNext;
    }

    /** Σ over examples of −Σ_k y log p (p clipped as DL4J's cross-entropy clips it), masked, over the minibatch. */
    @Override
    public double computeScore(double fullNetRegTerm, boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own() || labels == null) {
            return super.computeScore(fullNetRegTerm, training, workspaceMgr);
        }
        applyDropOutIfNecessary(training, workspaceMgr);
        forward();
        int n = (int) input.size(0);
        int k = classes();
        readTargets(n);
        double clip = ((LossMCXENT) layerConf().getLossFn()).getSoftmaxClipEps();
        double sum = CrossEntropyRows.sum(probabilities, targets, rowMask, n, k, clip);
        double score = conf().isMiniBatch() ? sum / n : sum;
        this.score = score + fullNetRegTerm;
        return this.score;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own() || maskArray != null) {
            return super.activate(training, workspaceMgr);
        }
        applyDropOutIfNecessary(training, workspaceMgr);
        forward();
        int n = (int) input.size(0);
        int k = classes();
        INDArray ret = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {n, k}, 'c');
        HostFloats.write(probabilities, ret);
        return ret;
    }

    /** The layer as errors name it, made once (the products take it on every call). */
    private String who() {
        if (who == null) {
            String n = layerConf().getLayerName();
            who = n == null ? "SoftmaxOutputHead" : "SoftmaxOutputHead \"" + n + "\"";
        }
        return who;
    }
}
