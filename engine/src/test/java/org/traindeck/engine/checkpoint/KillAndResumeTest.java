package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * Kills a real training process (SIGKILL of a child JVM) at random moments, once on purpose in the middle of a
 * checkpoint write, and resumes it each time: every listed checkpoint must load, each resume must start from the
 * latest complete one, and the finished run must have every step exactly once.
 */
class KillAndResumeTest {

    private static final int EPOCHS = 30;
    private static final int STEPS_PER_EPOCH = 50;

    private Process start(Path dir, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.FaultInjectingMain",
                "--pause-checkpoint-writes-ms",
                "100"));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        return pb.start();
    }

    /** Polls until the condition holds; fails at once if the child died, and after minutes only as a guard against a hang. */
    private static void waitUntil(BooleanSupplier condition, Process p, String what) {
        await(what)
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    if (condition.getAsBoolean()) {
                        return true;
                    }
                    assertThat(p.isAlive())
                            .as("the child is still running while waiting for " + what)
                            .isTrue();
                    return false;
                });
    }

    private static boolean tempFileIn(Path folder) {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith(".tmp-"));
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean hasValid(CheckpointStore store) {
        try {
            return store.latestValid().isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    private static long resumeLines(Path runDir) {
        try {
            return Files.readAllLines(runDir.resolve("train.log")).stream()
                    .filter(l -> l.contains("resuming from"))
                    .count();
        } catch (IOException e) {
            return 0;
        }
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void killedAgainAndAgainItAlwaysResumesFromTheLatestCompleteCheckpoint(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("config.json");
        Files.writeString(config, """
                {"name": "crashy", "outputDir": "out", "seed": 3,
                 "model": {"type": "mlp", "hidden": [32, 32], "dropout": 0.1},
                 "data": {"train": {"type": "synthetic", "samples": 1000, "features": 8, "numClasses": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": %d, "batchSize": 16}],
                 "checkpoint": {"everyEpochs": 1, "keepLast": 2}}
                """.formatted(EPOCHS));
        Path runDir = dir.resolve("out/crashy");
        CheckpointStore store = new CheckpointStore(runDir);
        Random random = new Random(20261121);

        // 1: once a checkpoint exists, kill while the next one is being written
        Process first = start(dir, dir.resolve("log-0.txt"), "train", config.toString());
        waitUntil(() -> hasValid(store), first, "a first checkpoint");
        waitUntil(() -> tempFileIn(store.folder()), first, "a checkpoint write");
        kill(first);
        assertThat(store.list())
                .allSatisfy(l -> assertThat(l.isValid())
                        .as(l.file() + ": " + l.problem())
                        .isTrue());

        // 2..8: resume, then kill at a random moment
        int kills = 1;
        boolean finishedEarly = false;
        for (int i = 1; i <= 7 && !finishedEarly; i++) {
            Checkpoint.Listed latest = store.latestValid().orElseThrow();
            long resumesBefore = resumeLines(runDir);
            Process p = start(dir, dir.resolve("log-" + i + ".txt"), "resume", runDir.toString());
            waitUntil(() -> resumeLines(runDir) > resumesBefore, p, "the resume to begin");
            String resumedFrom = Files.readAllLines(runDir.resolve("train.log")).stream()
                    .filter(l -> l.contains("resuming from"))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertThat(resumedFrom).contains(latest.file().toString());
            if (p.waitFor(300 + random.nextInt(1500), TimeUnit.MILLISECONDS)) {
                finishedEarly = true;
                assertThat(p.exitValue()).isZero();
            } else {
                kill(p);
                kills++;
            }
            assertThat(store.list())
                    .allSatisfy(l -> assertThat(l.isValid())
                            .as(l.file() + ": " + l.problem())
                            .isTrue());
        }

        // finally, let it finish
        if (!finishedEarly) {
            Process last = start(dir, dir.resolve("log-final.txt"), "resume", runDir.toString());
            assertThat(last.waitFor(180, TimeUnit.SECONDS)).isTrue();
            assertThat(last.exitValue())
                    .as(Files.readString(dir.resolve("log-final.txt")))
                    .isZero();
        }

        assertThat(kills).isGreaterThanOrEqualTo(3);
        ObjectMapper json = new ObjectMapper();
        List<Long> steps = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = json.readTree(line);
            if ("train/loss".equals(e.path("name").asText())) {
                steps.add(e.get("step").asLong());
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long s = 1; s <= (long) EPOCHS * STEPS_PER_EPOCH; s++) {
            expected.add(s);
        }
        assertThat(steps).as("every step exactly once, in order").containsExactlyElementsOf(expected);
        assertThat(store.latestValid().orElseThrow().checkpoint().globalStep())
                .isEqualTo((long) EPOCHS * STEPS_PER_EPOCH);
        assertThat(tempFileIn(store.folder()))
                .as("leftovers of killed writes are cleaned up")
                .isFalse();
    }

    private static final String THREE_STAGES = """
            {"name": "%s", "outputDir": "out", "seed": 9,
             "model": {"type": "mlp", "hidden": [24], "dropout": 0.1},
             "data": {"train": {"type": "synthetic", "samples": 500, "features": 8, "numClasses": 3}, "validationSplit": 0.2},
             "stages": [
               {"name": "a", "epochs": 3, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.01}},
               {"name": "b", "epochs": 3, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003},
                "schedule": {"type": "warmupCosine", "warmupSteps": 5}},
               {"name": "c", "epochs": 3, "batchSize": 8, "accumulationSteps": 2, "optimizer": {"type": "nesterovs", "learningRate": 0.01}}],
             "checkpoint": {"everyEpochs": 1, "keepLast": 50}}
            """;

    /** Each step's train/loss as written, checking every step appears once. */
    static Map<Long, String> losses(Path runDir) throws IOException {
        Map<Long, String> out = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = json.readTree(line);
            if ("train/loss".equals(e.path("name").asText())) {
                assertThat(out.put(e.get("step").asLong(), e.get("value").asText()))
                        .as("step %d once", e.get("step").asLong())
                        .isNull();
            }
        }
        return out;
    }

    /** A stage-end checkpoint of {@code stage} exists: the run has just moved on to the next stage. */
    private static boolean stageEnded(CheckpointStore store, int stage) {
        try {
            return store.list().stream()
                    .anyMatch(l -> l.isValid()
                            && l.checkpoint().reason().equals("stage-end")
                            && l.checkpoint().stageIndex() == stage);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void killsInEveryStageAndJustAfterEachStageEndGiveTheUninterruptedRun(@TempDir Path dir) throws Exception {
        Path reference = TrainingRun.open(RunRequest.of(ConfigParser.parse(THREE_STAGES.formatted("straight"), dir)
                        .orThrow()))
                .runHere()
                .runDir();
        Path config = dir.resolve("killed.json");
        Files.writeString(config, THREE_STAGES.formatted("killed"));
        Path runDir = dir.resolve("out/killed");
        CheckpointStore store = new CheckpointStore(runDir);

        int kills = 0;
        Process p = start(dir, dir.resolve("k-0.txt"), "train", config.toString());
        for (int stage = 0; stage < 3; stage++) {
            // in the middle of the stage: after its first epoch's checkpoint, a moment later
            int s = stage;
            waitUntil(() -> hasEpochCheckpoint(store, s), p, "a checkpoint in stage " + s);
            kill(p);
            kills++;
            p = start(dir, dir.resolve("k-" + kills + ".txt"), "resume", runDir.toString());
            if (stage < 2) {
                // just after the stage ends: the next stage starts from the stage-end checkpoint
                waitUntil(() -> stageEnded(store, s), p, "the end of stage " + s);
                kill(p);
                kills++;
                p = start(dir, dir.resolve("k-" + kills + ".txt"), "resume", runDir.toString());
            }
        }
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(Files.readString(dir.resolve("k-" + kills + ".txt")))
                .isZero();

        assertThat(kills).isEqualTo(5);
        assertThat(losses(runDir))
                .as("every step once, with the uninterrupted run's loss")
                .isEqualTo(losses(reference));
    }

    private static boolean hasEpochCheckpoint(CheckpointStore store, int stage) {
        try {
            return store.list().stream()
                    .anyMatch(l -> l.isValid()
                            && l.checkpoint().stageIndex() == stage
                            && l.checkpoint().epoch() >= 1
                            && !l.checkpoint().reason().equals("best"));
        } catch (IOException e) {
            return false;
        }
    }
}
