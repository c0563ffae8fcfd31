package org.traindeck.engine.model.kernels.embedding;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * {@link Unpatch3D} computed by TrainDeck's CPU kernel ({@link Unpatch3DKernelLayer}) instead of SameDiff: the same
 * configuration, parameters (W, b) and layouts, so a network or checkpoint of either loads into the other.
 */
public class Unpatch3DKernel extends Unpatch3D {

    @JsonProperty
    private boolean recompute;

    /** For JSON. */
    protected Unpatch3DKernel() {}

    public Unpatch3DKernel(int patchSize, long channels, int[] grid) {
        this(patchSize, channels, grid, false);
    }

    /** @param recompute keep nothing between the passes but the input: the backward pass makes the rows again */
    public Unpatch3DKernel(int patchSize, long channels, int[] grid, boolean recompute) {
        super(patchSize, channels, grid);
        this.recompute = recompute;
    }

    public boolean isRecompute() {
        return recompute;
    }

    /** Floats per example of the kernel's buffers ({@link VolumePatchBuffers}; one set per thread with recompute). */
    public long bufferFloatsPerExample() {
        return VolumePatchBuffers.unpatchFloatsPerExample(tokens() * patchValues());
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        if (networkDataType != DataType.FLOAT) {
            // the kernel computes in float32; other precisions get the SameDiff layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new Unpatch3DKernelLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Unpatch3DKernel k && k.recompute == recompute && super.equals(o);
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + Boolean.hashCode(recompute);
    }
}
