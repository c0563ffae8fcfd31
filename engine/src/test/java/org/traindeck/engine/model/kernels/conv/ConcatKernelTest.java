package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.graph.vertex.impl.MergeVertex;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** The concat kernel against DL4J's MergeVertex: the same output and the same gradient for each input, exactly. */
class ConcatKernelTest {

    private static void compare(INDArray... inputs) {
        GraphVertex reference = new MergeVertex(null, "ref", 0, DataType.FLOAT, 1);
        GraphVertex kernel = new ConcatKernel().instantiate(null, "own", 0, null, false, DataType.FLOAT);
        assertThat(kernel).isInstanceOf(ConcatKernelVertex.class);
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
        assertThat(kernel.doForward(true, ws)).isEqualTo(expected);
        INDArray dy = Nd4j.randn(DataType.FLOAT, expected.shape());
        reference.setEpsilon(dy);
        kernel.setEpsilon(dy);
        INDArray[] expectedGradients = reference.doBackward(false, ws).getSecond();
        INDArray[] gradients = kernel.doBackward(false, ws).getSecond();
        assertThat(gradients).hasSize(inputs.length);
        for (int i = 0; i < inputs.length; i++) {
            assertThat(gradients[i]).as("gradient of input %d", i).isEqualTo(expectedGradients[i]);
        }
    }

    @Test
    void imagesJoinAlongTheChannels() {
        compare(
                Nd4j.randn(DataType.FLOAT, 3, 5, 4, 6),
                Nd4j.randn(DataType.FLOAT, 3, 2, 4, 6),
                Nd4j.randn(DataType.FLOAT, 3, 1, 4, 6));
    }

    @Test
    void featuresAndSequencesJoinToo() {
        compare(Nd4j.randn(DataType.FLOAT, 4, 7), Nd4j.randn(DataType.FLOAT, 4, 3));
        compare(Nd4j.randn(DataType.FLOAT, 2, 3, 9), Nd4j.randn(DataType.FLOAT, 2, 4, 9));
    }

    @Test
    void aViewInputJoinsAsItsValues() {
        compare(Nd4j.randn(DataType.FLOAT, 3, 6, 5, 2).permute(0, 3, 2, 1), Nd4j.randn(DataType.FLOAT, 3, 4, 5, 6));
    }

    @Test
    void otherDataTypesAreLeftToDl4j() {
        compare(Nd4j.randn(DataType.DOUBLE, 2, 3), Nd4j.randn(DataType.DOUBLE, 2, 2));
    }

    @Test
    void theMergeAxisSurvivesACopy() {
        ConcatKernel k = new ConcatKernel();
        k.setMergeAxis(3);
        assertThat(k.clone().getMergeAxis()).isEqualTo(3);
        assertThat(k.clone()).isEqualTo(k).isNotEqualTo(new ConcatKernel());
    }
}
