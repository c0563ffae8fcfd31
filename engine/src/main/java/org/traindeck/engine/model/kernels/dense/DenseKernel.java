package org.traindeck.engine.model.kernels.dense;

import java.util.Collection;
import java.util.Objects;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.memory.LayerMemoryReport;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.KernelActivation;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * Fully connected, computed by TrainDeck's CPU kernel ({@link DenseKernelLayer}): rows [n, in] to [n, out], and a
 * sequence [mb, in, T] (NCW) to [mb, out, T] as the same layer at every step. Its parameters are DL4J's DenseLayer's,
 * same names, shapes, order and layout (W [in, out], b [1, out]), so a network saved with DenseLayer (or
 * TimeDistributed(DenseLayer)) loads into it and back unchanged.
 */
public class DenseKernel extends FeedForwardLayer implements InputGradients.Skippable {

    @JsonProperty
    private boolean hasBias = true;
    /** False where the input is the network's own input, whose gradient nobody reads: saves a third of the products. */
    @JsonProperty
    private boolean inputGradient = true;

    /** For JSON. */
    public DenseKernel() {}

    protected DenseKernel(Builder b) {
        super(b);
        this.hasBias = b.hasBias;
        initializeConstraints(b);
        if (KernelActivation.of(activationFn) == null) {
            throw new IllegalArgumentException(
                    "DenseKernel computes identity, relu, leakyrelu, tanh, sigmoid and gelu; " + activationFn
                            + " needs DL4J's DenseLayer");
        }
    }

    /** Whether the kernel computes {@code a} itself (otherwise use DL4J's DenseLayer). */
    public static boolean supports(Activation a) {
        return KernelActivation.of(a.getActivationFunction()) != null;
    }

    public boolean hasBias() {
        return hasBias;
    }

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the backward pass returns zeros for the input, for a layer that reads the network's input. */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        return KernelInstances.wire(
                new DenseKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ParamInitializer initializer() {
        return Params.INSTANCE;
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        if (inputType instanceof InputType.InputTypeRecurrent rnn) {
            requireNcw(rnn);
            return InputType.recurrent(nOut, rnn.getTimeSeriesLength(), RNNFormat.NCW);
        }
        return super.getOutputType(layerIndex, inputType);
    }

    @Override
    public InputPreProcessor getPreProcessorForInputType(InputType inputType) {
        if (inputType instanceof InputType.InputTypeRecurrent rnn) {
            requireNcw(rnn);
            return null; // the kernel takes the sequence as it is
        }
        return super.getPreProcessorForInputType(inputType);
    }

    private void requireNcw(InputType.InputTypeRecurrent rnn) {
        if (rnn.getFormat() != RNNFormat.NCW) {
            throw new IllegalArgumentException("DenseKernel" + (layerName == null ? "" : " \"" + layerName + "\"")
                    + ": sequences must be [minibatch, features, time] (NCW), got " + rnn);
        }
    }

    @Override
    public LayerMemoryReport getMemoryReport(InputType inputType) {
        InputType out = getOutputType(-1, inputType);
        long params = initializer().numParams(this);
        long updaterState = getIUpdater() == null ? 0 : getIUpdater().stateSize(params);
        // per example: the pre-activation kept for the backward pass, the input copy and the gradient buffers
        long perExample = out.arrayElementsPerExample() * 3 + inputType.arrayElementsPerExample() * 2;
        return new LayerMemoryReport.Builder(layerName, DenseKernel.class, inputType, out)
                .standardMemory(params, updaterState)
                .workingMemory(0, out.arrayElementsPerExample(), 0, perExample)
                .cacheMemory(0, 0)
                .build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DenseKernel other
                && super.equals(o)
                && hasBias == other.hasBias
                && inputGradient == other.inputGradient;
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), hasBias, inputGradient);
    }

    @Override
    public String toString() {
        return "DenseKernel(" + (layerName == null ? "" : layerName + ", ") + "nIn=" + nIn + ", nOut=" + nOut
                + ", activation=" + activationFn + ", bias=" + hasBias + (inputGradient ? "" : ", no input gradient")
                + ")";
    }

    /** DenseLayer's parameters (W, then b when there is a bias); DL4J's initializer asks DenseLayer alone for the bias. */
    static final class Params extends DefaultParamInitializer {
        static final Params INSTANCE = new Params();

        @Override
        protected boolean hasBias(org.deeplearning4j.nn.conf.layers.Layer layer) {
            return layer instanceof DenseKernel d ? d.hasBias : super.hasBias(layer);
        }
    }

    public static class Builder extends FeedForwardLayer.Builder<Builder> {
        private boolean hasBias = true;

        public Builder hasBias(boolean hasBias) {
            this.hasBias = hasBias;
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public DenseKernel build() {
            return new DenseKernel(this);
        }
    }
}
