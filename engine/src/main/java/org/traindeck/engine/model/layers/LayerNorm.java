package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * Layer normalisation over the feature dimension (dimension 1) with a learned gain and bias:
 * feed-forward [mb, F], sequences [mb, F, T] (each time step on its own) and channels-first images
 * [mb, C, H, W] (each position on its own, over C). The gain and bias count as biases, so weight decay and
 * L1/L2 leave them alone, as in most transformer recipes.
 */
public class LayerNorm extends SameDiffBackedLayer {

    public static final double DEFAULT_EPSILON = 1e-5;
    public static final String GAIN = "gain";
    public static final String BIAS = "bias";

    @JsonProperty
    private long nIn;

    @JsonProperty
    private double epsilon = DEFAULT_EPSILON;

    /** Epsilon 1e-5; the feature count comes from the input type. */
    public LayerNorm() {}

    public LayerNorm(double epsilon) {
        this(0, epsilon);
    }

    /** @param nIn features; 0 to take them from the input type */
    public LayerNorm(long nIn, double epsilon) {
        if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
            throw new IllegalArgumentException("LayerNorm: epsilon must be a positive number, got " + epsilon);
        }
        if (nIn < 0) {
            throw new IllegalArgumentException("LayerNorm: nIn must be >= 0 (0: from the input type), got " + nIn);
        }
        this.nIn = nIn;
        this.epsilon = epsilon;
    }

    /** Features normalised (0 until the input type sets it). */
    public long nIn() {
        return nIn;
    }

    public double epsilon() {
        return epsilon;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        long features = featuresOf(inputType);
        if (nIn <= 0 || override) {
            if (features != nIn) {
                forgetParameterShapes();
            }
            nIn = features;
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        long features = featuresOf(inputType);
        if (nIn > 0 && features != nIn) {
            throw refuse(
                    getLayerName(),
                    "configured for " + nIn + " features but the input " + describe(inputType) + " has " + features);
        }
        return inputType;
    }

    private long featuresOf(InputType inputType) {
        if (inputType instanceof InputType.InputTypeFeedForward ff) {
            return ff.getSize();
        }
        if (inputType instanceof InputType.InputTypeRecurrent rnn) {
            if (rnn.getFormat() != RNNFormat.NCW) {
                throw refuse(
                        getLayerName(),
                        "sequences must be [minibatch, features, time] (NCW), got " + describe(inputType));
            }
            return rnn.getSize();
        }
        if (inputType instanceof InputType.InputTypeConvolutional cnn) {
            if (cnn.getFormat() != CNN2DFormat.NCHW) {
                throw refuse(getLayerName(), "images must be channels-first (NCHW), got " + describe(inputType));
            }
            return cnn.getChannels();
        }
        throw refuse(
                getLayerName(),
                "normalises feed-forward, sequence (NCW) or image (NCHW) input, got " + describe(inputType));
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addBiasParam(GAIN, 1, nIn);
        params.addBiasParam(BIAS, 1, nIn);
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        params.get(GAIN).assign(1);
        params.get(BIAS).assign(0);
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        int rank = input.getShape().length;
        if (rank == 2) {
            return normaliseRows(sd, input, params);
        }
        // one row per position, features last: see normaliseRows
        int[] featuresLast = rank == 3 ? new int[] {0, 2, 1} : new int[] {0, 2, 3, 1};
        int[] featuresBack = rank == 3 ? new int[] {0, 2, 1} : new int[] {0, 3, 1, 2};
        SDVariable permuted = sd.permute(input, featuresLast);
        SDVariable rows = normaliseRows(sd, permuted.reshape(-1, nIn), params);
        return sd.permute(sd.reshape(rows, sd.shape(permuted)), featuresBack);
    }

    /**
     * Normalises each row of [rows, nIn]. The per-row scale and the gain are spread to the full [rows, nIn] by outer
     * products with ones instead of broadcast multiplies: in M2.1 the backward pass of a broadcast multiply
     * (multiply_bp) was most of this layer's op time, and a matrix product's backward pass sums far faster
     * (measured: 14.5 to 10.4 ms CPU per step on [64, 64, 50], see BlockStepTiming).
     */
    private SDVariable normaliseRows(SameDiff sd, SDVariable rows, Map<String, SDVariable> params) {
        SDVariable centred = rows.sub(rows.mean(true, 1));
        SDVariable variance = centred.mul(centred).mean(true, 1); // square's backward (pow derivative) is slower
        SDVariable scale = sd.math.rsqrt(variance.add(epsilon)); // [rows, 1]
        SDVariable onesRow = sd.onesLike(params.get(GAIN)); // [1, nIn]
        SDVariable onesColumn = sd.onesLike(scale); // [rows, 1]
        SDVariable normalised = centred.mul(sd.mmul(scale, onesRow));
        return normalised.mul(sd.mmul(onesColumn, params.get(GAIN))).add(params.get(BIAS));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LayerNorm other
                && super.equals(o)
                && nIn == other.nIn
                && Double.compare(epsilon, other.epsilon) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), nIn, epsilon);
    }

    @Override
    public String toString() {
        return "LayerNorm(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "nIn=" + nIn + ", epsilon="
                + epsilon + ")";
    }
}
