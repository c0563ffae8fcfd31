package org.traindeck.engine.model.fit;

import java.util.HashSet;
import java.util.Set;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.traindeck.engine.model.kernels.conv.ConvKernel;
import org.traindeck.engine.model.kernels.conv.MaxPoolKernel;
import org.traindeck.engine.model.kernels.conv.UpsampleKernel;

/**
 * The layers of a graph that run on TrainDeck's convolution, max-pool and upsample kernels ({@code layers}), which
 * make none of the working memory DL4J's memory report gives their DL4J layers, and among them the convolutions with a
 * relu ({@code keptGradients}), which keep a buffer of their output's size for the gradient through the relu.
 */
record ConvKernels(Set<String> layers, Set<String> keptGradients) {

    static final ConvKernels NONE = new ConvKernels(Set.of(), Set.of());

    static ConvKernels of(ComputationGraphConfiguration conf) {
        Set<String> layers = new HashSet<>();
        Set<String> keptGradients = new HashSet<>();
        conf.getVertices().forEach((name, v) -> {
            Layer layer = v instanceof LayerVertex l ? l.getLayerConf().getLayer() : null;
            if (layer instanceof ConvKernel || layer instanceof MaxPoolKernel || layer instanceof UpsampleKernel) {
                layers.add(name);
            }
            if (layer instanceof ConvKernel c && c.getActivationFn() instanceof ActivationReLU) {
                keptGradients.add(name);
            }
        });
        return new ConvKernels(Set.copyOf(layers), Set.copyOf(keptGradients));
    }
}
