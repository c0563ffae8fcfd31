package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.shade.jackson.annotation.JsonIgnore;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * Multi-head scaled dot-product self-attention on sequences [mb, nIn, T] to [mb, nOut, T], optionally causal
 * (position t sees only positions up to t). The query, key and value projections are one matrix [nIn, 3 nOut]
 * (queries, keys, values; within each, head after head), so one product computes all three for every head, and
 * the heads run as one batched product, with no per-head loop. A DL4J padding mask is passed on to the next layer
 * but not applied here: every position attends to every position (every earlier one, when causal).
 */
public class SelfAttention extends SameDiffBackedLayer {

    public static final String QKV_WEIGHTS = "Wqkv";
    public static final String QKV_BIAS = "bqkv";
    public static final String OUT_WEIGHTS = "Wo";
    public static final String OUT_BIAS = "bo";

    @JsonProperty
    private long nIn;

    @JsonProperty
    private long nOut;

    @JsonProperty
    private int heads;

    @JsonProperty
    private boolean causal;

    /** For JSON. */
    protected SelfAttention() {}

    /** nIn from the input type. */
    public SelfAttention(long nOut, int heads, boolean causal) {
        this(0, nOut, heads, causal);
    }

    /** @param nIn input features; 0 to take them from the input type */
    public SelfAttention(long nIn, long nOut, int heads, boolean causal) {
        this.nIn = nIn;
        this.nOut = nOut;
        this.heads = heads;
        this.causal = causal;
        checkSizes();
    }

    @JsonIgnore // the field is the JSON property; Jackson would also write this getter as "nin"
    public long getNIn() {
        return nIn;
    }

    @JsonIgnore
    public long getNOut() {
        return nOut;
    }

    public int getHeads() {
        return heads;
    }

    public boolean isCausal() {
        return causal;
    }

    private void checkSizes() {
        if (nIn < 0) {
            throw refuse(getLayerName(), "nIn must be >= 0 (0: from the input type), got " + nIn);
        }
        if (nOut <= 0 || heads <= 0) {
            throw refuse(getLayerName(), "nOut and heads must be positive, got nOut=" + nOut + ", heads=" + heads);
        }
        if (nOut % heads != 0) {
            throw refuse(
                    getLayerName(),
                    heads + " heads do not divide the projected width nOut=" + nOut
                            + " (each head gets nOut/heads features)");
        }
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        long features = sequenceFeatures(inputType);
        if (nIn <= 0 || override) {
            if (features != nIn) {
                forgetParameterShapes();
            }
            nIn = features;
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        checkSizes();
        long features = sequenceFeatures(inputType);
        if (nIn > 0 && features != nIn) {
            throw refuse(
                    getLayerName(),
                    "configured for nIn=" + nIn + " but the input " + describe(inputType) + " has " + features
                            + " features");
        }
        long length = ((InputType.InputTypeRecurrent) inputType).getTimeSeriesLength();
        return InputType.recurrent(nOut, length);
    }

    private long sequenceFeatures(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeRecurrent rnn) || rnn.getFormat() != RNNFormat.NCW) {
            throw refuse(
                    getLayerName(),
                    "attends over sequences [minibatch, features, time] (InputType.recurrent, NCW), got "
                            + describe(inputType));
        }
        return rnn.getSize();
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addWeightParam(QKV_WEIGHTS, nIn, 3 * nOut);
        params.addWeightParam(OUT_WEIGHTS, nOut, nOut);
        params.addBiasParam(QKV_BIAS, 1, 3 * nOut);
        params.addBiasParam(OUT_BIAS, 1, nOut);
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        initWeights(params.get(QKV_WEIGHTS), nIn, nOut);
        initWeights(params.get(OUT_WEIGHTS), nOut, nOut);
        params.get(QKV_BIAS).assign(0);
        params.get(OUT_BIAS).assign(0);
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        long headSize = nOut / heads;
        SDVariable batch = sd.sizeAt(input, 0).reshape(1);
        SDVariable length = sd.sizeAt(input, 2).reshape(1);
        // one row per (example, time step), so that each projection is a single 2-D matrix product
        SDVariable rows = sd.permute(input, 0, 2, 1).reshape(-1, nIn);
        SDVariable qkv = withBias(sd, sd.mmul(rows, params.get(QKV_WEIGHTS)), params.get(QKV_BIAS), 3 * nOut);
        SDVariable perHeadShape = sd.concat(0, batch, length, sd.constant(Nd4j.createFromArray(3L, heads, headSize)));
        SDVariable perHead = sd.reshape(qkv, perHeadShape); // [mb, T, 3, heads, headSize]
        SDVariable[] split = sd.unstack(sd.permute(perHead, 2, 0, 3, 4, 1), 0, 3); // each [mb, heads, headSize, T]
        SDVariable queries = split[0].mul(1.0 / Math.sqrt(headSize));

        SDVariable scores = sd.mmul(queries, split[1], true, false, false); // [mb, heads, T(query), T(key)]
        if (causal) {
            scores = scores.add(futureBias(sd, input));
        }
        SDVariable weights = sd.nn.softmax(scores, 3);
        SDVariable attended = sd.mmul(weights, split[2], false, true, false); // [mb, heads, T, headSize]
        SDVariable joined = sd.permute(attended, 0, 2, 1, 3).reshape(-1, nOut); // heads side by side, [mb * T, nOut]
        SDVariable out = withBias(sd, sd.mmul(joined, params.get(OUT_WEIGHTS)), params.get(OUT_BIAS), nOut);
        SDVariable sequence = sd.reshape(out, sd.concat(0, batch, length, sd.constant(Nd4j.createFromArray(nOut))));
        return sd.permute(sequence, 0, 2, 1);
    }

    /** bias_add, whose gradient op sums the rows directly, rather than a broadcast add. */
    private static SDVariable withBias(SameDiff sd, SDVariable rows, SDVariable bias, long width) {
        return sd.nn.biasAdd(rows, bias.reshape(width), false);
    }

    /**
     * [T, T]: 0 where the key is at or before the query, a large negative number after it. Built from the input's
     * own length, so that one graph serves every T. Half precision gets a bias it can represent.
     */
    private static SDVariable futureBias(SameDiff sd, SDVariable input) {
        DataType type = input.dataType();
        SDVariable length = sd.sizeAt(input, 2);
        SDVariable positions = sd.range(sd.constant(Nd4j.scalar(0L)), length, sd.constant(Nd4j.scalar(1L)), type);
        SDVariable queryPos = positions.reshape(-1, 1);
        SDVariable keyPos = positions.reshape(1, -1);
        double blocked = type == DataType.HALF ? -3.0e4 : -1.0e9;
        return sd.gt(keyPos, queryPos).castTo(type).mul(blocked);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SelfAttention other
                && super.equals(o)
                && nIn == other.nIn
                && nOut == other.nOut
                && heads == other.heads
                && causal == other.causal;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), nIn, nOut, heads, causal);
    }

    @Override
    public String toString() {
        return "SelfAttention(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "nIn=" + nIn + ", nOut="
                + nOut + ", heads=" + heads + ", causal=" + causal + ")";
    }
}
