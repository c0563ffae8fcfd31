package org.traindeck.engine.model;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.layers.convolution.ConvolutionLayer;
import org.deeplearning4j.nn.layers.convolution.DepthwiseConvolution2DLayer;
import org.deeplearning4j.nn.layers.convolution.SeparableConvolution2DLayer;
import org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNConvHelper;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNSubsamplingHelper;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * DL4J 1.0.0-M2.1's oneDNN layer helpers, switched on by TrainDeck. DL4J never enables them itself: its check
 * ({@code BaseMKLDNNHelper.mklDnnEnabled()}) looks for {@code org.nd4j.nativeblas.Nd4jCpu$Environment#isUseMKLDNN},
 * which M2.1 renamed, so every convolution ran through DL4J's own im2col path. TrainDeck installs the helpers on each
 * convolution and pooling layer of every model it trains (the helper fields are set after the layers are built),
 * and checks after training that none of them fell back to the built-in path.
 */
public final class OneDnnHelpers {

    private static final Field CONV_HELPER = field(ConvolutionLayer.class, "helper");
    private static final Field CONV_FAILS = field(ConvolutionLayer.class, "helperCountFail");
    private static final Field POOL_HELPER = field(SubsamplingLayer.class, "helper");
    private static final Field POOL_FAILS = field(SubsamplingLayer.class, "helperCountFail");

    private OneDnnHelpers() {}

    private static Field field(Class<?> owner, String name) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException | RuntimeException e) {
            return null;
        }
    }

    /** Why the helpers cannot be used with this DL4J (null when they can). */
    public static String unusableReason() {
        return CONV_HELPER == null || POOL_HELPER == null || CONV_FAILS == null || POOL_FAILS == null
                ? "this DL4J's layers have no helper fields where TrainDeck expects them"
                : null;
    }

    /** Installs the helpers on every convolution and pooling layer of a float32 network; returns how many. */
    public static int install(ComputationGraph net) {
        if (unusableReason() != null || net.getConfiguration().getDataType() != DataType.FLOAT) {
            return 0;
        }
        int installed = 0;
        try {
            for (Layer layer : net.getLayers()) {
                if (layer instanceof ConvolutionLayer conv && usesHelper(conv) && CONV_HELPER.get(conv) == null) {
                    CONV_HELPER.set(conv, new MKLDNNConvHelper(DataType.FLOAT));
                    installed++;
                } else if (layer instanceof SubsamplingLayer pool && POOL_HELPER.get(pool) == null) {
                    POOL_HELPER.set(pool, new MKLDNNSubsamplingHelper(DataType.FLOAT));
                    installed++;
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot install the oneDNN helpers", e);
        }
        return installed;
    }

    /** Separable and depthwise convolutions run their own ops and never call the helper: installing one would only miscount. */
    private static boolean usesHelper(ConvolutionLayer conv) {
        return !(conv instanceof SeparableConvolution2DLayer) && !(conv instanceof DepthwiseConvolution2DLayer);
    }

    /** The layers whose oneDNN helper is installed. */
    public static List<String> layersWithHelpers(ComputationGraph net) {
        List<String> out = new ArrayList<>();
        try {
            for (Layer layer : net.getLayers()) {
                if (layer instanceof ConvolutionLayer conv && CONV_HELPER.get(conv) instanceof MKLDNNConvHelper
                        || layer instanceof SubsamplingLayer pool
                                && POOL_HELPER.get(pool) instanceof MKLDNNSubsamplingHelper) {
                    out.add(layer.conf().getLayer().getLayerName());
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /**
     * The layers where oneDNN failed and DL4J went back to its built-in path for the rest of the run (DL4J logs the
     * failure once and counts it).
     */
    public static List<String> layersThatFellBack(ComputationGraph net) {
        List<String> out = new ArrayList<>();
        try {
            for (Layer layer : net.getLayers()) {
                if (layer instanceof ConvolutionLayer conv && CONV_FAILS.getInt(conv) > 0
                        || layer instanceof SubsamplingLayer pool && POOL_FAILS.getInt(pool) > 0) {
                    out.add(layer.conf().getLayer().getLayerName());
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
