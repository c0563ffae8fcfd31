package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.recurrent.RnnOutputLayer;
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
 * The sequence head's kernel at run time. DL4J's RnnOutputLayer turns [mb, C, T] into rows by permute and dup, multiplies
 * with {@code mmul} and computes softmax and loss as a chain of ND4J ops, and does all of it twice a step (backward pass,
 * then score). Here: one transposing Java loop into rows [mb·T, C], one {@link Sgemm} product, softmax, cross-entropy
 * and its gradient (p − y, masked per step) as Java loops, two more products for dW and the input's gradient. The score
 * is computed again with the same kernel. Cases the kernel does not cover (a per-output mask, input dropout or weight
 * noise, other data types) go to DL4J's implementation.
 */
public class SoftmaxSequenceHeadLayer extends RnnOutputLayer {

    private HostFloats.Native rows;
    private HostFloats.Native logits;
    private HostFloats.Native rowsGrad;
    private float[] values = new float[0];
    private float[] targets = new float[0];
    private float[] probabilities = new float[0];
    private float[] stepMask = new float[0];
    private float[] bias = new float[0];
    private String who;

    public SoftmaxSequenceHeadLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean own() {
        return input != null
                && input.rank() == 3
                && input.dataType() == DataType.FLOAT
                && layerConf().getIDropout() == null
                && layerConf().getWeightNoise() == null
                && (maskArray == null || maskArray.length() == input.size(0) * input.size(2));
    }

    private int inputs() {
        return (int) layerConf().getNIn();
    }

    private int classes() {
        return (int) layerConf().getNOut();
    }

    /** Rows [mb·T, C] of the input (row b·T + t), then the logits and the softmax of each row in {@link #probabilities}. */
    private void forward() {
        int mb = (int) input.size(0);
        int c = inputs();
        int t = (int) input.size(2);
        int k = classes();
        int n = mb * t;
        if (input.size(1) != c) {
            throw new IllegalStateException(
                    who() + ": expects [minibatch, " + c + ", time], got " + Arrays.toString(input.shape()));
        }
        values = HostFloats.atLeast(values, (long) n * c);
        HostFloats.read(input, values);
        float[] x = HostFloats.atLeast(probabilities, (long) n * Math.max(c, k));
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int from = (b * c + f) * t;
                int to = b * t * c + f;
                for (int s = 0; s < t; s++) {
                    x[to + s * c] = values[from + s];
                }
            }
        }
        rows = HostFloats.Native.fit(rows, (long) n * c);
        rows.buffer.put(0, x, 0, n * c);
        logits = HostFloats.Native.fit(logits, (long) n * k);
        HeadProducts.logits(rows.pointer, getParam(DefaultParamInitializer.WEIGHT_KEY), logits.pointer, n, c, k, who());
        probabilities = x;
        logits.buffer.get(0, probabilities, 0, n * k);
        bias = HostFloats.atLeast(bias, k);
        if (layerConf().hasBias()) {
            HostFloats.read(getParam(DefaultParamInitializer.BIAS_KEY), bias);
        } else {
            Arrays.fill(bias, 0, k, 0f);
        }
        float[] p = probabilities;
        CrossEntropyRows.softmax(p, bias, n, k);
    }

    /** The labels as rows [mb·T, K] and the per-step mask (1 without one) of row b·T + t. */
    private void readTargets(int mb, int t) {
        int k = classes();
        int n = mb * t;
        if (labels.rank() != 3 || labels.size(0) != mb || labels.size(1) != k || labels.size(2) != t) {
            throw new IllegalStateException(who() + ": labels " + Arrays.toString(labels.shape())
                    + " do not match the output [" + mb + ", " + k + ", " + t + "]");
        }
        values = HostFloats.atLeast(values, (long) n * k);
        HostFloats.read(labels, values);
        targets = HostFloats.atLeast(targets, (long) n * k);
        for (int b = 0; b < mb; b++) {
            for (int j = 0; j < k; j++) {
                int from = (b * k + j) * t;
                int to = b * t * k + j;
                for (int s = 0; s < t; s++) {
                    targets[to + s * k] = values[from + s];
                }
            }
        }
        stepMask = HostFloats.atLeast(stepMask, n);
        if (maskArray == null) {
            Arrays.fill(stepMask, 0, n, 1f);
            return;
        }
        // setMaskArray keeps the [mb, T] mask as a column in DL4J's row order, b + t·mb
        values = HostFloats.atLeast(values, n);
        HostFloats.read(maskArray, values);
        for (int b = 0; b < mb; b++) {
            for (int s = 0; s < t; s++) {
                stepMask[b * t + s] = values[b + s * mb];
            }
        }
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (!own()) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        assertInputSet(true);
        forward();
        int mb = (int) input.size(0);
        int c = inputs();
        int t = (int) input.size(2);
        int k = classes();
        int n = mb * t;
        readTargets(mb, t);
        float[] d = probabilities;
        CrossEntropyRows.gradient(d, targets, stepMask, n, k);
        logits.buffer.put(0, d, 0, n * k);
        Gradient g = parameterGradients(d, n, c, k);
        rowsGrad = HostFloats.Native.fit(rowsGrad, (long) n * c);
        // dX = dZ Wᵀ
        HeadProducts.inputGradient(
                logits.pointer, getParam(DefaultParamInitializer.WEIGHT_KEY), rowsGrad.pointer, n, c, k, who());
        float[] dx = HostFloats.atLeast(values, (long) n * c);
        float[] dRows = HostFloats.atLeast(targets, (long) n * c);
        rowsGrad.buffer.get(0, dRows, 0, n * c);
        stepsToSequence(dRows, dx, mb, c, t);
        values = dx;
        targets = dRows;
        INDArray epsilonNext =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, c, t}, 'c');
        HostFloats.write(dx, epsilonNext);
        return new Pair<>(g, epsilonNext);
    }

    /** W's and b's gradients from the logits' gradient {@code d} [n, k] (also in the logits' native buffer). */
    private Gradient parameterGradients(float[] d, int n, int c, int k) {
        Gradient g = new DefaultGradient();
        INDArray w = getParam(DefaultParamInitializer.WEIGHT_KEY);
        INDArray dW = gradientViews.get(DefaultParamInitializer.WEIGHT_KEY);
        HeadProducts.weightGradient(logits.pointer, rows.pointer, w, dW, n, c, k, who());
        g.gradientForVariable().put(DefaultParamInitializer.WEIGHT_KEY, dW);
        if (layerConf().hasBias()) {
            CrossEntropyRows.columnSums(d, bias, n, k);
            INDArray dbView = gradientViews.get(DefaultParamInitializer.BIAS_KEY);
            HostFloats.write(bias, dbView);
            g.gradientForVariable().put(DefaultParamInitializer.BIAS_KEY, dbView);
        }
        return g;
    }

    /** Rows [mb·t, c] (one per step) back to DL4J's sequence layout [mb, c, t]. */
    private static void stepsToSequence(float[] rows, float[] sequence, int mb, int c, int t) {
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int to = (b * c + f) * t;
                int from = b * t * c + f;
                for (int s = 0; s < t; s++) {
                    sequence[to + s] = rows[from + s * c];
                }
            }
        }
    }

    /** Σ over steps of −Σ_k y log p (p clipped as DL4J's cross-entropy clips it), masked per step, over the minibatch. */
    @Override
    public double computeScore(double fullNetRegTerm, boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own() || labels == null) {
            return super.computeScore(fullNetRegTerm, training, workspaceMgr);
        }
        forward();
        int mb = (int) input.size(0);
        int t = (int) input.size(2);
        int k = classes();
        int n = mb * t;
        readTargets(mb, t);
        double clip = ((LossMCXENT) layerConf().getLossFn()).getSoftmaxClipEps();
        double sum = CrossEntropyRows.sum(probabilities, targets, stepMask, n, k, clip);
        double score = conf().isMiniBatch() ? sum / mb : sum;
        this.score = score + fullNetRegTerm;
        return this.score;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own() || maskArray != null) {
            return super.activate(training, workspaceMgr);
        }
        forward();
        int mb = (int) input.size(0);
        int t = (int) input.size(2);
        int k = classes();
        float[] out = HostFloats.atLeast(values, (long) mb * k * t);
        for (int b = 0; b < mb; b++) {
            for (int j = 0; j < k; j++) {
                int to = (b * k + j) * t;
                int from = b * t * k + j;
                for (int s = 0; s < t; s++) {
                    out[to + s] = probabilities[from + s * k];
                }
            }
        }
        values = out;
        INDArray ret =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, k, t}, 'c');
        HostFloats.write(out, ret);
        return ret;
    }

    /** The layer as errors name it, made once (the products take it on every call). */
    private String who() {
        if (who == null) {
            String n = layerConf().getLayerName();
            who = n == null ? "SoftmaxSequenceHead" : "SoftmaxSequenceHead \"" + n + "\"";
        }
        return who;
    }
}
