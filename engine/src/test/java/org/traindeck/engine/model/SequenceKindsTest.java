package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.graph.GraphProblemsException;

/**
 * lstm, bidirectional and embedding. The image rows read as a sequence (reshape [8, 8]) stand in for sequence data;
 * token ids have no source yet, so the embedding's model is compiled against token input directly.
 */
class SequenceKindsTest {

    @TempDir
    Path dir;

    private static final String RECURRENT = """
            {"type": "reshape", "shape": [8, 8]},
            {"name": "seq", "type": "lstm", "units": 5},
            {"name": "both", "type": "bidirectional", "units": 3},
            {"name": "sum", "type": "bidirectional", "units": 3, "mode": "add"},
            {"name": "last", "type": "lstm", "units": 4, "returnSequences": false}""";

    /** 20 token ids, 6 steps, one of 20 tokens to predict at every step. */
    private static final ModelInput TOKENS = ModelInput.tokens(20, 6, Task.SEQUENCE, 20);

    private static final String EMBEDDED = """
            {"name": "tokens", "type": "embedding", "units": 8},
            {"name": "rnn", "type": "lstm", "units": 8}""";

    @Test
    void recurrentLayersSayTheirShapesAndConfigTypes() {
        ModelSummary s = built(RECURRENT, dir).summary();

        assertThat(row(s, "seq").type()).isEqualTo("lstm");
        assertThat(shapeOf(s, "seq")).isEqualTo("[8, 5]");
        assertThat(row(s, "seq").parameters()).isEqualTo(4 * (8 * 5 + 5 * 5 + 5));
        assertThat(row(s, "both").type()).isEqualTo("bidirectional");
        assertThat(shapeOf(s, "both")).isEqualTo("[8, 6]");
        assertThat(row(s, "both").parameters()).isEqualTo(2 * 4 * (5 * 3 + 3 * 3 + 3));
        assertThat(shapeOf(s, "sum")).isEqualTo("[8, 3]");
        assertThat(shapeOf(s, "last")).isEqualTo("[4]");
        assertThat(row(s, "output").type()).isEqualTo("SoftmaxOutputHead");
    }

    @Test
    void recurrentLayersTrainOnSequences() {
        ComputationGraphConfiguration conf = ModelCompiler.configuration(model(RECURRENT, dir), GraphFixture.IMAGES, 1);
        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
        assertLearns(train(conf, GraphFixture.IMAGES, 8));
    }

    @Test
    void anLstmOnAnImageSaysWhatToAdd() {
        ConfigProblem p =
                firstError("{\"name\": \"rnn\", \"type\": \"lstm\", \"units\": 4, \"returnSequences\": false}", dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message()).contains("layers[0] 'rnn' takes a sequence [steps, features] but gets an image 8×8×1");
    }

    @Test
    void aBidirectionalLstmOnAVectorSaysToReshape() {
        ConfigProblem p = firstError("""
                {"type": "flatten"},
                {"name": "both", "type": "bidirectional", "units": 4, "returnSequences": false}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message())
                .contains("layers[1] 'both' takes a sequence [steps, features] but gets a vector of 64 features")
                .contains("\"reshape\"");
    }

    @Test
    void anEmbeddingTurnsTokenIdsIntoASequenceAndTrainsOnNextTokens() {
        ModelConfig model = model(EMBEDDED, dir);
        ComputationGraphConfiguration conf = ModelCompiler.configuration(model, TOKENS, 1);
        ModelSummary s = ModelSummary.of(conf, TOKENS, model);

        assertThat(shapeOf(s, "input")).isEqualTo("[6 token ids < 20]");
        assertThat(row(s, "tokens").type()).isEqualTo("embedding");
        assertThat(shapeOf(s, "tokens")).isEqualTo("[6, 8]");
        assertThat(row(s, "tokens").parameters()).isEqualTo(20 * 8);
        assertThat(shapeOf(s, "output")).isEqualTo("[6, 20]");
        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
        assertLearns(train(conf, TOKENS, 8));
    }

    @Test
    void anEmbeddingOnImagesSaysItTakesTokenIds() {
        ConfigProblem p = firstError(
                "{\"name\": \"emb\", \"type\": \"embedding\", \"units\": 4}, {\"type\": \"globalPool\"}", dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message())
                .contains("layers[0] 'emb' looks up a vector per token id, so it takes token ids")
                .contains("but gets an image 8×8×1");
    }

    @Test
    void anLstmOnTokenIdsSaysToEmbedThemFirst() {
        GraphProblemsException e = catchThrowableOfType(
                () -> ModelCompiler.configuration(
                        model("{\"name\": \"rnn\", \"type\": \"lstm\", \"units\": 4}", dir), TOKENS, 1),
                GraphProblemsException.class);
        assertThat(e.problems()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.layers[0]");
            assertThat(p.message())
                    .contains("layers[0] 'rnn' takes a sequence of feature vectors but gets token ids [6 steps]"
                            + " from a vocabulary of 20: add an \"embedding\"");
        });
    }
}
