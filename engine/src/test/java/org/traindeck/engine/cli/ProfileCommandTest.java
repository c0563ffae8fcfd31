package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code traindeck profile}: the table on stdout and exit 0, or a located error on stderr and exit 2. */
class ProfileCommandTest {

    private static final String GRAPH = """
            {"name": "profiled", "outputDir": "runs", "seed": 3,
             "model": {"type": "graph", "layers": [
               {"name": "c1", "type": "conv2d", "filters": 1, "kernel": 3, "padding": "same"},
               {"name": "sum", "type": "add", "inputs": ["input", "c1"]},
               {"name": "pool", "type": "globalPool"},
               {"name": "fc", "type": "dense", "units": 8}]},
             "data": {"train": {"type": "synthetic", "samples": 32, "imageShape": [8, 8, 1], "numClasses": 3}},
             "stages": [{"epochs": 1, "batchSize": 8}]}
            """;

    @Test
    void printsATableOfTheNodesAndWritesNothing(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("profiled.json"), GRAPH);

        MainAccess.Result r = MainAccess.run("profile", config.toString(), "--steps", "2");

        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(Main.OK);
        assertThat(r.stdout())
                .contains(
                        "2 step(s) timed after 4 warm-up step(s)",
                        "node (type)",
                        "optimizer update",
                        "data (batch making)")
                .containsPattern("(?m)^c1 \\(ConvKernel\\) +\\d+\\.\\d{3} +\\d+\\.\\d% +\\d+\\.\\d{3}")
                .containsPattern("(?m)^sum \\(AddKernelVertex\\) ")
                .containsPattern("(?m)^fc \\(DenseKernel\\) ")
                .containsPattern("(?m)^pool \\(GlobalPoolLayer\\) ")
                .containsPattern("(?m)^step +\\d+\\.\\d{3} +100\\.0%")
                .doesNotContain("ND4J's native ops");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).containsExactly(config);
        }
    }

    @Test
    void badStepsAreRefusedBeforeAnythingRuns(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("profiled.json"), GRAPH);

        MainAccess.Result zero = MainAccess.run("profile", config.toString(), "--steps", "0");
        MainAccess.Result words = MainAccess.run("profile", config.toString(), "--steps", "many");

        assertThat(zero.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(zero.stderr()).contains("error: --steps: needs a whole number from 1 to 10000, not 0");
        assertThat(words.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(words.stderr()).contains("--steps", "many");
        assertThat(zero.stdout() + words.stdout()).isEmpty();
    }

    @Test
    void aMissingFileOrAGraphThatDoesNotBuildIsSaidWithWhere(@TempDir Path dir) throws IOException {
        MainAccess.Result missing =
                MainAccess.run("profile", dir.resolve("nope.json").toString());
        Path broken = Files.writeString(dir.resolve("shape.json"), MainAccess.GRAPH_WITH_A_SHAPE_ERROR);
        MainAccess.Result shape = MainAccess.run("profile", broken.toString());

        assertThat(missing.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(missing.stderr()).contains("nope.json").contains("nothing was profiled");
        assertThat(shape.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(shape.stderr()).containsPattern("error: .*line 6").contains("shape.json: nothing was profiled");
        assertThat(missing.stdout() + shape.stdout()).isEmpty();
    }
}
