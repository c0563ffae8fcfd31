package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCheck;

/** A problem's first line says what is wrong and its fix; long lists of choices never bury it. */
class ErrorWordingTest {

    @TempDir
    Path dir;

    private static final String GRAPH = """
            {"name": "g",
             "model": {"type": "graph", "layers": [
                 {"name": "conv1", "type": "%s", "filters": 4, "kernel": 3},
                 {"name": "fc", "type": "dense", "units": 8}]},
             "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 2}},
             "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "%s", "learningRate": %s}}]}
            """;

    private ValidationResult check(String layerType, String optimizer, String learningRate) {
        return ModelCheck.checkWithSummary(ConfigParser.parse(GRAPH.formatted(layerType, optimizer, learningRate), dir))
                .result();
    }

    @Test
    void anUnknownLayerTypeLeadsWithTheFixAndLeavesTheLongListOut() {
        ValidationResult r = check("conv2xd", "adam", "0.01");

        assertThat(r.errors()).as("one message for one typo").singleElement().satisfies(p -> {
            assertThat(p.toString().lines().findFirst().orElseThrow())
                    .isEqualTo("unknown layer type 'conv2xd': did you mean 'conv2d'? (line 3, column 32)");
            assertThat(p.toString()).doesNotContain("separableConv2d").doesNotContain("must be one of");
            assertThat(p.path()).isEqualTo("model.layers[0].type");
        });
    }

    @Test
    void withoutALikelyFixTheChoicesFollowOnTheirOwnLine() {
        ValidationResult r = check("wobble", "adam", "0.01");

        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.toString().lines()).hasSize(2);
            assertThat(p.toString().lines().findFirst().orElseThrow())
                    .isEqualTo("unknown layer type 'wobble' (line 3, column 32)");
            assertThat(p.toString().lines().skip(1).findFirst().orElseThrow())
                    .startsWith("choices: 'dense', ")
                    .contains("'conv2d'");
        });
    }

    @Test
    void aShortListOfChoicesIsShownWithTheFix() {
        ValidationResult r = check("conv2d", "adma", "0.01");

        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.headline()).isEqualTo("unknown optimizer type 'adma': did you mean 'adam'?");
            assertThat(p.toString().lines().skip(1).findFirst().orElseThrow())
                    .startsWith("choices: ")
                    .contains("'sgd'");
        });
    }

    @Test
    void aWrongValueIsSaidOnceAndNotAsAModelThatDoesNotBuild() {
        ValidationResult r = check("conv2d", "adam", "-0.01");

        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.toString()).startsWith("stages[0].optimizer.learningRate: must be > 0");
            assertThat(p.toString()).doesNotContainIgnoringCase("does not build");
        });
    }
}
