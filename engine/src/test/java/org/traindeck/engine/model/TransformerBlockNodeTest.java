package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;

/** The transformerBlock node in a user's graph and in the vit and gpt shorthands, on either kernel. */
class TransformerBlockNodeTest {

    @TempDir
    Path dir;

    private static String layers(String blockOptions) {
        return """
                {"type": "patches", "size": 2, "units": 8, "classToken": true},
                {"name": "blk", "type": "transformerBlock", "heads": 2, "mlpRatio": 2%s},
                {"type": "firstToken"}""".formatted(blockOptions);
    }

    @Test
    void aGraphNodeBuildsOneFusedLayerThatTrains() {
        ModelSummary s = built(layers(""), dir).summary();
        assertThat(row(s, "blk").type()).isEqualTo("transformerBlock");
        assertThat(shapeOf(s, "blk")).isEqualTo("[17, 8]");
        ComputationGraphConfiguration conf =
                ModelCompiler.configuration(model(layers(""), dir), GraphFixture.IMAGES, 1);
        assertThat(conf.getVertices()).containsKey("blk").doesNotContainKey("blk_norm1");
        assertLearns(train(conf, GraphFixture.IMAGES, 8));
    }

    @Test
    void kernelDl4jSpellsTheBlockOutWithTheSameParameterCount() {
        ComputationGraphConfiguration own = ModelCompiler.configuration(model(layers(""), dir), GraphFixture.IMAGES, 1);
        ComputationGraphConfiguration reference =
                ModelCompiler.configuration(model(layers(", \"kernel\": \"dl4j\""), dir), GraphFixture.IMAGES, 1);
        assertThat(reference.getVertices())
                .containsKeys("blk_norm1", "blk_attention", "blk_norm2", "blk_mlp1", "blk_mlp2", "blk");
        long ownParams = parameters(own);
        assertThat(parameters(reference)).isEqualTo(ownParams);
    }

    private static long parameters(ComputationGraphConfiguration conf) {
        ComputationGraph net = new ComputationGraph(conf);
        net.init();
        return net.numParams();
    }

    @Test
    void headsThatDoNotDivideTheWidthAreReportedAtTheNode() {
        ConfigProblem p = firstError("""
                {"type": "patches", "size": 2, "units": 8, "classToken": true},
                {"name": "blk", "type": "transformerBlock", "heads": 3},
                {"type": "firstToken"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message()).contains("3 does not divide 8");
    }

    @Test
    void shorthandsEmitOneBlockNodePerBlockUnlessKernelDl4j() {
        ModelConfig.Graph own = ModelCompiler.expanded(new ModelConfig.Gpt(16, 2, 2, 4, 0.1, true, null));
        // the position kernel applies the dropout itself
        assertThat(own.layers())
                .extracting(l -> l.type())
                .containsExactly("embedding", "positionEmbedding", "transformerBlock", "transformerBlock", "layerNorm");
        assertThat(own.layers().get(1).options()).containsEntry("dropout", 0.1).doesNotContainKey("kernel");
        assertThat(own.layers().get(2).name()).isEqualTo("block1");
        assertThat(own.layers().get(2).options())
                .containsEntry("recompute", true)
                .containsEntry("causal", true)
                .containsEntry("dropout", 0.1);
        ModelConfig.Graph reference = ModelCompiler.expanded(new ModelConfig.Gpt(16, 2, 2, 4, 0.1, true, "dl4j"));
        assertThat(reference.layers())
                .extracting(l -> l.name())
                .contains("positions_dropout", "block1_norm1", "block1_attention", "block2_residual2");
        assertThat(reference.layers().get(0).options()).containsEntry("kernel", "dl4j");
        assertThat(reference.layers().get(1).options())
                .containsEntry("kernel", "dl4j")
                .doesNotContainKey("dropout");
        ModelConfig.Graph vit = ModelCompiler.expanded(new ModelConfig.Vit(2, 16, 1, 2, 2, true, 0, false, "dl4j"));
        assertThat(vit.layers().get(0).options()).containsEntry("kernel", "dl4j");
    }

    @Test
    void theFusedLayerTakesItsOptions() {
        ComputationGraphConfiguration conf = ModelCompiler.configuration(
                model(layers(", \"hidden\": 5, \"causal\": true, \"dropout\": 0.2, \"recompute\": true"), dir),
                GraphFixture.IMAGES,
                1);
        TransformerBlock b = (TransformerBlock)
                ((LayerVertex) conf.getVertices().get("blk")).getLayerConf().getLayer();
        assertThat(b.getHidden()).isEqualTo(5);
        assertThat(b.isCausal()).isTrue();
        assertThat(b.getDropout()).isEqualTo(0.2);
        assertThat(b.isRecompute()).isTrue();
        assertThat(b.getWidth()).isEqualTo(8);
    }
}
