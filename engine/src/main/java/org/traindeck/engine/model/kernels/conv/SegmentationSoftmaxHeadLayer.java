package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.CnnLossLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.traindeck.engine.model.kernels.FloatExp;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * The segmentation head's kernel at run time. DL4J's layer permutes the NCHW scores and the labels into [n·h·w, c]
 * rows (a copy each), runs softmax and cross-entropy as a chain of ND4J ops with an array each, permutes back, and
 * does it again for the score. Here softmax, its clipping and the gradient p − y are Java loops over the NCHW arrays
 * as they are (pixels innermost, so the JIT vectorises them), the loss one loop summing in double. The backward pass
 * sums the loss from its own softmax, for the loss that the graph asks for right after it (one softmax a step instead
 * of two). A label mask, another data type or layout, or labels of another shape go to DL4J's implementation.
 */
public class SegmentationSoftmaxHeadLayer extends CnnLossLayer {

    private float[] probabilities = new float[0];
    private float[] targets = new float[0];
    private float[] pixelMax = new float[0];
    private float[] pixelSum = new float[0];

    /** −Σ y·log p of the last backward pass, for the loss of the same input and labels. */
    private final KeptLoss kept = new KeptLoss();

    public SegmentationSoftmaxHeadLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean own(boolean withLabels) {
        return input != null
                && input.rank() == 4
                && input.dataType() == DataType.FLOAT
                && layerConf().getFormat() == CNN2DFormat.NCHW
                && maskArray == null
                && (!withLabels || labels != null && labels.dataType() == DataType.FLOAT && labels.equalShapes(input));
    }

    @Override
    public void setInput(INDArray input, LayerWorkspaceMgr workspaceMgr) {
        kept.forget();
        super.setInput(input, workspaceMgr);
    }

    @Override
    public void setLabels(INDArray labels) {
        kept.forget();
        super.setLabels(labels);
    }

    private double clip() {
        return ((LossMCXENT) layerConf().getLossFn()).getSoftmaxClipEps();
    }

    /** The softmax over the channels of every pixel of the input, into {@link #probabilities}; returns its length. */
    private int softmax() {
        int n = Math.toIntExact(input.length());
        int examples = (int) input.size(0);
        int classes = (int) input.size(1);
        int pixels = n / (examples * classes);
        probabilities = HostFloats.atLeast(probabilities, n);
        pixelMax = HostFloats.atLeast(pixelMax, pixels);
        pixelSum = HostFloats.atLeast(pixelSum, pixels);
        float[] p = probabilities;
        HostFloats.read(input, p);
        for (int e = 0; e < examples; e++) {
            int at = e * classes * pixels;
            Arrays.fill(pixelMax, 0, pixels, Float.NEGATIVE_INFINITY);
            Arrays.fill(pixelSum, 0, pixels, 0f);
            for (int j = 0; j < classes; j++) {
                int o = at + j * pixels;
                for (int q = 0; q < pixels; q++) {
                    pixelMax[q] = Math.max(pixelMax[q], p[o + q]);
                }
            }
            for (int j = 0; j < classes; j++) {
                int o = at + j * pixels;
                for (int q = 0; q < pixels; q++) {
                    float v = FloatExp.exp(p[o + q] - pixelMax[q]);
                    p[o + q] = v;
                    pixelSum[q] += v;
                }
            }
            for (int j = 0; j < classes; j++) {
                int o = at + j * pixels;
                for (int q = 0; q < pixels; q++) {
                    p[o + q] /= pixelSum[q];
                }
            }
        }
        return n;
    }

    private int readTargets() {
        int n = Math.toIntExact(labels.length());
        targets = HostFloats.atLeast(targets, n);
        HostFloats.read(labels, targets);
        return n;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (!own(true)) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        assertInputSet(true);
        int n = softmax();
        readTargets();
        kept.keep(crossEntropy(n), input, labels);
        float low = (float) clip();
        float high = (float) (1 - clip());
        float[] d = probabilities;
        for (int i = 0; i < n; i++) {
            // LossMCXENT with a softmax: the probability clipped as its score clips it, minus the label
            d[i] = Math.min(Math.max(d[i], low), high) - targets[i];
        }
        INDArray delta =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        HostFloats.write(d, delta);
        return new Pair<>(new DefaultGradient(), delta);
    }

    /**
     * −Σ y·log p over every pixel and class, over the minibatch, as DL4J's layer scores it (the sum in double): the sum
     * the backward pass kept where it saw this input and these labels, once, else a softmax of its own.
     */
    @Override
    public double computeScore(double fullNetRegTerm, boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own(true)) {
            return super.computeScore(fullNetRegTerm, training, workspaceMgr);
        }
        double sum = kept.take(input, labels).orElseGet(() -> {
            int n = softmax();
            readTargets();
            return crossEntropy(n);
        });
        double score = sum / getInputMiniBatchSize() + fullNetRegTerm;
        this.score = score;
        return score;
    }

    /** −Σ y·log p over the first n probabilities and targets, p clipped as DL4J's cross-entropy clips it. */
    private double crossEntropy(int n) {
        double clip = clip();
        double sum = 0;
        for (int i = 0; i < n; i++) {
            float y = targets[i];
            if (y != 0) {
                double p = probabilities[i];
                sum -= y * Math.log(clip > 0 ? Math.min(Math.max(p, clip), 1 - clip) : p);
            }
        }
        return sum;
    }

    /** The per-pixel softmax, written in NCHW (DL4J's permutes the input to rows and back). */
    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own(false)) {
            return super.activate(training, workspaceMgr);
        }
        softmax();
        INDArray out = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, input.shape(), 'c');
        HostFloats.write(probabilities, out);
        return out;
    }
}
