package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The add kernel against DL4J's element-wise Add: the same sum and the same gradient for each input, bit for bit, on
 * the kernel's own path and on the inputs it leaves to DL4J; the gradients are copies, not the incoming array; the
 * configuration survives a copy and the graph's JSON.
 */
class AddKernelTest {

    private static void compare(boolean own, INDArray... inputs) {
        GraphVertex reference = new ElementWiseVertex(ElementWiseVertex.Op.Add)
                .instantiate(null, "ref", 0, null, false, DataType.FLOAT);
        GraphVertex kernel = new AddKernel().instantiate(null, "own", 0, null, false, DataType.FLOAT);
        assertThat(kernel).isInstanceOf(AddKernelVertex.class);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        for (GraphVertex v : new GraphVertex[] {reference, kernel}) {
            VertexIndices[] from = new VertexIndices[inputs.length];
            for (int i = 0; i < inputs.length; i++) {
                from[i] = new VertexIndices(i + 1, 0);
            }
            v.setInputVertices(from);
        }
        for (int i = 0; i < inputs.length; i++) {
            reference.setInput(i, inputs[i], ws);
            kernel.setInput(i, inputs[i], ws);
        }
        INDArray expected = reference.doForward(true, ws).dup();
        INDArray actual = kernel.doForward(true, ws);
        assertThat(actual.shape()).isEqualTo(expected.shape());
        assertThat(values(actual)).containsExactly(values(expected));
        INDArray dy = Nd4j.randn(DataType.FLOAT, expected.shape());
        reference.setEpsilon(dy);
        kernel.setEpsilon(dy);
        INDArray[] expectedGradients = reference.doBackward(false, ws).getSecond();
        INDArray[] gradients = kernel.doBackward(false, ws).getSecond();
        assertThat(gradients).hasSize(inputs.length);
        for (int i = 0; i < inputs.length; i++) {
            assertThat(gradients[i].shape()).isEqualTo(expectedGradients[i].shape());
            assertThat(values(gradients[i]))
                    .as("gradient of input %d", i)
                    .containsExactly(values(expectedGradients[i]));
            assertThat(gradients[i]).as("a copy of the incoming gradient").isNotSameAs(dy);
        }
        if (own) {
            gradients[0].addi(1f);
            assertThat(values(gradients[1])).as("each input its own copy").containsExactly(values(dy));
        }
    }

    /** Row-major values, compared exactly (INDArray.equals allows a tolerance). */
    private static float[] values(INDArray a) {
        return a.dup('c').data().asFloat();
    }

    @Test
    void sequencesImagesAndOneChannelVolumesAddAsDl4jAdds() {
        Nd4j.getRandom().setSeed(3);
        compare(true, Nd4j.randn(DataType.FLOAT, 2, 8, 16), Nd4j.randn(DataType.FLOAT, 2, 8, 16));
        compare(
                true,
                Nd4j.randn(DataType.FLOAT, 3, 4, 5, 6),
                Nd4j.randn(DataType.FLOAT, 3, 4, 5, 6),
                Nd4j.randn(DataType.FLOAT, 3, 4, 5, 6));
        // more than one chunk, and a last chunk that is short
        compare(true, Nd4j.randn(DataType.FLOAT, 2, 1, 17, 16, 16), Nd4j.randn(DataType.FLOAT, 2, 1, 17, 16, 16));
    }

    @Test
    void viewsBroadcastsAndOtherDataTypesAreLeftToDl4j() {
        Nd4j.getRandom().setSeed(4);
        compare(false, Nd4j.randn(DataType.FLOAT, 3, 6, 5).permute(0, 2, 1), Nd4j.randn(DataType.FLOAT, 3, 5, 6));
        compare(false, Nd4j.randn(DataType.FLOAT, 4, 5), Nd4j.randn(DataType.FLOAT, 1, 5));
        compare(false, Nd4j.randn(DataType.DOUBLE, 2, 3), Nd4j.randn(DataType.DOUBLE, 2, 3));
    }

    @Test
    void theConfigurationSurvivesACopyAndTheGraphsJson() {
        assertThat(new AddKernel().clone()).isEqualTo(new AddKernel()).isInstanceOf(AddKernel.class);
        assertThat(new AddKernel()).isNotEqualTo(new ElementWiseVertex(ElementWiseVertex.Op.Add));
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .graphBuilder()
                .addInputs("a", "b")
                .setInputTypes(InputType.feedForward(3), InputType.feedForward(3))
                .addVertex("sum", new AddKernel(), "a", "b")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .nOut(2)
                                .build(),
                        "sum")
                .setOutputs("out")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back.getVertices().get("sum")).isInstanceOf(AddKernel.class);
        assertThat(((AddKernel) back.getVertices().get("sum")).getOp()).isEqualTo(ElementWiseVertex.Op.Add);
        assertThat(back).isEqualTo(conf);
    }
}
