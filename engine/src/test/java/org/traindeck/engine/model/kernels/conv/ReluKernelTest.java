package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** The relu kernel against DL4J's ActivationLayer: the same output and input gradient, element for element. */
public class ReluKernelTest {

    /** A layer without parameters (DenseKernelTest's helper gives it a gradient view, which it refuses). */
    public static Layer instantiate(org.deeplearning4j.nn.conf.layers.Layer layerConf) {
        NeuralNetConfiguration conf = new NeuralNetConfiguration.Builder()
                .dataType(DataType.FLOAT)
                .layer(layerConf)
                .build();
        return conf.getLayer().instantiate(conf, java.util.List.of(), 0, null, true, DataType.FLOAT);
    }

    private static ActivationLayer relu() {
        return new ActivationLayer.Builder().activation(Activation.RELU).build();
    }

    private static void compare(INDArray x) {
        Layer ref = instantiate(relu());
        Layer k = instantiate(ReluKernel.of(relu()));
        assertThat(ref).isExactlyInstanceOf(org.deeplearning4j.nn.layers.ActivationLayer.class);
        assertThat(k).isInstanceOf(ReluKernelLayer.class);
        INDArray eps = Nd4j.randn(DataType.FLOAT, x.shape());
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        ref.setInput(x, ws);
        k.setInput(x, ws);
        INDArray expected = ref.activate(true, ws).dup();
        assertThat(k.activate(true, ws)).isEqualTo(expected);
        INDArray expectedGradient = ref.backpropGradient(eps, ws).getSecond().dup();
        assertThat(k.backpropGradient(eps, ws).getSecond()).isEqualTo(expectedGradient);
    }

    @Test
    void imagesLongerThanAChunkMatchDl4jsLayerExactly() {
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 5, 17, 19);
        x.putScalar(7, 0f);
        x.putScalar(8, -0f);
        compare(x);
    }

    @Test
    void aViewInputMatches() {
        compare(Nd4j.randn(DataType.FLOAT, 4, 6, 5).permute(0, 2, 1));
    }

    @Test
    void onlyAPlainReluIsTaken() {
        assertThat(ReluKernel.convertible(relu())).isTrue();
        assertThat(ReluKernel.convertible(new ActivationLayer.Builder()
                        .activation(Activation.TANH)
                        .build()))
                .isFalse();
        assertThat(ReluKernel.convertible(new ActivationLayer.Builder()
                        .activation(new ActivationReLU(6.0, 0.0, 0.0))
                        .build()))
                .isFalse();
        assertThat(ReluKernel.convertible(new ActivationLayer.Builder()
                        .activation(Activation.RELU)
                        .dropOut(0.5)
                        .build()))
                .isFalse();
    }

    @Test
    void configurationSurvivesJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.convolutional(4, 4, 2))
                .addLayer("r", ReluKernel.of(relu()), "in")
                .setOutputs("r")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(((org.deeplearning4j.nn.conf.graph.LayerVertex)
                                back.getVertices().get("r"))
                        .getLayerConf()
                        .getLayer())
                .isExactlyInstanceOf(ReluKernel.class);
    }
}
