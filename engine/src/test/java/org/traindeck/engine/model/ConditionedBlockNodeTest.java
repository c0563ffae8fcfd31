package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.model.kernels.transformer.BlockInputsVertex;

/** A transformerBlock's "condition" and "context" and the crossAttention node, from the config to training. */
class ConditionedBlockNodeTest {

    @TempDir
    Path dir;

    private static String layers(String condition, int contextUnits, String blockOptions) {
        return """
                {"name": "tokens", "type": "patches", "size": 2, "units": 8},
                {"name": "ctx", "type": "patches", "inputs": "input", "size": 4, "units": %d},
                {"name": "pooled", "type": "globalPool", "inputs": "tokens", "mode": "avg"},
                {"name": "cond", "type": "dense", "inputs": "pooled", "units": 6, "activation": "relu"},
                {"name": "blk", "type": "transformerBlock", "inputs": "tokens", "heads": 2, "condition": "%s",
                 "context": "ctx"%s},
                {"name": "cross", "type": "crossAttention", "inputs": "blk", "context": "ctx", "heads": 2},
                {"type": "globalPool", "mode": "avg"}""".formatted(contextUnits, condition, blockOptions);
    }

    @Test
    void aConditionedCrossAttendingBlockAndACrossAttentionBuildAndTrain() {
        ModelSummary s = built(layers("cond", 8, ""), dir).summary();
        assertThat(shapeOf(s, "blk")).isEqualTo("[16, 8]");
        assertThat(shapeOf(s, "cross")).isEqualTo("[16, 8]");
        ComputationGraphConfiguration conf = ModelCompiler.configuration(
                model(layers("cond", 8, ", \"dropout\": 0.1"), dir), GraphFixture.IMAGES, 1);
        assertThat(conf.getVertices().get("blk_packed")).isEqualTo(new BlockInputsVertex(true, true));
        assertThat(conf.getVertexInputs().get("blk_packed")).containsExactly("tokens", "cond", "ctx");
        assertThat(conf.getVertexInputs().get("cross_packed")).containsExactly("blk", "ctx");
        assertLearns(train(conf, GraphFixture.IMAGES, 12));
        // the configuration round-trips through DL4J's JSON (checkpoints keep it so)
        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
    }

    @Test
    void anUnknownConditionIsReportedAtItsOptionWithASuggestion() {
        ConfigProblem p = firstError(layers("conf", 8, ""), dir);
        assertThat(p.path()).isEqualTo("model.layers[4].condition");
        assertThat(p.message()).contains("no layer is named \"conf\"").contains("cond");
    }

    @Test
    void aContextOfAnotherWidthIsReportedAtItsOptionWithTheFix() {
        ConfigProblem p = firstError(layers("cond", 4, ""), dir);
        assertThat(p.path()).isEqualTo("model.layers[4].context");
        assertThat(p.message()).contains("[4 steps, 4 features]").contains("project the context to 8 features");
    }

    @Test
    void aSequenceAsConditionIsReportedWithTheFix() {
        ConfigProblem p = firstError("""
                {"name": "tokens", "type": "patches", "size": 2, "units": 8},
                {"name": "blk", "type": "transformerBlock", "heads": 2, "condition": "tokens"},
                {"type": "globalPool", "mode": "avg"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[1].condition");
        assertThat(p.message()).contains("one vector per sample").contains("globalPool");
    }

    @Test
    void theReferenceKernelRefusesAConditionedBlock() {
        ConfigProblem p = firstError(layers("cond", 8, ", \"kernel\": \"dl4j\""), dir);
        assertThat(p.path()).isEqualTo("model.layers[4]");
        assertThat(p.message()).contains("only TrainDeck's own kernel").contains("\"kernel\": \"dl4j\"");
    }
}
