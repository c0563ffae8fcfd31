package org.traindeck.engine.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ModelConfig;

/** A sweep varies a layer's option by its path in the graph, as the validator's messages name it. */
class SweepOverLayerOptionsTest {

    @TempDir
    Path dir;

    private Path sweep(String parameters) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "g", "model": {"type": "graph", "layers": [
                   {"name": "c", "type": "conv2d", "filters": 4, "kernel": 3},
                   {"type": "globalPool"}, {"name": "fc", "type": "dense", "units": 8}]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """);
        Path file = dir.resolve("sweep.json");
        Files.writeString(file, """
                {"name": "layers", "base": "base.json", "metric": "val/loss", "parameters": %s}
                """.formatted(parameters));
        return file;
    }

    @Test
    void aGridOverLayerOptionsMakesOneConfigPerCombination() throws Exception {
        SweepSpec spec = SweepParser.load(
                sweep("{\"model.layers[0].filters\": [4, 8], \"model.layers[2].units\": [16, 32, 64]}"));
        List<SweepTrials.Trial> trials = SweepTrials.expand(spec);

        assertThat(trials).hasSize(6);
        assertThat(trials)
                .extracting(t -> ((ModelConfig.Graph) t.config().model())
                        .layers()
                        .get(0)
                        .options()
                        .get("filters"))
                .containsExactly(4, 4, 4, 8, 8, 8);
        assertThat(trials)
                .extracting(t -> ((ModelConfig.Graph) t.config().model())
                        .layers()
                        .get(2)
                        .options()
                        .get("units"))
                .containsExactly(16, 32, 64, 16, 32, 64);
    }

    @Test
    void aLayerOptionOutOfBoundsIsRefusedForTheTrialThatHasIt() throws Exception {
        InvalidConfigException e = catchThrowableOfType(
                () -> SweepTrials.expand(SweepParser.load(sweep("{\"model.layers[2].units\": [16, 0]}"))),
                InvalidConfigException.class);

        assertThat(e.problems())
                .extracting(ConfigProblem::message)
                .anySatisfy(m -> assertThat(m).contains("model.layers[2].units"));
    }
}
