package org.traindeck.engine.parallel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** Data-parallel training on CPU workers: the same code path as GPUs, run here for real. */
class ParallelTrainingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<JsonNode> events(Path runDir) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static List<String> messages(List<JsonNode> events, String kind) {
        return events.stream()
                .filter(e -> kind.equals(e.path("event").asText()))
                .map(e -> e.get("message").asText())
                .toList();
    }

    private static List<Long> lossSteps(List<JsonNode> events) {
        return events.stream()
                .filter(e -> "train/loss".equals(e.path("name").asText()))
                .map(e -> e.get("step").asLong())
                .toList();
    }

    private static RunResult run(RunConfig config, FaultPlan faults) throws IOException {
        return TrainingRun.open(
                        RunRequest.of(config).on(DeviceDiscovery.system()).withFaults(faults))
                .runHere();
    }

    private static final String AVERAGING = ", \"parallel\": {\"mode\": \"averaging\"}";

    private static RunConfig synthetic(Path dir, String devices, String extra) {
        return ConfigParser.parse("""
                {"name": "par", "outputDir": "out", "seed": 3, "devices": "%s",
                 "model": {"type": "mlp", "hidden": [32]},
                 "data": {"train": {"type": "synthetic", "samples": 1280, "features": 8, "numClasses": 4, "noise": 1.0},
                          "validation": {"type": "synthetic", "samples": 400, "features": 8, "numClasses": 4, "noise": 1.0}},
                 "stages": [{"name": "main", "epochs": 3, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01}}]
                 %s}
                """.formatted(devices, extra), dir).orThrow();
    }

    @Test
    void twoCpuWorkersTrainTheDigitsAsWellAsOne(@TempDir Path dir) throws Exception {
        RunConfig sample = ConfigParser.load(TestPaths.sampleConfigs().resolve("digits-mlp.json"))
                .orThrow()
                .withOutputDir(dir.toString());
        RunResult one = TrainingRun.open(RunRequest.of(sample)).runHere();
        RunResult two = TrainingRun.open(RunRequest.of(sample.withDevices(DeviceSelection.cpuWorkers(2))))
                .runHere();

        assertThat(two.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.lastMetrics().get("val/accuracy"))
                .isGreaterThan(0.9)
                .isCloseTo(one.lastMetrics().get("val/accuracy"), within(0.04));
        // one step is one round of two batches: half the steps of the one-device run
        assertThat(two.steps()).isEqualTo(15 * 23);
        assertThat(one.steps()).isEqualTo(15 * 45);
        List<JsonNode> events = events(two.runDir());
        assertThat(messages(events, "TIER_STARTED"))
                .singleElement()
                .satisfies(m -> assertThat(m).contains("synchronous all-reduce"));
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("parallel/efficiency");
            assertThat(e.get("value").asDouble()).isBetween(0.05, 5.0);
        });
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("parallel/allreduce_ms");
            assertThat(e.get("value").asDouble()).isNotNegative();
        });
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("throughput/samples_per_s");
            assertThat(e.path("device").asText()).isEqualTo("cpu1");
            assertThat(e.get("value").asDouble()).isPositive();
        });
        assertThat(events).anySatisfy(e -> assertThat(e.path("device").asText()).isEqualTo("cpu0"));
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("parallel/global_batch");
            assertThat(e.get("value").asDouble()).isEqualTo(64.0);
        });
        assertThat(messages(events, "STAGE_STARTED").get(0))
                .contains("batch 32 per device × 2 devices = global batch 64");
        List<Long> steps = lossSteps(events);
        assertThat(steps).hasSize(15 * 23).doesNotHaveDuplicates().isSorted();
        int each = Math.max(1, Nd4jRuntime.threadBudget() / 2);
        assertThat(Files.readString(two.runDir().resolve("train.log")))
                .contains("2 CPU workers, " + each + " native thread(s) each (of " + Nd4jRuntime.threadBudget());
    }

    @Test
    void aTierThatCannotBeSetUpFallsBackToTheNext(@TempDir Path dir) throws Exception {
        RunResult r = run(
                synthetic(dir, "cpu:2", ", \"parallel\": {\"mode\": \"shared_gradients\"}"),
                FaultPlan.NONE.failingTiers(Tier.SHARED_GRADIENTS, Tier.AVERAGING_P2P));

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = events(r.runDir());
        assertThat(messages(events, "TIER_STARTED"))
                .hasSize(3)
                .last()
                .satisfies(m -> assertThat(m).contains("without peer-to-peer"));
        assertThat(messages(events, "FALLBACK"))
                .hasSize(2)
                .allSatisfy(m -> assertThat(m).contains("injected failure setting up"));
        assertThat(messages(events, "REWIND")).isEmpty();
        assertThat(lossSteps(events)).doesNotHaveDuplicates().isSorted().hasSize((int) r.steps());
    }

    @Test
    void aWorkerFailingMidRoundGoesBackToTheLastConsistentStateAndFallsToOneDevice(@TempDir Path dir) throws Exception {
        RunResult r = run(synthetic(dir, "cpu:2", AVERAGING), FaultPlan.NONE.failingWorkerAtStep(30));

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = events(r.runDir());
        // epoch 1 is 20 rounds; the failure in epoch 2 goes back to its start, on both averaging tiers
        assertThat(messages(events, "REWIND"))
                .hasSize(2)
                .allSatisfy(m -> assertThat(m).contains("going back to step 20"));
        assertThat(messages(events, "FALLBACK")).hasSize(2);
        assertThat(messages(events, "TIER_STARTED"))
                .last()
                .satisfies(m -> assertThat(m).contains("one device"));
        // 20 steps of 2 batches, then 2 epochs of 40 single steps: every step once, in order
        assertThat(r.steps()).isEqualTo(20 + 40 + 40);
        assertThat(lossSteps(events))
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, 100).boxed().toList());
        assertThat(r.lastMetrics().get("val/accuracy")).isGreaterThan(0.5);
    }

    @Test
    void aFailureBetweenRoundsContinuesFromWhereItWas(@TempDir Path dir) throws Exception {
        RunResult r = run(synthetic(dir, "cpu:2", AVERAGING), FaultPlan.NONE.failingRoundAtBatch(10));

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = events(r.runDir());
        assertThat(messages(events, "REWIND")).isEmpty();
        assertThat(messages(events, "FALLBACK"))
                .first()
                .satisfies(m -> assertThat(m).contains("from step 5"));
        // 5 rounds, then the remaining 30 batches of epoch 1 and 2 more epochs on one device
        assertThat(r.steps()).isEqualTo(5 + 30 + 80);
        assertThat(lossSteps(events))
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, 115).boxed().toList());
    }

    @Test
    void whenEveryTierFailsTheRunSaysSo(@TempDir Path dir) throws Exception {
        RunResult all = run(
                synthetic(dir, "cpu:2", ""),
                FaultPlan.NONE.failingTiers(Tier.SYNC_P2P, Tier.SYNC_HOST, Tier.SINGLE_DEVICE));
        assertThat(all.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(all.message()).contains("every way of training failed").contains("one device");

        RunResult noFallback = run(
                synthetic(dir, "cpu:2", ", \"parallel\": {\"fallback\": false}"),
                FaultPlan.NONE.failingTiers(Tier.SYNC_P2P));
        assertThat(noFallback.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(noFallback.message()).contains("fallback is off");
    }

    @Test
    void ncclVariablesAreInTheRealEnvironmentAndMapped(@TempDir Path dir) throws Exception {
        RunConfig config = synthetic(dir, "cpu:2", """
                , "nccl": {"NCCL_TIMEOUT": 1800, "NCCL_P2P_DISABLE": "1", "NCCL_IB_DISABLE": 1, "NCCL_SOCKET_IFNAME": "eth0,lo",
                           "NCCL_DEBUG": "WARN", "custom": {"TRAINDECK_TEST_VARIABLE": "hello world"}}
                """);
        TrainingRun run = TrainingRun.open(RunRequest.of(config));

        for (String name : List.of(
                "NCCL_TIMEOUT",
                "NCCL_P2P_DISABLE",
                "NCCL_IB_DISABLE",
                "NCCL_SOCKET_IFNAME",
                "NCCL_DEBUG",
                "TRAINDECK_TEST_VARIABLE")) {
            assertThat(NativeEnvironment.get(name))
                    .as(name)
                    .isEqualTo(config.nccl().all().get(name));
        }
        NcclReport report = run.ncclReport();
        assertThat(report.entries())
                .hasSize(6)
                .noneSatisfy(e -> assertThat(e.status()).isEqualTo(NcclReport.Status.FAILED));
        assertThat(report.get("NCCL_P2P_DISABLE").detail())
                .contains("cross-device (peer-to-peer) access is turned off");
        assertThat(report.get("NCCL_TIMEOUT").detail()).contains("step watchdog");
        assertThat(report.get("NCCL_IB_DISABLE").detail()).contains("does not use NCCL");
        RunResult r = run.runHere();
        // the P2P equivalent: the all-reduce over peer-to-peer copies is never tried
        assertThat(messages(events(r.runDir()), "TIER_STARTED"))
                .singleElement()
                .satisfies(m -> assertThat(m).contains("all-reduce through host memory"));
        assertThat(config.effectiveStepTimeoutSeconds()).isEqualTo(1800);
    }

    @Test
    void ncclTogglesSetBeforeNd4jLoadsAreAppliedNotDeferred(@TempDir Path dir) throws Exception {
        // a fresh JVM, where ND4J has not been loaded yet
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "fresh", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "features": 3}}, "stages": [{"epochs": 1}],
                 "nccl": {"NCCL_P2P_DISABLE": "1", "NCCL_BLOCKING_WAIT": "1"}}
                """);
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "org.traindeck.engine.cli.Main",
                        "train",
                        config.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(output).isZero();
        String log = Files.readString(dir.resolve("runs/fresh/train.log"));
        assertThat(log)
                .contains("environment NCCL_P2P_DISABLE=1: MAPPED")
                .contains("environment NCCL_BLOCKING_WAIT=1: APPLIED");
    }

    @Test
    void aStalledStepTripsTheWatchdog(@TempDir Path dir) throws Exception {
        TrainingRun run = TrainingRun.open(RunRequest.of(synthetic(dir, "cpu", ", \"stepTimeoutSeconds\": 2"))
                .on(DeviceDiscovery.system())
                .withFaults(FaultPlan.NONE.stallingAtStep(7)));
        run.start();
        RunResult r = run.await();

        assertThat(r.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(r.message())
                .startsWith("the run hung: no training step completed in")
                .contains("(limit 2 s)")
                .contains("one device on cpu")
                .contains("thread dump is in train.log");
        assertThat(r.steps()).isEqualTo(6);
        String log = Files.readString(r.runDir().resolve("train.log"));
        assertThat(log).contains("WATCHDOG").contains("Thread dump").contains("\"traindeck-train-par\"");
        // the abandoned thread unwinds after the result is in (and may still log): the folder is removed after it
        await().atMost(Duration.ofMinutes(2))
                .until(() -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals("traindeck-train-par") && t.isAlive()));
    }

    @Test
    void accumulationWithSeveralDevicesIsRefusedOnlyForParameterAveraging(@TempDir Path dir) {
        String config = """
                {"name": "acc", "devices": "cpu:2", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1, "accumulationSteps": 2, "gradientClipping": 1.0}] %s}
                """;
        var averaging = ConfigParser.parse(config.formatted(AVERAGING), dir);
        assertThat(averaging.errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo("stages[0].accumulationSteps");
            assertThat(e.message())
                    .contains("not supported with parallel.mode \"averaging\"")
                    .contains("\"sync\"");
        });
        assertThat(averaging.warnings())
                .anySatisfy(w -> assertThat(w.message()).contains("clips each layer's gradient norm"));

        var sync = ConfigParser.parse(config.formatted(""), dir);
        assertThat(sync.errors()).isEmpty();
        assertThat(sync.warnings()).isEmpty();
    }

    @Test
    void lrScalingAndTheResumeOfAMidEpochStopOnOtherDevices(@TempDir Path dir) throws Exception {
        RunConfig config = synthetic(dir, "cpu:2", ", \"parallel\": {\"lrScaling\": \"linear\"}");
        List<Double> lrs = Collections.synchronizedList(new ArrayList<>());
        RunResult stopped = TestRuns.stopAfterStep(config, 27, e -> {
            if (e instanceof MetricEvent m && m.name().equals("lr")) {
                lrs.add(m.value());
            }
        });
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(new HashSet<>(lrs)).containsExactly(0.02);

        long s = stopped.steps();
        assertThat(s).isEqualTo(27);

        // synchronous steps cut the epoch into the same samples on any number of devices: the epoch goes on on one
        RunResult resumed = TrainingRun.resume(
                        stopped.runDir(), new ResumeOptions(null, null, DeviceSelection.CPU), DeviceDiscovery.system())
                .runHere();
        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        // 20 steps of 2 batches an epoch: epoch 2 had 2 (s - 20) of its 40 batches done; single steps finish it, and
        // epoch 3 is 40
        long total = s + (40 - 2 * (s - 20)) + 40;
        assertThat(resumed.steps()).isEqualTo(total);
        assertThat(lossSteps(events(resumed.runDir())))
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, total).boxed().toList());
    }

    @Test
    void parameterAveragingRefusesToContinueAMidEpochStopOnOtherDevices(@TempDir Path dir) throws Exception {
        RunResult stopped = TestRuns.stopAfterStep(synthetic(dir, "cpu:2", AVERAGING), 27);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThatThrownBy(() -> TrainingRun.resume(
                        stopped.runDir(), new ResumeOptions(null, null, DeviceSelection.CPU), DeviceDiscovery.system()))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("in the middle of an epoch trained on 2 device(s) with parameter averaging");
    }

    @Test
    void aSynchronousTierThatCannotBeSetUpFallsToOneDeviceAtTheSameGlobalBatch(@TempDir Path dir) throws Exception {
        RunConfig config = synthetic(dir, "cpu:2", "");
        RunResult twoDevices = run(config, FaultPlan.NONE);
        RunResult fellBack = run(
                config.withOutputDir(dir.resolve("fallback").toString()),
                FaultPlan.NONE.failingTiers(Tier.SYNC_P2P, Tier.SYNC_HOST));

        assertThat(fellBack.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = events(fellBack.runDir());
        assertThat(messages(events, "FALLBACK"))
                .hasSize(2)
                .last()
                .satisfies(m -> assertThat(m)
                        .contains("batch 32 per device × 2 devices (all on one device) = global batch 64"));
        assertThat(messages(events, "TIER_STARTED"))
                .last()
                .satisfies(m -> assertThat(m).contains("one device"));
        // the same steps, the same training: one device accumulates both shards of each global batch
        assertThat(fellBack.steps()).isEqualTo(twoDevices.steps()).isEqualTo(60);
        List<Double> a = losses(events(twoDevices.runDir()));
        List<Double> b = losses(events);
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.get(i)).as("loss of step %d", i + 1).isCloseTo(a.get(i), within(1e-4 * Math.abs(a.get(i))));
        }
    }

    @Test
    void aWorkerFailingInTheMiddleOfASynchronousStepChangesNothingAndTheStepIsRepeated(@TempDir Path dir)
            throws Exception {
        RunResult r = run(synthetic(dir, "cpu:2", ""), FaultPlan.NONE.failingWorkerAtStep(30));

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        List<JsonNode> events = events(r.runDir());
        assertThat(messages(events, "REWIND")).isEmpty();
        assertThat(messages(events, "FALLBACK"))
                .hasSize(2)
                .allSatisfy(m -> assertThat(m)
                        .contains("injected worker failure at step 30")
                        .contains("from step 29"));
        assertThat(messages(events, "TIER_STARTED"))
                .last()
                .satisfies(m -> assertThat(m).contains("one device"));
        assertThat(r.steps()).isEqualTo(60);
        assertThat(lossSteps(events))
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 60).boxed().toList());
    }

    private static List<Double> losses(List<JsonNode> events) {
        return events.stream()
                .filter(e -> "train/loss".equals(e.path("name").asText()))
                .map(e -> e.get("value").asDouble())
                .toList();
    }
}
