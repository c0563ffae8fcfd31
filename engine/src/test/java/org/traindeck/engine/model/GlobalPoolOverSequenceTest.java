package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * globalPool over a sequence gives a vector, as the docs and the schema say (DL4J M2.1's own rule reports a sequence,
 * so a class head after it was refused, and a dense layer after it was built for a sequence).
 */
class GlobalPoolOverSequenceTest {

    @TempDir
    Path dir;

    private static final String POOLED = """
            {"type": "reshape", "shape": [8, 8]},
            {"name": "conv", "type": "conv1d", "filters": 6, "kernel": 3, "activation": "relu"},
            {"name": "pool", "type": "globalPool", "mode": "max"},
            {"name": "fc", "type": "dense", "units": 5, "activation": "relu"}""";

    private static final String POOLED_INTO_THE_HEAD = """
            {"type": "reshape", "shape": [8, 8]},
            {"name": "rnn", "type": "lstm", "units": 6},
            {"name": "pool", "type": "globalPool"}""";

    @Test
    void poolingASequenceGivesAVector() {
        ModelSummary s = built(POOLED, dir).summary();

        assertThat(shapeOf(s, "pool")).isEqualTo("[6]");
        assertThat(shapeOf(s, "fc")).isEqualTo("[5]");
        assertThat(row(s, "fc").parameters()).isEqualTo(6 * 5 + 5);
        assertThat(shapeOf(s, "pool"))
                .isEqualTo(shapeOf(built(POOLED_INTO_THE_HEAD, dir).summary(), "pool"));
    }

    @Test
    void aPooledSequenceTrainsThroughADenseLayerAndStraightIntoTheHead() {
        for (String graph : new String[] {POOLED, POOLED_INTO_THE_HEAD}) {
            ComputationGraphConfiguration conf = ModelCompiler.configuration(model(graph, dir), GraphFixture.IMAGES, 1);
            assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
            assertLearns(train(conf, GraphFixture.IMAGES, 8));
        }
    }
}
