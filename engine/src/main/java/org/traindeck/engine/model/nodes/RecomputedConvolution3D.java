package org.traindeck.engine.model.nodes;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.LayerValidation;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.Convolution3DLayer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;

/**
 * A conv3d node with {@code "recompute": true}: DL4J's 3D convolution with its cache mode pinned to NONE. DL4J's
 * Convolution3DLayer computes its pre-activation again in the backward pass anyway, yet under the network's
 * {@code CacheMode.DEVICE} its forward pass still stores a copy of it (ConvolutionLayer.activate), which nothing reads:
 * without the cache that copy, one output's worth of memory per node, is not kept. Its backward pass (and, in a
 * chain, its forward pass) runs a few examples at a time ({@link ExampleSlices}, {@link RecomputeChains}). Same
 * parameters, names and layout as a plain conv3d.
 */
public class RecomputedConvolution3D extends Convolution3D implements RecomputingLayer {

    /** For DL4J's JSON. */
    public RecomputedConvolution3D() {}

    /** A layer as {@code builder} would build it (after the builder's own checks). */
    public RecomputedConvolution3D(Convolution3D.Builder builder) {
        super(checked(builder));
    }

    private static Convolution3D.Builder checked(Convolution3D.Builder builder) {
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
        LayerValidation.assertNInNOutSet("Convolution3D", getLayerName(), layerIndex, getNIn(), getNOut());
        return KernelInstances.wire(
                new Uncached(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    /** DL4J's 3D convolution that never caches its forward pass. */
    static final class Uncached extends Convolution3DLayer implements ExampleSlices.Sliceable {

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
