package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Replicas and resumed runs are rebuilt from DL4J's JSON or cloned: both must give the same network. */
class JsonRoundTripTest {

    /** Every layer of the package, with options off their defaults. */
    private static ComputationGraphConfiguration everyLayer() {
        return TinyGraphs.base(DataType.FLOAT, new Adam(1e-3), InputType.convolutional(8, 8, 2))
                .addLayer("patches", new PatchEmbedding(4, 8, true), "in")
                .addLayer("pos", new PositionEmbedding(9), "patches")
                .addLayer("norm", new LayerNorm(1e-3), "pos")
                .addLayer("attn", new SelfAttention(12, 3, true), "norm")
                .addLayer("first", new FirstTimeStep(), "attn")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .activation(Activation.SOFTMAX)
                                .nOut(3)
                                .build(),
                        "first")
                .setOutputs("out")
                .build();
    }

    @Test
    void configurationSurvivesJson() {
        ComputationGraphConfiguration original = everyLayer();
        String json = original.toJson();
        ComputationGraphConfiguration restored = ComputationGraphConfiguration.fromJson(json);

        assertThat(restored).isEqualTo(original);
        assertThat(restored.hashCode()).isEqualTo(original.hashCode());
        assertThat(restored.toJson()).isEqualTo(json);
        String attentionJson =
                json.substring(json.indexOf("layers.SelfAttention"), json.indexOf("layers.FirstTimeStep"));
        assertThat(attentionJson).contains("\"nIn\" : 8", "\"heads\" : 3").doesNotContain("\"nin\"");
        for (String name : new String[] {"patches", "pos", "norm", "attn", "first"}) {
            Object before = ((LayerVertex) original.getVertices().get(name))
                    .getLayerConf()
                    .getLayer();
            Object after = ((LayerVertex) restored.getVertices().get(name))
                    .getLayerConf()
                    .getLayer();
            assertThat(after).isEqualTo(before).hasSameHashCodeAs(before);
            assertThat(after.toString()).isEqualTo(before.toString());
        }
        SelfAttention attention =
                (SelfAttention) ((LayerVertex) restored.getVertices().get("attn"))
                        .getLayerConf()
                        .getLayer();
        assertThat(attention.getNIn()).isEqualTo(8);
        assertThat(attention.isCausal()).isTrue();
        assertThat(attention.toString()).contains("heads=3", "causal=true");
    }

    @Test
    void differentOptionsMakeDifferentConfigurations() {
        assertThat(new SelfAttention(8, 8, 2, true)).isNotEqualTo(new SelfAttention(8, 8, 2, false));
        assertThat(new SelfAttention(8, 8, 2, true)).isNotEqualTo(new SelfAttention(8, 8, 4, true));
        assertThat(new LayerNorm(4, 1e-5)).isNotEqualTo(new LayerNorm(4, 1e-3));
        assertThat(new PatchEmbedding(2, 8, true)).isNotEqualTo(new PatchEmbedding(2, 8, false));
        assertThat(new PositionEmbedding(8, 4)).isNotEqualTo(new PositionEmbedding(9, 4));
        assertThat(new LayerNorm(4, 1e-3)).isEqualTo(new LayerNorm(4, 1e-3)).hasSameHashCodeAs(new LayerNorm(4, 1e-3));
    }

    @Test
    void rebuiltAndClonedNetworksGiveIdenticalOutputs() {
        ComputationGraph original = new ComputationGraph(everyLayer());
        original.init();
        INDArray x = Nd4j.rand(DataType.FLOAT, 3, 2, 8, 8);
        INDArray y = Nd4j.eye(3).castTo(DataType.FLOAT);
        original.fit(new INDArray[] {x}, new INDArray[] {y}); // so that parameters are off their initial values
        INDArray expected = original.outputSingle(x);

        ComputationGraph rebuilt = new ComputationGraph(ComputationGraphConfiguration.fromJson(
                original.getConfiguration().toJson()));
        rebuilt.init(original.params().dup(), true);
        assertThat(rebuilt.outputSingle(x)).isEqualTo(expected);

        ComputationGraph clone = original.clone();
        assertThat(clone.outputSingle(x)).isEqualTo(expected);

        // a clone trains on exactly as the original does, once it is told the step count: DL4J's clone() restarts
        // it at 0, so Adam's bias correction differs (a plain DenseLayer shows the same)
        clone.getConfiguration().setIterationCount(original.getConfiguration().getIterationCount());
        original.fit(new INDArray[] {x}, new INDArray[] {y});
        clone.fit(new INDArray[] {x}, new INDArray[] {y});
        assertThat(clone.params()).isEqualTo(original.params());
    }

    @Test
    void sameSeedSameParameters() {
        ComputationGraph first = new ComputationGraph(everyLayer());
        first.init();
        ComputationGraph second = new ComputationGraph(everyLayer());
        second.init();
        assertThat(second.params()).isEqualTo(first.params());
        assertThat(first.getParam("pos_pos").stdNumber().doubleValue()).isBetween(0.01, 0.03);
        assertThat(first.getParam("norm_gain").minNumber().doubleValue()).isEqualTo(1.0);
    }
}
