package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;

/**
 * What a real process does when it is signalled, when a second process wants the same run folder, when a file cannot
 * be written, and when its data is bad: the CLI in a child JVM, real signals, a real full device.
 */
class RunSafetyProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Long enough that a signal always lands in the middle; no checkpoint before the end but the stop's. */
    private static Path longConfig(Path dir, String name) throws IOException {
        Path config = dir.resolve(name + ".json");
        Files.writeString(config, """
                {"name": "%s", "outputDir": "runs", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 4000, "features": 8}},
                 "stages": [{"epochs": 200, "batchSize": 8}], "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """.formatted(name));
        return config;
    }

    private static Process start(Path dir, String... args) throws IOException {
        return start(dir, Map.of(), args);
    }

    private static Process start(Path dir, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.Main"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("child.log").toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** The highest step the child has logged a loss for (0 before any). */
    private static long loggedStep(Path runDir) {
        try {
            long step = 0;
            for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
                if (line.contains("\"train/loss\"") && line.endsWith("}")) {
                    step = Math.max(step, JSON.readTree(line).get("step").asLong());
                }
            }
            return step;
        } catch (IOException e) {
            return 0;
        }
    }

    private static long trainedPast(Path runDir, long steps, Process p) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    assertThat(p.isAlive()).as("the child is still training").isTrue();
                    return loggedStep(runDir) >= steps;
                });
        return loggedStep(runDir);
    }

    private static void signal(Process p, String signal) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                        .start()
                        .waitFor())
                .isZero();
    }

    /** A transformer's SameDiff layers made ND4J warn on the console about its TensorFlow-import table on every run. */
    @Test
    void aTransformerRunSaysNothingTheUserCannotActOn(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("vit.json"), """
                {"name": "vit", "outputDir": "runs", "model": {"type": "vit", "patch": 4, "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "synthetic", "samples": 32, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """);
        Process p = start(dir, "train", config.toString());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("trains and exits").isTrue();
        String log = Files.readString(dir.resolve("child.log"));
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(log).contains("finished:").doesNotContain("WARN", "ERROR");
    }

    @Test
    void ctrlCAndSigtermSaveTheStepsSinceTheLastCheckpoint(@TempDir Path dir) throws Exception {
        for (String signal : List.of("TERM", "INT")) {
            Path config = longConfig(dir, "signal-" + signal.toLowerCase());
            Path runDir = dir.resolve("runs/signal-" + signal.toLowerCase());
            Process p = start(dir, "train", config.toString());
            long seen = trainedPast(runDir, 40, p);

            signal(p, signal);
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("exits after saving").isTrue();

            String output = Files.readString(dir.resolve("child.log"));
            assertThat(p.exitValue()).as(output).isEqualTo(signal.equals("TERM") ? 143 : 130);
            assertThat(output).contains("stopping: saving a checkpoint").contains("resume with: traindeck resume");
            List<Checkpoint.Listed> saved = new CheckpointStore(runDir).list();
            assertThat(saved).singleElement().satisfies(l -> {
                assertThat(l.isValid()).isTrue();
                assertThat(l.checkpoint().reason()).isEqualTo("stop");
                assertThat(l.checkpoint().globalStep()).isGreaterThanOrEqualTo(seen);
            });
            assertThat(Files.readString(runDir.resolve("metrics.jsonl"))).contains("\"RUN_STOPPED\"");
        }
    }

    @Test
    void aSecondWriterIsRefusedWithTheHoldersPid(@TempDir Path dir) throws Exception {
        Path config = longConfig(dir, "busy");
        Path runDir = dir.resolve("runs/busy");
        Process p = start(dir, "train", config.toString());
        try {
            trainedPast(runDir, 5, p);
            String metricsBefore = Files.readString(runDir.resolve("train.log"));

            MainAccess.Result second = MainAccess.run(
                    new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), "resume", runDir.toString());

            assertThat(second.exitCode()).isEqualTo(2);
            assertThat(second.stderr())
                    .contains("is in use by another TrainDeck run (PID " + p.pid())
                    .contains("org.traindeck.engine.cli.Main train")
                    .doesNotContain("\tat ");
            assertThat(Files.readString(runDir.resolve("train.log")))
                    .startsWith(metricsBefore)
                    .doesNotContain("resuming from");
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFileThatCannotBeWrittenIsReportedAtOnceAndTheRunEndsIncomplete(@TempDir Path dir) throws Exception {
        Path devFull = Path.of("/dev/full");
        assumeThat(Files.exists(devFull)).as("a Linux /dev/full").isTrue();
        Path config = dir.resolve("full.json");
        Files.writeString(config, """
                {"name": "full", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        NvidiaSmi noGpu = new NvidiaSmi("", Duration.ofSeconds(1));
        assertThat(MainAccess.run(noGpu, new OshiHostProbe(), "train", config.toString())
                        .exitCode())
                .isZero();
        Path runDir = dir.resolve("runs/full");
        // the run log now lives on a device that is always full: every write fails with ENOSPC, as on a full disk
        Files.delete(runDir.resolve("train.log"));
        Files.createSymbolicLink(runDir.resolve("train.log"), devFull);

        MainAccess.Result resumed =
                MainAccess.run(noGpu, new OshiHostProbe(), "resume", runDir.toString(), "--epochs", "4");

        assertThat(resumed.exitCode()).as(resumed.stderr()).isEqualTo(Main.FILES_INCOMPLETE);
        assertThat(resumed.stderr()).contains("finished, but some files could not be written: train.log");
        String metrics = Files.readString(runDir.resolve("metrics.jsonl"));
        assertThat(metrics)
                .contains("\"FILE_WRITE_FAILED\",\"message\":\"train.log could not be written (the disk is full)");
        assertThat(new CheckpointStore(runDir)
                        .latestValid()
                        .orElseThrow()
                        .checkpoint()
                        .globalStep())
                .isEqualTo(40);
    }

    /** Issue 35: a resume on a full disk failed and left an empty config.resume file behind. */
    @Test
    void aResumeOnAFullDiskLeavesNothingBehind(@TempDir Path dir) throws Exception {
        Path devFull = Path.of("/dev/full");
        assumeThat(Files.exists(devFull)).as("a Linux /dev/full").isTrue();
        Path config = dir.resolve("full.json");
        Files.writeString(config, """
                {"name": "full", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        NvidiaSmi noGpu = new NvidiaSmi("", Duration.ofSeconds(1));
        assertThat(MainAccess.run(noGpu, new OshiHostProbe(), "train", config.toString())
                        .exitCode())
                .isZero();
        Path runDir = dir.resolve("runs/full");
        List<String> before;
        try (var files = Files.list(runDir)) {
            before = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        // the resume's config is written beside its final name first: that write now fails with ENOSPC, as on a full
        // disk
        Files.createSymbolicLink(runDir.resolve("config.resume-1.json.tmp"), devFull);

        MainAccess.Result resumed =
                MainAccess.run(noGpu, new OshiHostProbe(), "resume", runDir.toString(), "--epochs", "4");

        assertThat(resumed.exitCode()).as(resumed.stderr()).isEqualTo(Main.RUN_FAILED);
        assertThat(resumed.stderr())
                .contains("config.resume-1.json")
                .contains("the disk is full")
                .doesNotContain("\tat ");
        try (var files = Files.list(runDir)) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
                    .isEqualTo(before);
        }
    }

    @Test
    void aRunThatFailsOnBadDataLeavesNoFolderBehind(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.csv"), "0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,\n");
        Path config = dir.resolve("bad.json");
        Files.writeString(config, """
                {"name": "bad", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "csv", "path": "bad.csv"}}, "stages": [{"epochs": 1, "batchSize": 2}]}
                """);

        MainAccess.Result r = MainAccess.run(
                new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), "train", config.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        // the data is read while the config is checked, before any run folder is made
        assertThat(r.stderr()).contains("line 3, column 3: the label is empty").contains("nothing was run");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void aNonAsciiDataPathUnderAnAsciiLocaleGetsAdviceNotAStackTrace(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("données"));
        Files.writeString(data.resolve("d.csv"), "0.1,0.2,0\n0.3,0.4,1\n");
        Path config = dir.resolve("ascii.json");
        Files.writeString(config, """
                {"name": "locale", "outputDir": "runs", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "csv", "path": "données/d.csv"}}, "stages": [{"epochs": 1, "batchSize": 2}]}
                """);

        for (String command : List.of("validate", "train")) {
            Process p = start(dir, Map.of("LC_ALL", "C", "LANG", "C"), command, config.toString());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String output = Files.readString(dir.resolve("child.log"));
            assertThat(p.exitValue()).as(output).isEqualTo(2);
            assertThat(output)
                    .contains("cannot name as a file: start TrainDeck under a UTF-8 locale")
                    .doesNotContain("\tat ");
        }
    }
}
