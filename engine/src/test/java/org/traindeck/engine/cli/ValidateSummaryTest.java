package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code traindeck validate --summary} names every node by the type the config gives it. */
class ValidateSummaryTest {

    @Test
    void everyNewLayerTypeShowsItsConfigTypeName(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("kinds.json"), """
                {"name": "kinds", "model": {"type": "graph", "layers": [
                  {"name": "dw", "type": "depthwiseConv2d", "kernel": 3, "depthMultiplier": 2},
                  {"name": "sep", "type": "separableConv2d", "filters": 4, "kernel": 3},
                  {"name": "slope", "type": "prelu"},
                  {"name": "rows", "type": "reshape", "shape": [16, 16]},
                  {"name": "rnn", "type": "lstm", "units": 4},
                  {"name": "both", "type": "bidirectional", "units": 3, "returnSequences": false}]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 8}]}
                """);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(new String[] {"validate", "--summary", config.toString()});

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8).lines())
                .anySatisfy(l -> assertThat(l).matches("dw +depthwiseConv2d +input +\\[8, 8, 2\\].*"))
                .anySatisfy(l -> assertThat(l).matches("sep +separableConv2d +dw +\\[8, 8, 4\\].*"))
                .anySatisfy(l -> assertThat(l).matches("slope +prelu +sep +\\[8, 8, 4\\].*"))
                .anySatisfy(l -> assertThat(l).matches("rows +reshape +slope +\\[16, 16\\].*"))
                .anySatisfy(l -> assertThat(l).matches("rnn +lstm +rows +\\[16, 4\\].*"))
                .anySatisfy(l -> assertThat(l).matches("both +bidirectional +rnn +\\[6\\].*"));
    }

    @Test
    void aZooModelShowsItsLayers(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("zoo.json"), """
                {"name": "zoo", "model": {"type": "zoo", "architecture": "lenet"},
                 "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [28, 28, 1], "numClasses": 3}},
                 "stages": [{"epochs": 1, "batchSize": 8}]}
                """);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .run(new String[] {"validate", "--summary", config.toString()});

        assertThat(code).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("ConvolutionLayer", "SubsamplingLayer", "DenseLayer")
                .containsPattern("output +OutputLayer +layer4 +\\[3\\]")
                .contains("model zoo");
    }
}
