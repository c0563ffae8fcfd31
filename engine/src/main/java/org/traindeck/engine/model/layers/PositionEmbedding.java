package org.traindeck.engine.model.layers;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * Adds a learned position embedding [width, maxLength] to sequences [mb, width, T], T <= maxLength (the first T
 * positions), as GPT does after its token embedding. The embedding is a bias (no weight decay), drawn from
 * N(0, 0.02^2).
 */
public class PositionEmbedding extends SameDiffBackedLayer {

    public static final String POSITIONS = "pos";
    private static final double EMBEDDING_STD = 0.02;

    @JsonProperty
    private long maxLength;

    @JsonProperty
    private long width;

    /** For JSON. */
    protected PositionEmbedding() {}

    /** Width from the input type. */
    public PositionEmbedding(long maxLength) {
        this(maxLength, 0);
    }

    /** @param width features; 0 to take them from the input type */
    public PositionEmbedding(long maxLength, long width) {
        if (maxLength <= 0 || width < 0) {
            throw new IllegalArgumentException(
                    "PositionEmbedding: maxLength must be positive and width >= 0, got maxLength=" + maxLength
                            + ", width=" + width);
        }
        this.maxLength = maxLength;
        this.width = width;
    }

    /** The longest sequence it has positions for. */
    public long maxLength() {
        return maxLength;
    }

    /** Features per position (0 until the input type is known). */
    public long width() {
        return width;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        long features = checkedSequence(inputType).getSize();
        if (width <= 0 || override) {
            if (features != width) {
                forgetParameterShapes();
            }
            width = features;
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        InputType.InputTypeRecurrent sequence = checkedSequence(inputType);
        if (width > 0 && sequence.getSize() != width) {
            throw refuse(
                    getLayerName(),
                    "configured for width " + width + " but the input " + describe(inputType) + " has "
                            + sequence.getSize() + " features");
        }
        return inputType;
    }

    private InputType.InputTypeRecurrent checkedSequence(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeRecurrent sequence) || sequence.getFormat() != RNNFormat.NCW) {
            throw refuse(
                    getLayerName(),
                    "takes sequences [minibatch, features, time] (InputType.recurrent, NCW), got "
                            + describe(inputType));
        }
        checkLength(sequence.getTimeSeriesLength());
        return sequence;
    }

    private void checkLength(long length) {
        if (length > maxLength) {
            throw refuse(getLayerName(), "sequence length " + length + " exceeds maxLength " + maxLength);
        }
    }

    @Override
    public void validateInput(INDArray input) {
        if (input.rank() != 3) {
            throw refuse(
                    getLayerName(),
                    "expected a sequence batch [minibatch, width, time], got shape " + Arrays.toString(input.shape()));
        }
        checkLength(input.size(2));
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addBiasParam(POSITIONS, width, maxLength);
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        initNormal(params.get(POSITIONS), EMBEDDING_STD);
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        SDVariable length = sd.sizeAt(input, 2).reshape(1);
        SDVariable size = sd.concat(0, sd.constant(Nd4j.createFromArray(width)), length);
        SDVariable used = sd.slice(params.get(POSITIONS), sd.constant(Nd4j.createFromArray(0L, 0L)), size);
        return input.add(used);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PositionEmbedding other
                && super.equals(o)
                && maxLength == other.maxLength
                && width == other.width;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), maxLength, width);
    }

    @Override
    public String toString() {
        return "PositionEmbedding(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "maxLength=" + maxLength
                + ", width=" + width + ")";
    }
}
