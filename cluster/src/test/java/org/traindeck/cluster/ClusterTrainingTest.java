package org.traindeck.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two executors on a real master and two workers (127.0.0.1) train the digits LeNet exactly as one device at the
 * global batch: per-step losses within 1e-4.
 */
class ClusterTrainingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = new LocalCluster(dir).startMaster().startWorkers(2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static RunConfig config(String name, int batch, String parallel) {
        String digits = Path.of("..", "data", "digits", "digits.csv.gz").toAbsolutePath().normalize().toString();
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 11, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": %d, "gradientClipping": 1.0, "optimizer": {"type": "adam", "learningRate": 0.003},
                             "schedule": {"type": "warmupCosine", "warmupSteps": 5, "minLearningRate": 0.0001}}],
                 "checkpoint": {"keepBestPerStage": false},
                 "parallel": %s}
                """.formatted(name, digits, batch, parallel), dir).orThrow();
    }

    static List<Double> losses(Path runDir) throws IOException {
        List<Double> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if ("train/loss".equals(e.path("name").asText())) {
                out.add(e.get("value").asDouble());
            }
        }
        return out;
    }

    String clusterParallel() {
        return "{\"cluster\": \"" + cluster.url() + "\", \"executors\": 2, \"clusterSecretFile\": \""
                + cluster.secretFile.toString().replace("\\", "/") + "\"}";
    }

    @Test
    void twoExecutorsTrainExactlyAsOneDeviceAtTheGlobalBatch() throws Exception {
        RunResult one = TrainingRun.prepare(config("one", 48, "{}")).runHere();
        RunResult two = TrainingRun.prepare(config("two", 24, clusterParallel())).runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = losses(one.runDir());
        List<Double> b = losses(two.runDir());
        assertThat(a).hasSizeGreaterThanOrEqualTo(25).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i))).as("relative loss difference at step %d", i + 1)
                    .isLessThan(1e-4);
        }
        assertThat(Files.readString(two.runDir().resolve("train.log"))).contains("cluster: training on executor");
        System.out.printf("one device: %.1f s, two executors: %.1f s for %d steps%n", one.elapsedSeconds(), two.elapsedSeconds(), a.size());
    }
}
