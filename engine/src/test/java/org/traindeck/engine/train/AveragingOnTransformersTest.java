package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;

/** DL4J's ParallelWrapper (parameter averaging) trains a GPT graph, and reports its loss per token like every tier. */
class AveragingOnTransformersTest {

    @Test
    void averagingTrainsAGptAndReportsTheLossPerToken(@TempDir Path dir) throws Exception {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        RunResult r = TrainingRun.open(RunRequest.of(
                        ConfigParser.parse("""
                {"name": "avg", "devices": "cpu:2", "parallel": {"mode": "averaging", "fallback": false},
                 "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 400}, "validationSplit": 0.1},
                 "stages": [{"epochs": 3, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(text), dir).orThrow()))
                .runHere();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> epochLosses = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(r.runDir().resolve("metrics.jsonl"))) {
            JsonNode e = json.readTree(line);
            if ("train/epoch_loss".equals(e.path("name").asText())) {
                epochLosses.add(e.get("value").asDouble());
            }
        }
        assertThat(epochLosses).hasSize(3);
        // per token: below the uniform guess over 76 characters (ln 76 = 4.33), not summed over the 16 steps
        assertThat(epochLosses).allSatisfy(l -> assertThat(l).isLessThan(Math.log(76) + 0.5));
        assertThat(epochLosses.get(2)).isLessThan(epochLosses.get(0));
        assertThat(r.lastMetrics().get("val/loss")).isLessThan(Math.log(76));
    }
}
