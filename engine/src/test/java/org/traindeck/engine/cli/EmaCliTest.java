package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;

/** A config with a weight average validates, trains and resumes from the command line; a bad one is refused there. */
class EmaCliTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONFIG = """
            {"name": "%s", "seed": 4, "model": {"type": "mlp", "hidden": [8]},
             "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 2}, "validationSplit": 0.25},
             "checkpoint": {"monitor": "val_ema/accuracy"},
             "stages": [{"name": "only", "epochs": %d, "batchSize": 25, "ema": {"decay": %s, "startStep": 1, "everySteps": 2}}]}
            """;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private static Path write(Path dir, String name, int epochs, String decay) throws IOException {
        Path config = dir.resolve(name + ".json");
        Files.writeString(config, CONFIG.formatted(name, epochs, decay));
        return config;
    }

    private static List<String> names(Path runDir) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (e.has("name")) {
                out.add(e.get("name").asText());
            }
        }
        return out;
    }

    private static float[] lastEma(Path runDir) throws Exception {
        return CheckpointFiles.read(new CheckpointStore(runDir).list().get(0).file())
                .ema();
    }

    @Test
    void validatesTrainsAndResumesWithTheAverage(@TempDir Path dir) throws Exception {
        assertThat(run("validate", write(dir, "split", 1, "0.9").toString())).isEqualTo(Main.OK);
        assertThat(run("train", write(dir, "split", 1, "0.9").toString())).isEqualTo(Main.OK);
        assertThat(run("train", write(dir, "straight", 2, "0.9").toString())).isEqualTo(Main.OK);
        Path split = dir.resolve("runs/split");
        assertThat(names(split)).contains("val/loss", "val_ema/loss", "val_ema/accuracy");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("[only] epoch 1/1", "val_ema_loss", "val_ema_acc");
        assertThat(lastEma(split)).isNotNull();

        assertThat(run("resume", split.toString(), "--epochs", "2")).isEqualTo(Main.OK);

        assertThat(lastEma(split)).containsExactly(lastEma(dir.resolve("runs/straight")));
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("\tat ");
    }

    @Test
    void aDecayOfOneIsRefusedWithItsPlace(@TempDir Path dir) throws IOException {
        assertThat(run("validate", write(dir, "bad", 1, "1").toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("stages[0].ema.decay")
                .contains("< 1")
                .doesNotContain("\tat ");
    }
}
