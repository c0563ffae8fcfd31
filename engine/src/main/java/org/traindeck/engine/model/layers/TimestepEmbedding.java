package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.InputGradients;

/**
 * A diffusion timestep as DiT embeds it: t [mb, 1] → [cos(t·f_i), sin(t·f_i)] for {@code frequencies / 2}
 * frequencies f_i = 10000^(−i / (frequencies / 2)) → dense → SiLU → dense, [mb, units].
 */
public class TimestepEmbedding extends SameDiffBackedLayer implements InputGradients.Skippable {

    public static final String W1 = "W1";
    public static final String B1 = "b1";
    public static final String W2 = "W2";
    public static final String B2 = "b2";
    private static final double MAX_PERIOD = 10000;

    @JsonProperty
    private int frequencies;

    @JsonProperty
    private int units;

    /** False where the timestep is the network's input (as a diffusion task feeds it): nobody reads its gradient. */
    @JsonProperty
    private boolean inputGradient = true;

    /** For DL4J's JSON. */
    public TimestepEmbedding() {}

    /** @param frequencies sinusoidal features (even) */
    public TimestepEmbedding(int frequencies, int units) {
        if (frequencies < 2 || frequencies % 2 != 0 || units < 1) {
            throw new IllegalArgumentException(
                    "TimestepEmbedding: an even number of frequencies >= 2 and units >= 1, got " + frequencies + ", "
                            + units);
        }
        this.frequencies = frequencies;
        this.units = units;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        requireTimestep(inputType);
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        requireTimestep(inputType);
        return InputType.feedForward(units);
    }

    private void requireTimestep(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeFeedForward ff) || ff.getSize() != 1) {
            throw refuse(getLayerName(), "embeds one timestep per example, [1], got " + describe(inputType));
        }
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addWeightParam(W1, frequencies, units);
        params.addBiasParam(B1, 1, units);
        params.addWeightParam(W2, units, units);
        params.addBiasParam(B2, 1, units);
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        initWeights(params.get(W1), frequencies, units);
        initWeights(params.get(W2), units, units);
        params.get(B1).assign(0);
        params.get(B2).assign(0);
    }

    /** Both passes as loops on the heap ({@link TimestepEmbeddingRuntime}); the SameDiff graph below is the reference. */
    @Override
    SameDiffLayerRuntime runtime(NeuralNetConfiguration conf, DataType networkDataType) {
        return new TimestepEmbeddingRuntime(conf, networkDataType);
    }

    int frequencies() {
        return frequencies;
    }

    int units() {
        return units;
    }

    /** The sinusoids' frequencies f_i, as the SameDiff graph's constant row holds them (then in the data type). */
    static double[] frequencyRow(int frequencies) {
        int half = frequencies / 2;
        double[] f = new double[half];
        for (int i = 0; i < half; i++) {
            f[i] = Math.exp(-Math.log(MAX_PERIOD) * i / half);
        }
        return f;
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        int half = frequencies / 2;
        double[] f = frequencyRow(frequencies);
        SDVariable row = sd.constant(Nd4j.create(f, new long[] {1, half}, input.dataType()));
        SDVariable args = sd.mmul(input, row); // [mb, half]
        SDVariable features = sd.concat(1, sd.math.cos(args), sd.math.sin(args));
        SDVariable hidden = sd.mmul(features, params.get(W1)).add(params.get(B1));
        SDVariable silu = hidden.mul(sd.nn.sigmoid(hidden));
        return sd.mmul(silu, params.get(W2)).add(params.get(B2));
    }

    public boolean inputGradient() {
        return inputGradient;
    }

    /** {@code false}: the loops' backward pass returns zeros for the timestep (SameDiff's graph still computes it). */
    @Override
    public void setInputGradient(boolean inputGradient) {
        this.inputGradient = inputGradient;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TimestepEmbedding other
                && super.equals(o)
                && frequencies == other.frequencies
                && units == other.units
                && inputGradient == other.inputGradient;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), frequencies, units, inputGradient);
    }

    @Override
    public String toString() {
        return "TimestepEmbedding(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "frequencies="
                + frequencies + ", units=" + units + ")";
    }
}
