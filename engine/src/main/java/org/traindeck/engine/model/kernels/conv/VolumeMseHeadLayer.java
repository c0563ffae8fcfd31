package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Cnn3DLossLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * The volume MSE head's kernel at run time. DL4J's layer turns the NCDHW volume and its labels into [n·d·h·w, c]
 * rows (a permuted copy each), then runs MSE as a chain of ND4J ops with an array each, and back to NCDHW; its loss
 * runs the same again. Here the gradient 2(ŷ − y)/c is one Java loop from the arrays into the returned one, in the
 * same float operations as DL4J's (so training is bit for bit the same), and the same loop sums the squared
 * differences in double for the loss that the graph asks for right after the backward pass (one pass over the
 * volumes instead of two). A label mask (min-SNR weighting), another data type or a shape that does not match goes to
 * DL4J's implementation.
 */
public class VolumeMseHeadLayer extends Cnn3DLossLayer {

    private float[] output = new float[0];
    private float[] targets = new float[0];

    /** Σ (ŷ − y)² of the last backward pass, for the loss of the same input and labels. */
    private final KeptLoss kept = new KeptLoss();

    public VolumeMseHeadLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean own() {
        return input != null
                && input.rank() == 5
                && input.dataType() == DataType.FLOAT
                && maskArray == null
                && labels != null
                && labels.dataType() == DataType.FLOAT
                && Arrays.equals(labels.shape(), input.shape());
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

    /** Reads the output and the labels, both in row-major order, into {@link #output} and {@link #targets}. */
    private int read() {
        int n = Math.toIntExact(input.length());
        output = HostFloats.atLeast(output, n);
        targets = HostFloats.atLeast(targets, n);
        HostFloats.read(input, output);
        HostFloats.read(labels, targets);
        return n;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (!own()) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        assertInputSet(true);
        int n = read();
        float channels = input.size(1);
        float[] d = output;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            float diff = d[i] - targets[i];
            // (y − ŷ)² is (ŷ − y)² bit for bit: the loss sums what computeScore's own loop would
            squares += diff * diff;
            // DL4J's LossL2 then LossMSE: (ŷ − y)·2, then divided by the channels
            d[i] = diff * 2f / channels;
        }
        kept.keep(squares, input, labels);
        INDArray delta =
                workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, input.shape(), 'c');
        HostFloats.write(d, delta);
        return new Pair<>(new DefaultGradient(), delta);
    }

    /**
     * Σ (y − ŷ)² / c over every value, over the minibatch, as DL4J's layer scores it (the sum in double): the sum the
     * backward pass kept where it saw this input and these labels, once, else a pass of its own.
     */
    @Override
    public double computeScore(double fullNetRegTerm, boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (!own()) {
            return super.computeScore(fullNetRegTerm, training, workspaceMgr);
        }
        double sum = kept.take(input, labels).orElseGet(() -> squares(read()));
        double score = sum / input.size(1) / getInputMiniBatchSize() + fullNetRegTerm;
        this.score = score;
        return score;
    }

    private double squares(int n) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            float diff = targets[i] - output[i];
            sum += diff * diff;
        }
        return sum;
    }

    /** The identity: a copy of the input (DL4J's permutes it to rows and back). */
    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        if (input == null || input.rank() != 5 || input.dataType() != DataType.FLOAT) {
            return super.activate(training, workspaceMgr);
        }
        return workspaceMgr.dup(ArrayType.ACTIVATIONS, input, 'c');
    }
}
