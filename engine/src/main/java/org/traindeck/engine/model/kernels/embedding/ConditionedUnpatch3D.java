package org.traindeck.engine.model.kernels.embedding;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.memory.LayerMemoryReport;
import org.deeplearning4j.nn.conf.memory.MemoryReport;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonIgnore;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.transformer.BlockInputsVertex;

/**
 * unpatch3d with a condition: DiT's final layer before the unpatching. Each token [F] is layer-normalised without gain
 * or bias (eps 1e-6), shifted and scaled by the condition (shift, scale = SiLU(c) Wm + bm, so n (1 + scale) + shift),
 * then projected to its s×s×s patch of C values (W, b) and put in place: volumes [mb, C, d·s, h·s, w·s]. The tokens and
 * the condition come packed by {@link BlockInputsVertex}. Wm, bm, W and b start at zero, as DiT's. Runs on {@link
 * ConditionedUnpatch3DLayer}.
 */
public class ConditionedUnpatch3D extends BaseLayer {

    @JsonProperty
    private int patchSize;

    @JsonProperty
    private long channels;

    @JsonProperty
    private int[] grid;

    @JsonProperty
    private long features;

    @JsonProperty
    private long conditionWidth;

    /** For JSON. */
    protected ConditionedUnpatch3D() {}

    /** @param grid tokens along depth, height and width */
    public ConditionedUnpatch3D(int patchSize, long channels, int[] grid, long features, long conditionWidth) {
        if (patchSize <= 0
                || channels <= 0
                || grid.length != 3
                || Arrays.stream(grid).anyMatch(g -> g <= 0)
                || features <= 0
                || conditionWidth <= 0) {
            throw new IllegalArgumentException("ConditionedUnpatch3D: every size must be positive, got patchSize="
                    + patchSize + ", channels=" + channels + ", grid=" + Arrays.toString(grid) + ", features="
                    + features + ", condition=" + conditionWidth);
        }
        this.patchSize = patchSize;
        this.channels = channels;
        this.grid = grid.clone();
        this.features = features;
        this.conditionWidth = conditionWidth;
    }

    @JsonIgnore
    public int patchSize() {
        return patchSize;
    }

    @JsonIgnore
    public long channels() {
        return channels;
    }

    @JsonIgnore
    public int[] grid() {
        return grid.clone();
    }

    /** Features per token. */
    @JsonIgnore
    public long features() {
        return features;
    }

    @JsonIgnore
    public long conditionWidth() {
        return conditionWidth;
    }

    @JsonIgnore
    public long tokens() {
        return (long) grid[0] * grid[1] * grid[2];
    }

    /** Values per patch: s³·C. */
    @JsonIgnore
    public long patchValues() {
        return (long) patchSize * patchSize * patchSize * channels;
    }

    @Override
    public org.deeplearning4j.nn.api.Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        return KernelInstances.wire(
                new ConditionedUnpatch3DLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public ParamInitializer initializer() {
        return ConditionedUnpatch3DParams.INSTANCE;
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        return InputType.convolutional3D(
                Convolution3D.DataFormat.NCDHW,
                (long) grid[0] * patchSize,
                (long) grid[1] * patchSize,
                (long) grid[2] * patchSize,
                channels);
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        // the features are the node's, checked against its inputs when it is built
    }

    @Override
    public InputPreProcessor getPreProcessorForInputType(InputType inputType) {
        return null;
    }

    @Override
    public boolean isPretrainParam(String paramName) {
        return false;
    }

    /** The normalised tokens, the modulated ones and the patches are kept for the backward pass. */
    @Override
    public LayerMemoryReport getMemoryReport(InputType inputType) {
        long params = initializer().numParams(this);
        long kept = tokens() * (3 * features + 2 * patchValues());
        return new LayerMemoryReport.Builder(
                        getLayerName(), ConditionedUnpatch3D.class, inputType, getOutputType(-1, inputType))
                .standardMemory(
                        params, getIUpdater() == null ? 0 : getIUpdater().stateSize(params))
                .workingMemory(0, kept, 0, kept)
                .cacheMemory(MemoryReport.CACHE_MODE_ALL_ZEROS, MemoryReport.CACHE_MODE_ALL_ZEROS)
                .build();
    }

    @Override
    public ConditionedUnpatch3D clone() {
        ConditionedUnpatch3D copy = (ConditionedUnpatch3D) super.clone();
        copy.grid = grid.clone();
        return copy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConditionedUnpatch3D other
                && super.equals(o)
                && patchSize == other.patchSize
                && channels == other.channels
                && Arrays.equals(grid, other.grid)
                && features == other.features
                && conditionWidth == other.conditionWidth;
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), patchSize, channels, Arrays.hashCode(grid), features, conditionWidth);
    }

    @Override
    public String toString() {
        return "ConditionedUnpatch3D(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "patchSize="
                + patchSize + ", channels=" + channels + ", grid=" + grid[0] + "x" + grid[1] + "x" + grid[2]
                + ", features=" + features + ", condition=" + conditionWidth + ")";
    }
}
