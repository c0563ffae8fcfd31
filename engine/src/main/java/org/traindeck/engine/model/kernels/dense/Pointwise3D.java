package org.traindeck.engine.model.kernels.dense;

import java.util.Arrays;
import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.LayerValidation;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A 1×1×1 3D convolution (the head TrainDeck appends to a volume-to-volume model) computed as what it is, a dense
 * product at every voxel ({@link Pointwise3DLayer}): per example [out, in] × [in, voxels], on OpenBLAS. DL4J's
 * Convolution3D runs it as a general convolution, whose backward pass took 4–6 % of the x-ray cascade's stage-1 step.
 * Its parameters, names, layout and JSON are DL4J's Convolution3D's (it is one), so a network saved with either loads
 * into the other; where the kernel does not apply (not float32, not NCDHW, an activation other than identity, a
 * dropout) the layer runs DL4J's own code.
 */
public class Pointwise3D extends Convolution3D {

    /** For DL4J's JSON. */
    public Pointwise3D() {}

    /**
     * The layer {@code builder} would build; it must be 1×1×1 with stride 1 and no padding.
     *
     * @throws IllegalArgumentException otherwise
     */
    public Pointwise3D(Convolution3D.Builder builder) {
        super(checked(builder));
    }

    private static Convolution3D.Builder checked(Convolution3D.Builder builder) {
        Convolution3D built = builder.build();
        if (!isPointwise(built)) {
            throw new IllegalArgumentException("Pointwise3D is a 1x1x1 convolution of stride 1 without padding or "
                    + "dilation, got kernel " + Arrays.toString(built.getKernelSize()));
        }
        return builder;
    }

    static boolean isPointwise(Convolution3D c) {
        return allOnes(c.getKernelSize())
                && allOnes(c.getStride())
                && allOnes(c.getDilation())
                && (c.getConvolutionMode() == ConvolutionMode.Same || allZeros(c.getPadding()));
    }

    private static boolean allOnes(int[] a) {
        for (int v : a) {
            if (v != 1) {
                return false;
            }
        }
        return true;
    }

    private static boolean allZeros(int[] a) {
        for (int v : a) {
            if (v != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        LayerValidation.assertNInNOutSet("Convolution3D", getLayerName(), layerIndex, getNIn(), getNOut());
        return KernelInstances.wire(
                new Pointwise3DLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }
}
