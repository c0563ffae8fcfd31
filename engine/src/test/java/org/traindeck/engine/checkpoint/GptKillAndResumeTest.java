package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * A GPT (SameDiff attention, layer norms, learned positions) on a text, killed with SIGKILL after a checkpoint and
 * resumed: every step's loss is the uninterrupted run's; resumed on a text with another vocabulary, it is refused.
 */
class GptKillAndResumeTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 5,
             "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
             "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 400}, "validationSplit": 0.1},
             "stages": [{"epochs": 6, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}],
             "checkpoint": {"everyEpochs": 1, "keepLast": 10}}
            """;

    private static Process start(Path dir, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.Main"));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        return pb.start();
    }

    private static boolean hasEpochCheckpoint(CheckpointStore store) {
        try {
            return store.list().stream()
                    .anyMatch(l -> l.isValid()
                            && l.checkpoint().epoch() >= 2
                            && !l.checkpoint().reason().equals("best"));
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void killedAfterACheckpointItResumesToTheUninterruptedRunAndRefusesAnotherVocabulary(@TempDir Path dir)
            throws Exception {
        Path text = dir.resolve("text.txt");
        Files.copy(TestPaths.repoRoot().resolve("data/text/gpl-3.txt"), text);
        Path reference = TrainingRun.open(RunRequest.of(ConfigParser.parse(CONFIG.formatted("straight", text), dir)
                        .orThrow()))
                .runHere()
                .runDir();
        Path config = dir.resolve("killed.json");
        Files.writeString(config, CONFIG.formatted("killed", text));
        Path runDir = dir.resolve("out/killed");
        CheckpointStore store = new CheckpointStore(runDir);

        Process first = start(dir, dir.resolve("first.txt"), "train", config.toString());
        await().atMost(5, TimeUnit.MINUTES).until(() -> hasEpochCheckpoint(store) || !first.isAlive());
        assertThat(first.isAlive()).as("still training when killed").isTrue();
        first.destroyForcibly();
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();

        // the same file with one character it never had: every id after it would mean another character
        String original = Files.readString(text);
        Files.writeString(text, original + "§");
        Process refused = start(dir, dir.resolve("refused.txt"), "resume", runDir.toString());
        assertThat(refused.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(refused.exitValue()).isNotZero();
        assertThat(Files.readString(dir.resolve("refused.txt")))
                .contains("vocabulary")
                .contains("differs");

        Files.writeString(text, original);
        Process resumed = start(dir, dir.resolve("resumed.txt"), "resume", runDir.toString());
        assertThat(resumed.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(resumed.exitValue())
                .as(Files.readString(dir.resolve("resumed.txt")))
                .isZero();
        assertThat(KillAndResumeTest.losses(runDir))
                .as("every step once, with the uninterrupted run's loss")
                .isEqualTo(KillAndResumeTest.losses(reference));
    }
}
