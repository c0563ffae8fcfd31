package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

/** Impossible options are refused with a message naming the layer and the sizes, before any native code runs. */
class BadOptionsTest {

    @Test
    void headsMustDivideTheWidth() {
        assertThatThrownBy(() -> new SelfAttention(10, 3, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 heads do not divide the projected width nOut=10");
    }

    @Test
    void headsThatDoNotDivideAreRefusedAtShapeTimeToo() {
        // a configuration edited by hand (or JSON) never went through the constructor
        String json = buildConfig(InputType.recurrent(8, 5), new SelfAttention(8, 2, false))
                .toJson()
                .replace("\"heads\" : 2", "\"heads\" : 3");
        assertThat(json).contains("\"heads\" : 3");
        ComputationGraphConfiguration edited = ComputationGraphConfiguration.fromJson(json);
        assertThatThrownBy(() -> edited.getLayerActivationTypes(InputType.recurrent(8, 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heads do not divide");
    }

    @Test
    void patchMustDivideTheImage() {
        assertThatThrownBy(() -> buildConfig(InputType.convolutional(10, 12, 3), new PatchEmbedding(4, 8, true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("patch size 4 does not divide the image size 10x12");
    }

    @Test
    void sequenceLongerThanMaxLengthIsRefusedAtShapeTime() {
        assertThatThrownBy(() -> buildConfig(InputType.recurrent(4, 10), new PositionEmbedding(8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequence length 10 exceeds maxLength 8");
    }

    @Test
    void sequenceLongerThanMaxLengthIsRefusedAtRunTime() {
        // length unknown when configured: checked on the data
        ComputationGraph graph =
                TinyGraphs.chain(DataType.FLOAT, new NoOp(), InputType.recurrent(4), true, 2, new PositionEmbedding(8));
        assertThatThrownBy(() -> graph.outputSingle(Nd4j.rand(DataType.FLOAT, 2, 4, 9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequence length 9 exceeds maxLength 8");
        assertThat(graph.outputSingle(Nd4j.rand(DataType.FLOAT, 2, 4, 8)).shape())
                .containsExactly(2, 2, 8);
    }

    @Test
    void wrongInputKindsAreRefused() {
        assertThatThrownBy(() -> buildConfig(InputType.feedForward(8), new SelfAttention(8, 2, true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SelfAttention \"l0\"")
                .hasMessageContaining("sequences");
        assertThatThrownBy(() -> buildConfig(InputType.recurrent(3, 8), new PatchEmbedding(2, 8, false)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channels-first images");
        assertThatThrownBy(() -> buildConfig(InputType.convolutional(4, 4, 3, CNN2DFormat.NHWC), new LayerNorm()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NCHW");
        assertThatThrownBy(() -> buildConfig(InputType.convolutional3D(2, 2, 2, 3), new LayerNorm()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("feed-forward, sequence");
        assertThatThrownBy(() -> buildConfig(InputType.feedForward(8), new FirstTimeStep()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequences");
    }

    @Test
    void nonsenseNumbersAreRefused() {
        assertThatThrownBy(() -> new LayerNorm(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epsilon");
        assertThatThrownBy(() -> new PatchEmbedding(0, 8, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PositionEmbedding(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SelfAttention(0, 1, true)).isInstanceOf(IllegalArgumentException.class);
    }

    private static ComputationGraphConfiguration buildConfig(InputType input, Layer layer) {
        return TinyGraphs.base(DataType.FLOAT, new NoOp(), input)
                .addLayer("l0", layer, "in")
                .setOutputs("l0")
                .build();
    }
}
