package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A conv + BatchNorm + relu + dense + BatchNorm network on 5×5×2 images, with DL4J's BatchNorm or the kernel. The
 * layers before a BatchNorm have no bias: its gradient would be rounding noise, which Adam scales up to steps of the
 * learning rate in directions that differ between two equally right computations.
 */
final class BatchNormNets {

    private BatchNormNets() {}

    static ComputationGraphConfiguration conf(DataType type, boolean kernel) {
        ComputationGraphConfiguration c = new NeuralNetConfiguration.Builder()
                .seed(3)
                .dataType(type)
                .updater(new Adam(1e-2))
                .graphBuilder()
                .addInputs("in")
                .addLayer(
                        "conv",
                        new ConvolutionLayer.Builder(3, 3)
                                .nOut(4)
                                .convolutionMode(ConvolutionMode.Same)
                                .activation(Activation.IDENTITY)
                                .hasBias(false)
                                .build(),
                        "in")
                .addLayer("bn0", new BatchNormalization.Builder().build(), "conv")
                .addLayer(
                        "relu",
                        new ActivationLayer.Builder()
                                .activation(Activation.RELU)
                                .build(),
                        "bn0")
                .addLayer(
                        "dense",
                        new DenseLayer.Builder()
                                .nOut(6)
                                .activation(Activation.TANH)
                                .hasBias(false)
                                .build(),
                        "relu")
                .addLayer("bn1", new BatchNormalization.Builder().decay(0.8).build(), "dense")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .nOut(3)
                                .activation(Activation.SOFTMAX)
                                .build(),
                        "bn1")
                .setOutputs("out")
                .setInputTypes(InputType.convolutional(5, 5, 2))
                .build();
        if (kernel) {
            c.getVertices().values().forEach(v -> {
                if (v instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof BatchNormalization bn) {
                    l.getLayerConf().setLayer(BatchNormKernel.of(bn));
                }
            });
        }
        return c;
    }
}
