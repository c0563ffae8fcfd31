package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.queue.RunQueue;

/** traindeck sweep and traindeck queue in-process, on real (small) runs and real files. */
class SweepAndQueueTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        out.reset();
        err.reset();
        return new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private static Path base(Path dir, String name) throws Exception {
        Path config = dir.resolve(name + ".json");
        Files.writeString(config, """
                {"name": "%s", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """.formatted(name));
        return config;
    }

    private static List<Path> runFolders(Path runs) throws Exception {
        try (Stream<Path> s = Files.list(runs)) {
            return s.filter(Files::isDirectory).sorted().toList();
        }
    }

    @Test
    void aGridSweepRunsEveryTrialWithItsValueAndPrintsTheTableBestFirst(@TempDir Path dir) throws Exception {
        base(dir, "base");
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "lr", "base": "base.json", "method": "grid",
                 "parameters": {"stages[0].optimizer.learningRate": [0.0005, 0.002, 0.01]}, "metric": "val/accuracy", "goal": "max"}
                """);

        assertThat(run("sweep", sweep.toString())).as(err.toString()).isEqualTo(Main.OK);
        List<Path> folders = runFolders(dir.resolve("runs"));
        assertThat(folders).extracting(p -> p.getFileName().toString()).containsExactly("lr-1", "lr-2", "lr-3");
        double[] rates = {0.0005, 0.002, 0.01};
        for (int i = 0; i < 3; i++) {
            JsonNode config =
                    JSON.readTree(folders.get(i).resolve("config.json").toFile());
            assertThat(config.at("/stages/0/optimizer/learningRate").asDouble()).isEqualTo(rates[i]);
            assertThat(config.get("name").asText()).isEqualTo("lr-" + (i + 1));
        }
        String table = out.toString();
        assertThat(table).contains("stages[0].optimizer.learningRate", "val/accuracy (max)", "0.0005", "0.002", "0.01");
        List<String> rows = table.lines()
                .dropWhile(l -> !l.strip().startsWith("trial "))
                .skip(1)
                .filter(l -> !l.isBlank())
                .toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).startsWith("*");
        assertThat(rows).allSatisfy(r -> assertThat(r).contains("finished"));

        // again: nothing is trained twice
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.OK);
        assertThat(out.toString()).doesNotContain("== lr-");
        assertThat(runFolders(dir.resolve("runs"))).hasSize(3);
        // the library and compare see the trials
        assertThat(run("runs", dir.resolve("runs").toString())).isEqualTo(Main.OK);
        assertThat(out.toString()).contains("lr-1", "lr-2", "lr-3");
        assertThat(run("compare", folders.get(0).toString(), folders.get(2).toString()))
                .isEqualTo(Main.OK);
        assertThat(out.toString()).contains("stages[0].optimizer.learningRate");
    }

    /** 10^9 trials used to be expanded whole and end in OutOfMemoryError; now they are counted and refused at once. */
    @Test
    void aBillionTrialGridIsRefusedWithExitTwoAndItsCount(@TempDir Path dir) throws Exception {
        base(dir, "base");
        String thousand = java.util.stream.IntStream.rangeClosed(1, 1000)
                .mapToObj(Integer::toString)
                .collect(java.util.stream.Collectors.joining(", ", "[", "]"));
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(
                sweep,
                "{\"name\": \"huge\", \"base\": \"base.json\", \"metric\": \"val/loss\", \"parameters\": {"
                        + "\"stages[0].epochs\": " + thousand + ", \"stages[0].batchSize\": " + thousand
                        + ", \"seed\": " + thousand + "}}");

        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains("1000000000 trials")
                .contains("maxTrials")
                .contains("(line 1, column")
                .doesNotContain("Exception")
                .doesNotContain("Error");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void everyTrialIsCheckedBeforeAnyRunsAndABadValueNamesItsParameter(@TempDir Path dir) throws Exception {
        base(dir, "base");
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "bad", "base": "base.json", "method": "grid",
                 "parameters": {"stages[0].optimizer.learningRate": [0.001, -1], "stages[0].batchSize": [16]}, "metric": "val/loss"}
                """);
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains("trial 2 (stages[0].optimizer.learningRate=-1, stages[0].batchSize=16)")
                .contains("stages[0].optimizer.learningRate")
                .doesNotContain("Exception");
        assertThat(dir.resolve("runs")).doesNotExist();

        Files.writeString(sweep, """
                {"name": "bad", "base": "missing.json", "method": "grid", "trails": 3,
                 "parameters": {"stages[3].epochs": [1]}, "metric": "val/loss", "goal": "up"}
                """);
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains("trails: unknown key")
                .contains("missing.json does not exist")
                .contains("goal: \"up\" is not max or min");

        Files.writeString(sweep, """
                {"name": "bad", "base": "base.json", "parameters": {"stages[3].epochs": [1]}, "metric": "val/loss"}
                """);
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains("parameters.stages[3].epochs")
                .contains("stages[3] is not in the base config (it has 1)");
    }

    @Test
    void aRandomSweepDrawsTheSameTrialsFromTheSameSeed(@TempDir Path dir) throws Exception {
        base(dir, "base");
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "rnd", "base": "base.json", "method": "random", "trials": 2, "seed": 5,
                 "parameters": {"stages[0].optimizer.learningRate": {"min": 0.0001, "max": 0.01, "scale": "log"},
                                "model.activation": ["relu", "tanh"]}, "metric": "val/loss", "goal": "min"}
                """);
        assertThat(run("sweep", sweep.toString())).as(err.toString()).isEqualTo(Main.OK);
        List<QueueEntry> first =
                RunQueue.open(dir.resolve("runs/sweep-rnd.json")).entries();
        assertThat(first).hasSize(2).allSatisfy(e -> assertThat(e.status()).isEqualTo(QueueEntry.Status.FINISHED));
        // the queue says which sweep it runs, so the app can show it without the sweep file
        JsonNode described = RunQueue.open(dir.resolve("runs/sweep-rnd.json")).sweep();
        assertThat(described.get("metric").asText()).isEqualTo("val/loss");
        assertThat(described.get("goal").asText()).isEqualTo("min");
        assertThat(described.get("parameters"))
                .extracting(JsonNode::asText)
                .containsExactly("stages[0].optimizer.learningRate", "model.activation");
        for (QueueEntry e : first) {
            double lr = JSON.readTree(e.config())
                    .at("/stages/0/optimizer/learningRate")
                    .asDouble();
            assertThat(lr).isBetween(0.0001, 0.01);
        }
        // the same file again: the same two trials, both already done
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.OK);
        assertThat(RunQueue.open(dir.resolve("runs/sweep-rnd.json")).entries()).hasSize(2);

        // a changed file is not mixed with the old trials' runs
        Files.writeString(sweep, Files.readString(sweep).replace("\"seed\": 5", "\"seed\": 6"));
        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("the sweep file or its base config changed since");
    }

    @Test
    void aQueueRunsInOrderAndAFailedRunDoesNotStopIt(@TempDir Path dir) throws Exception {
        Path first = base(dir, "first");
        Path data = dir.resolve("data.csv");
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            rows.append(i % 7)
                    .append(',')
                    .append(i % 5)
                    .append(',')
                    .append(i % 2)
                    .append('\n');
        }
        Files.writeString(data, rows.toString());
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, """
                {"name": "broken", "outputDir": "runs", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "csv", "path": "data.csv", "numClasses": 2}}, "stages": [{"epochs": 1, "batchSize": 10}]}
                """);
        Path last = base(dir, "last");
        Path runs = dir.resolve("runs");
        assertThat(run(
                        "queue",
                        "add",
                        first.toString(),
                        broken.toString(),
                        last.toString(),
                        "--output",
                        runs.toString()))
                .as(err.toString())
                .isEqualTo(Main.OK);
        assertThat(out.toString()).contains("queued #1 first", "queued #2 broken", "queued #3 last");
        // the data of the second run goes away after it was queued: that run fails, the queue goes on
        Files.delete(data);

        assertThat(run("queue", "run", "--output", runs.toString())).isEqualTo(Main.RUN_FAILED);
        List<QueueEntry> entries = RunQueue.open(runs.resolve("queue.json")).entries();
        assertThat(entries).extracting(QueueEntry::label).containsExactly("first", "broken", "last");
        assertThat(entries)
                .extracting(QueueEntry::status)
                .containsExactly(QueueEntry.Status.FINISHED, QueueEntry.Status.FAILED, QueueEntry.Status.FINISHED);
        assertThat(entries.get(1).message()).contains("could not start").contains("data.csv");
        assertThat(err.toString()).contains("== broken: could not start");

        assertThat(run("queue", "list", "--output", runs.toString())).isEqualTo(Main.OK);
        assertThat(out.toString()).contains("#1", "finished", "first", "#3");
        assertThat(run("queue", "run", "--output", runs.toString())).isEqualTo(Main.OK);
        assertThat(out.toString()).contains("nothing to run");
    }

    @Test
    void aWaitingEntryCanBeMovedOrRemovedAndTheQueueRunsWhatIsLeftInItsNewOrder(@TempDir Path dir) throws Exception {
        Path runs = dir.resolve("runs");
        assertThat(run(
                        "queue",
                        "add",
                        base(dir, "a").toString(),
                        base(dir, "b").toString(),
                        base(dir, "c").toString(),
                        "--output",
                        runs.toString()))
                .as(err.toString())
                .isEqualTo(Main.OK);

        assertThat(run("queue", "move", "3", "--to", "1", "--output", runs.toString()))
                .as(err.toString())
                .isEqualTo(Main.OK);
        assertThat(run("queue", "remove", "2", "--output", runs.toString()))
                .as(err.toString())
                .isEqualTo(Main.OK);
        assertThat(out.toString()).contains("removed #2 b");
        assertThat(run("queue", "remove", "7", "--output", runs.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("error: there is no #7 in").contains("queue list");
        assertThat(RunQueue.open(runs.resolve("queue.json")).entries())
                .extracting(QueueEntry::label)
                .containsExactly("c", "a");

        assertThat(run("queue", "run", "--output", runs.toString())).isEqualTo(Main.OK);
        List<QueueEntry> done = RunQueue.open(runs.resolve("queue.json")).entries();
        assertThat(done).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.FINISHED);
        // c ran first: its run folder is the older one
        assertThat(Files.getLastModifiedTime(done.get(0).runDir().resolve("config.json"))
                        .toMillis())
                .isLessThanOrEqualTo(
                        Files.getLastModifiedTime(done.get(1).runDir().resolve("config.json"))
                                .toMillis());
        assertThat(run("queue", "move", "1", "--to", "2", "--output", runs.toString()))
                .isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("#1 a is finished: only waiting runs can be moved");
        assertThat(runFolders(runs)).hasSize(2);
    }

    @Test
    void anInvalidConfigAddsNothingAndADamagedQueueIsLeftAlone(@TempDir Path dir) throws Exception {
        Path good = base(dir, "good");
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"name\": \"bad\"}");
        Path runs = dir.resolve("runs");
        assertThat(run("queue", "add", good.toString(), bad.toString(), "--output", runs.toString()))
                .isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("nothing was added");
        assertThat(runs.resolve("queue.json")).doesNotExist();

        Files.createDirectories(runs);
        Files.writeString(runs.resolve("queue.json"), "{ not a queue");
        assertThat(run("queue", "run", "--output", runs.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("is not a TrainDeck queue").contains("left as it is");
        assertThat(Files.readString(runs.resolve("queue.json"))).isEqualTo("{ not a queue");
    }

    /** A run queued tonight that cannot build its model should be refused now, as train would, not fail at 3 am. */
    @Test
    void aConfigWhoseModelDoesNotBuildAddsNothing(@TempDir Path dir) throws Exception {
        Path good = base(dir, "good");
        Path shape = dir.resolve("shape.json");
        Files.writeString(shape, MainAccess.GRAPH_WITH_A_SHAPE_ERROR);
        Path runs = dir.resolve("runs");

        assertThat(run("queue", "add", good.toString(), shape.toString(), "--output", runs.toString()))
                .isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains(shape + ": error: ", "layers[1] 'b'", "(line 6, column")
                .contains("nothing was added");
        assertThat(runs.resolve("queue.json")).doesNotExist();
    }

    /** A trial that could not start (here: its batch does not fit the memory) stops the sweep before any trial runs. */
    @Test
    void aSweepWithATrialThatCannotStartRunsNothing(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("fat.json"), """
                {"name": "fat", "outputDir": "runs",
                 "model": {"type": "graph", "layers": [
                   {"name": "c", "type": "conv2d", "filters": 64, "kernel": 3, "activation": "relu"},
                   {"name": "f", "type": "flatten"},
                   {"name": "d", "type": "dense", "units": 8, "activation": "relu"}]},
                 "data": {"train": {"type": "synthetic", "samples": 32, "imageShape": [64, 64, 3], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        Path sweep = Files.writeString(dir.resolve("sweep.json"), """
                {"name": "fit", "base": "fat.json", "method": "grid",
                 "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.01], "stages[0].batchSize": [16, 65536]},
                 "metric": "val/loss", "goal": "min"}
                """);

        assertThat(run("sweep", sweep.toString())).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString())
                .contains("stages[0].batchSize", "stages[0].batchSize = 65536", "batch 65536", "accumulationSteps");
        // one check per distinct model, data and batch: the two learning rates of batch 65536 are one refusal
        assertThat(err.toString().split("batch 65536 needs", -1)).hasSize(2);
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void concurrentTrialsRunAtOnceOnDisjointSharesOfTheDevices(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 2000, "features": 8}, "validationSplit": 0.1},
                 "stages": [{"epochs": 5, "batchSize": 8}]}
                """);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "both", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.003, 0.01]},
                 "metric": "val/loss", "concurrent": 2}
                """);
        assertThat(run("sweep", sweep.toString())).as(err.toString()).isEqualTo(Main.OK);
        assertThat(out.toString()).contains("trials at once: 2, on the CPU | the CPU");
        List<QueueEntry> entries =
                RunQueue.open(dir.resolve("runs/sweep-both.json")).entries();
        assertThat(entries).hasSize(3).allSatisfy(e -> assertThat(e.status()).isEqualTo(QueueEntry.Status.FINISHED));
        // each trial on one worker (its share of cpu:2), and the first two trained at the same time
        long[][] spans = new long[3][];
        for (int i = 0; i < 3; i++) {
            Path runDir = entries.get(i).runDir();
            assertThat(JSON.readTree(runDir.resolve("config.json").toFile())
                            .get("devices")
                            .asText())
                    .isEqualTo("cpu");
            List<String> lines = Files.readAllLines(runDir.resolve("metrics.jsonl"));
            spans[i] = new long[] {
                Math.round(JSON.readTree(lines.get(0)).get("time").asDouble() * 1000),
                Math.round(
                        JSON.readTree(lines.get(lines.size() - 1)).get("time").asDouble() * 1000)
            };
        }
        assertThat(spans[1][0]).as("trial 2 started before trial 1 ended").isLessThan(spans[0][1]);
        assertThat(spans[0][0]).as("trial 1 started before trial 2 ended").isLessThan(spans[1][1]);

        // one device cannot be cut in two
        Files.writeString(sweep, Files.readString(sweep).replace("\"both\"", "\"single\""));
        assertThat(run("sweep", sweep.toString(), "--devices", "cpu")).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString()).contains("2 trials at once need 2 disjoint device sets");
    }
}
