package org.traindeck.engine.model.nodes;

import java.util.Collection;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.LayerValidation;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A conv2d node with {@code "recompute": true}: DL4J's own convolution, whose cache mode is pinned to NONE whatever the
 * network's. The model runs with {@code CacheMode.DEVICE}, under which a convolution keeps a copy of its
 * pre-activation (and, without oneDNN, its im2col matrix, kernel-area times its input) from the forward pass to the
 * backward pass; without the cache the backward pass runs the convolution forward again from the kept input. Same
 * parameters, names and layout as a plain conv2d: only the memory kept between the passes differs.
 */
public class RecomputedConvolution2D extends ConvolutionLayer implements RecomputingLayer {

    /** For DL4J's JSON. */
    public RecomputedConvolution2D() {}

    /** A layer as {@code builder} would build it (after the builder's own checks). */
    public RecomputedConvolution2D(ConvolutionLayer.Builder builder) {
        super(checked(builder));
    }

    private static ConvolutionLayer.Builder checked(ConvolutionLayer.Builder builder) {
        builder.build();
        return builder;
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        LayerValidation.assertNInNOutSet("ConvolutionLayer", getLayerName(), layerIndex, getNIn(), getNOut());
        Uncached ret = new Uncached(conf, networkDataType);
        ret.setListeners(listeners);
        ret.setIndex(layerIndex);
        ret.setParamsViewArray(layerParamsView);
        Map<String, INDArray> paramTable = initializer().init(conf, layerParamsView, initializeParams);
        ret.setParamTable(paramTable);
        ret.setConf(conf);
        return ret;
    }

    /** DL4J's convolution that never caches its forward pass. */
    static final class Uncached extends org.deeplearning4j.nn.layers.convolution.ConvolutionLayer {

        Uncached(NeuralNetConfiguration conf, DataType dataType) {
            super(conf, dataType);
            cacheMode = CacheMode.NONE;
        }

        @Override
        public void setCacheMode(CacheMode mode) {
            super.setCacheMode(CacheMode.NONE);
        }
    }
}
