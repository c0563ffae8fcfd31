package org.traindeck.engine.model.nodes;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.LayerValidation;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A conv2d node with {@code "recompute": true}: DL4J's own convolution, whose cache mode is pinned to NONE whatever the
 * network's. The model runs with {@code CacheMode.DEVICE}, under which a convolution keeps a copy of its
 * pre-activation (and, without oneDNN, its im2col matrix, kernel-area times its input) from the forward pass to the
 * backward pass; without the cache the backward pass runs the convolution forward again from the kept input, a few
 * examples at a time ({@link ExampleSlices}; in a chain, its forward pass too: {@link RecomputeChains}). Same
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
        return KernelInstances.wire(
                new Uncached(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    /** DL4J's convolution that never caches its forward pass. */
    static final class Uncached extends org.deeplearning4j.nn.layers.convolution.ConvolutionLayer
            implements ExampleSlices.Sliceable {

        private final RecomputeLink link = new RecomputeLink();

        Uncached(NeuralNetConfiguration conf, DataType dataType) {
            super(conf, dataType);
            cacheMode = CacheMode.NONE;
        }

        @Override
        public void setCacheMode(CacheMode mode) {
            super.setCacheMode(CacheMode.NONE);
        }

        @Override
        public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
            return ExampleSlices.backprop(this, epsilon, workspaceMgr);
        }

        @Override
        public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
            return ExampleSlices.activate(this, training, workspaceMgr);
        }

        @Override
        public INDArray wholeActivate(boolean training, LayerWorkspaceMgr workspaces) {
            return super.activate(training, workspaces);
        }

        @Override
        public RecomputeLink link() {
            return link;
        }

        @Override
        public void useInput(INDArray in) {
            input = in;
        }

        @Override
        public Pair<Gradient, INDArray> wholeBackprop(INDArray epsilon, LayerWorkspaceMgr workspaces) {
            return super.backpropGradient(epsilon, workspaces);
        }
    }
}
