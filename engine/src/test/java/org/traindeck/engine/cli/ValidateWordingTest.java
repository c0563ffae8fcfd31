package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code traindeck validate} words a problem as the app does: the fix first, one message per problem. */
class ValidateWordingTest {

    private static List<String> validate(Path config) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(new String[] {"validate", config.toString()});
        assertThat(code).isEqualTo(Main.INVALID_INPUT);
        // the problems, without the closing "<file>: invalid"
        return err.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> !l.endsWith(": invalid"))
                .toList();
    }

    @Test
    void anUnknownLayerTypeIsOneLineThatLeadsWithTheFix(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("typo.json"), """
                {"name": "typo", "model": {"type": "graph", "layers": [
                  {"name": "c", "type": "conv2xd", "filters": 4, "kernel": 3}]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 8}]}
                """);

        assertThat(validate(config))
                .containsExactly("error: unknown layer type 'conv2xd': did you mean 'conv2d'? (line 2, column 25)");
    }

    @Test
    void aNegativeLearningRateIsSaidOnceAsAWrongValue(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("lr.json"), """
                {"name": "lr", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "features": 4}},
                 "stages": [{"epochs": 1, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": -0.01}}]}
                """);

        assertThat(validate(config))
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .startsWith("error: stages[0].optimizer.learningRate: must be > 0")
                        .doesNotContainIgnoringCase("does not build"));
    }
}
