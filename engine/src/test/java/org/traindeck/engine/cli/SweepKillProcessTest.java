package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.FolderHashes;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.queue.RunQueue;

/** A sweep killed with SIGKILL in the middle of its second trial, then started again: nothing finished is redone. */
class SweepKillProcessTest {

    private static Process start(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.Main"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("child.log").toFile())
                .start();
    }

    private static List<QueueEntry> entries(Path queue) {
        try {
            return RunQueue.open(queue).entries();
        } catch (IOException e) {
            return List.of(); // being replaced at this instant: read again
        }
    }

    private static boolean hasCheckpoint(Path runDir) {
        try (Stream<Path> s = Files.list(runDir.resolve("checkpoints"))) {
            // a regular (step-) checkpoint: the best-of-stage one, written first, is not what a resume continues from
            return s.anyMatch(p -> p.getFileName().toString().startsWith("step-")
                    && p.getFileName().toString().endsWith(".tdckpt"));
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aKilledSweepStartedAgainFinishesWithoutRedoingFinishedTrials(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 4000, "features": 8}, "validationSplit": 0.1},
                 "stages": [{"epochs": 6, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "kill", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.0005, 0.002, 0.01]},
                 "metric": "val/loss", "goal": "min"}
                """);
        Path queue = dir.resolve("runs/sweep-kill.json");

        Process first = start(dir, "sweep", sweep.toString());
        // killed once trial 1 is done and trial 2 has a checkpoint to resume from
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    assertThat(first.isAlive())
                            .as("the sweep is still running: " + Files.readString(dir.resolve("child.log")))
                            .isTrue();
                    List<QueueEntry> e = entries(queue);
                    return e.size() == 3
                            && e.get(0).status() == QueueEntry.Status.FINISHED
                            && e.get(1).status() == QueueEntry.Status.RUNNING
                            && hasCheckpoint(e.get(1).runDir());
                });
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<QueueEntry> killed = entries(queue);
        Path trial1 = killed.get(0).runDir();
        Path trial2 = killed.get(1).runDir();
        Map<String, String> trial1Files = FolderHashes.of(trial1);

        Process second = start(dir, "sweep", sweep.toString());
        assertThat(second.waitFor(180, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(dir.resolve("child.log"));
        assertThat(second.exitValue()).as(log).isEqualTo(Main.OK);

        List<QueueEntry> done = entries(queue);
        assertThat(done).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.FINISHED);
        assertThat(done.get(1).runDir())
                .as("trial 2 continued in its own folder: " + log)
                .isEqualTo(trial2);
        assertThat(FolderHashes.of(trial1)).as("trial 1 was not touched").isEqualTo(trial1Files);
        assertThat(log)
                .doesNotContain("== kill-1")
                .contains("== kill-2: resuming in " + trial2)
                .contains("== kill-3: run folder");
        try (Stream<Path> s = Files.list(dir.resolve("runs"))) {
            assertThat(s.filter(Files::isDirectory)
                            .map(p -> p.getFileName().toString())
                            .sorted()
                            .toList())
                    .containsExactly("kill-1", "kill-2", "kill-3");
        }
        assertThat(log.lines().filter(l -> l.contains("finished") && l.matches("^[* ] +\\d .*")))
                .hasSize(3);
    }

    /** The trial processes of a sweep, found by the crash-log folder in their command line (it names their run folder). */
    private static List<ProcessHandle> trialProcesses(Path runs) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains("-XX:ErrorFile=" + runs))
                .toList();
    }

    @Test
    void trialProcessesOfAKilledSweepStopWithACheckpointAndTheSweepContinuesThem(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 2000, "features": 8}, "validationSplit": 0.1},
                 "stages": [{"epochs": 4, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "orphans", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.0005, 0.002]},
                 "metric": "val/loss", "goal": "min", "concurrent": 2}
                """);
        Path queue = dir.resolve("runs/sweep-orphans.json");
        Path runs = dir.resolve("runs");

        Process first = start(dir, "sweep", sweep.toString());
        await().atMost(Duration.ofSeconds(240))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    assertThat(first.isAlive())
                            .as("the sweep is still running: " + Files.readString(dir.resolve("child.log")))
                            .isTrue();
                    List<QueueEntry> e = entries(queue);
                    return e.size() == 2
                            && e.stream()
                                    .allMatch(
                                            q -> q.status() == QueueEntry.Status.RUNNING && hasCheckpoint(q.runDir()));
                });
        List<ProcessHandle> trials = trialProcesses(runs);
        assertThat(trials).as("a process per trial").hasSize(2);
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

        // with the sweep gone, each trial's process stops by itself, with a checkpoint
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> trials.stream().noneMatch(ProcessHandle::isAlive));
        for (QueueEntry e : entries(queue)) {
            assertThat(Files.readString(e.runDir().resolve("status.json"))).contains("\"stopped\"");
        }

        Process second = start(dir, "sweep", sweep.toString());
        assertThat(second.waitFor(240, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(dir.resolve("child.log"));
        assertThat(second.exitValue()).as(log).isEqualTo(Main.OK);
        assertThat(entries(queue)).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.FINISHED);
        assertThat(log).contains("== orphans-1: resuming in").contains("== orphans-2: resuming in");
        assertThat(trialProcesses(runs)).isEmpty();
    }
}
