package org.traindeck.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * On a real master and two workers (127.0.0.1): two executors train the digits LeNet exactly as one device at the
 * global batch (per-step losses within 1e-4); a killed executor ends the run with the machine named, and it resumes
 * exactly on one machine; a master that dies ends the run (last: it takes the cluster down).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTrainingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = new LocalCluster(dir);
        cluster.startMaster().startWorkers(2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static RunConfig config(String name, int batch, String parallel) {
        return config(name, batch, 1, parallel);
    }

    static RunConfig config(String name, int batch, int epochs, String parallel) {
        return config(dir, name, batch, epochs, parallel);
    }

    static RunConfig config(Path dir, String name, int batch, int epochs, String parallel) {
        return config(dir, name, batch, epochs, parallel, DIGITS.toString());
    }

    private static final Path DIGITS =
            Path.of("..", "data", "digits", "digits.csv.gz").toAbsolutePath().normalize();

    static RunConfig config(Path dir, String name, int batch, int epochs, String parallel, String digits) {
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 11, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.2},
                 "stepTimeoutSeconds": 45,
                 "stages": [{"epochs": %d, "batchSize": %d, "gradientClipping": 1.0, "optimizer": {"type": "adam", "learningRate": 0.003},
                             "schedule": {"type": "warmupCosine", "warmupSteps": 5, "minLearningRate": 0.0001}}],
                 "checkpoint": {"keepBestPerStage": false, "everyEpochs": 1},
                 "parallel": %s}
                """.formatted(name, digits, epochs, batch, parallel), dir)
                .orThrow();
    }

    static List<Double> losses(Path runDir) throws IOException {
        return metric(runDir, "train/loss");
    }

    static List<Double> metric(Path runDir, String name) throws IOException {
        List<Double> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (name.equals(e.path("name").asText()) && !e.hasNonNull("device")) {
                out.add(e.get("value").asDouble());
            }
        }
        return out;
    }

    /** The devices that have a per-device value of metric {@code name}, in order of first appearance. */
    static Set<String> devices(Path runDir, String name) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (name.equals(e.path("name").asText()) && e.hasNonNull("device")) {
                out.add(e.get("device").asText());
            }
        }
        return out;
    }

    static void assertSameLosses(List<Double> a, List<Double> b) {
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("relative loss difference at step %d", i + 1)
                    .isLessThan(1e-4);
        }
    }

    String clusterParallel() {
        return "{\"cluster\": \"" + cluster.url() + "\", \"executors\": 2, \"clusterSecretFile\": \""
                + cluster.secretFile.toString().replace("\\", "/") + "\"}";
    }

    @Test
    @Order(1)
    void twoExecutorsTrainExactlyAsOneDeviceAtTheGlobalBatch() throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config("one", 48, "{}"))).runHere();
        RunResult two = TrainingRun.open(RunRequest.of(config("two", 24, clusterParallel())))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = losses(one.runDir());
        List<Double> b = losses(two.runDir());
        assertThat(a).hasSizeGreaterThanOrEqualTo(25);
        assertSameLosses(a, b);
        assertThat(Files.readString(two.runDir().resolve("train.log"))).contains("cluster: training on executor");
        List<Double> exchange = metric(two.runDir(), "parallel/allreduce_ms");
        assertThat(exchange).isNotEmpty();
        // each executor's throughput reaches the same metric file (and charts) as a local device's
        assertThat(devices(two.runDir(), "throughput/samples_per_s")).containsExactly("executor0", "executor1");
        System.out.printf(
                "one device: %.1f s, two executors: %.1f s for %d steps; exchange ms per step: %s%n",
                one.elapsedSeconds(), two.elapsedSeconds(), a.size(), exchange);
        System.out.println(Files.readString(two.runDir().resolve("train.log")));
    }

    /** Stage 2 has another batch, optimizer and data (another split), trained by the executors of stage 1. */
    static RunConfig twoStages(String name, int batch, String parallel) {
        String data = "{\"train\": {\"type\": \"csv\", \"path\": \""
                + DIGITS.toString().replace("\\", "/")
                + "\", \"numClasses\": 10, \"imageShape\": [8, 8, 1], \"normalize\": \"minmax\"}, \"validationSplit\": %s}";
        return ConfigParser.parse(
                        """
                {"name": "%s", "outputDir": "out", "seed": 11, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": %s,
                 "stepTimeoutSeconds": 45,
                 "stages": [{"name": "first", "epochs": 1, "batchSize": %d, "gradientClipping": 1.0,
                             "optimizer": {"type": "adam", "learningRate": 0.003}},
                            {"name": "second", "epochs": 1, "batchSize": %d, "optimizer": {"type": "sgd", "learningRate": 0.01},
                             "data": %s}],
                 "checkpoint": {"keepBestPerStage": false, "everyEpochs": 1},
                 "parallel": %s}
                """.formatted(name, data.formatted("0.2"), batch, batch / 2, data.formatted("0.1"), parallel),
                        dir)
                .orThrow();
    }

    @Test
    @Order(1)
    void aTwoStageRunStartsItsExecutorsOnceAndTrainsExactlyAsOneDevice() throws Exception {
        RunResult one =
                TrainingRun.open(RunRequest.of(twoStages("one-2s", 96, "{}"))).runHere();
        RunResult two = TrainingRun.open(RunRequest.of(twoStages("two-2s", 48, clusterParallel())))
                .runHere();

        assertThat(one.status()).as(one.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(two.status()).as(two.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = losses(one.runDir());
        assertThat(a).as("steps of both stages").hasSize(15 + 34);
        assertSameLosses(a, losses(two.runDir()));
        String log = Files.readString(two.runDir().resolve("train.log"));
        // one Spark driver, whose executors started once, for both stages
        assertThat(log)
                .containsOnlyOnce("cluster: connecting")
                .containsOnlyOnce("cluster: training on executor")
                .containsOnlyOnce("cluster: stage 2 on the same executors (executor");
        assertThat(devices(two.runDir(), "throughput/samples_per_s")).containsExactly("executor0", "executor1");
        System.out.println(log);
    }

    @Test
    @Order(2)
    void anExecutorKilledMidRunEndsTheRunWithTheMachineNamedAndItResumesExactlyOnOneMachine() throws Exception {
        RunResult reference = TrainingRun.open(RunRequest.of(config("reference", 128, 2, "{}")))
                .runHere();
        TrainingRun run = TrainingRun.open(RunRequest.of(config("killed", 64, 2, clusterParallel())));
        run.start();
        await().atMost(Duration.ofSeconds(180)).until(() -> run.currentStep() >= 14);
        List<ProcessHandle> executors = cluster.executors();
        assertThat(executors).hasSize(2);
        long killedAt = System.nanoTime();
        executors.get(1).destroyForcibly();
        RunResult failed = run.completion().get(120, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - killedAt) / 1e9;

        assertThat(failed.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(failed.message()).contains("executor").contains("127.0.0.1").contains("is intact");
        assertThat(seconds).as("seconds from the kill to the run's end").isLessThan(60);
        assertThat(failed.lastCheckpoint()).isNotNull();

        RunResult resumed = TrainingRun.resume(
                        failed.runDir(),
                        new ResumeOptions(null, null, DeviceSelection.cpuWorkers(2)),
                        DeviceDiscovery.system())
                .runHere();
        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        assertSameLosses(losses(reference.runDir()), losses(failed.runDir()));
        System.out.printf(
                "killed executor pid %d: the run ended %.1f s later: %s%n",
                executors.get(1).pid(), seconds, failed.message());
    }

    @Test
    @Order(3)
    void aStuckExecutorEndsTheRunAtTheStepDeadlineWithTheMachineNamed() throws Exception {
        // stepTimeoutSeconds 45: the step's own deadline is 30 s (the first step, which loads ND4J, fits in it)
        TrainingRun run = TrainingRun.open(RunRequest.of(config("stuck", 64, 2, clusterParallel())));
        run.start();
        await().atMost(Duration.ofSeconds(180)).until(() -> run.currentStep() >= 14);
        List<ProcessHandle> executors = cluster.executors();
        assertThat(executors).hasSize(2);
        long stoppedAt = System.nanoTime();
        signal("STOP", executors.get(0));
        try {
            RunResult failed = run.completion().get(120, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - stoppedAt) / 1e9;
            assertThat(failed.status()).as(failed.message()).isEqualTo(RunResult.Status.FAILED);
            assertThat(failed.message())
                    .contains("did not finish within its 30 s")
                    .contains("executor")
                    .contains("127.0.0.1")
                    .contains("is intact");
            assertThat(seconds).as("seconds from the stop to the run's end").isLessThan(45);
        } finally {
            executors.get(0).destroyForcibly();
            signal("CONT", executors.get(0));
        }
    }

    private static void signal(String name, ProcessHandle p) throws Exception {
        new ProcessBuilder("kill", "-" + name, String.valueOf(p.pid()))
                .inheritIO()
                .start()
                .waitFor();
    }

    /**
     * /proc/self/cwd is a path that each process resolves to its own working folder: the driver (this JVM) finds the
     * data there, the executors (working in their worker's folder) do not, as on machines without a shared mount.
     */
    @Test
    @Order(4)
    void executorsThatCannotReadTheDriversDataPathAreNamedBeforeStepOne() throws Exception {
        Path relative = Path.of("target", "driver-only-data", "digits.csv.gz");
        Files.createDirectories(relative.getParent());
        Files.copy(DIGITS, relative, StandardCopyOption.REPLACE_EXISTING);
        String driverOnly = "/proc/self/cwd/" + relative.toString().replace('\\', '/');
        assertThat(Path.of(driverOnly)).as("the driver's view").exists();

        RunResult failed = TrainingRun.open(
                        RunRequest.of(config(dir, "driver-only", 24, 1, clusterParallel(), driverOnly)))
                .runHere();

        assertThat(failed.status()).as(failed.message()).isEqualTo(RunResult.Status.FAILED);
        assertThat(failed.message())
                .contains("executor")
                .contains("on 127.0.0.1")
                .contains("cannot read " + driverOnly)
                .contains("same path");
        Path metrics = failed.runDir().resolve("metrics.jsonl");
        assertThat(Files.exists(metrics) ? losses(failed.runDir()) : List.of())
                .as("steps trained")
                .isEmpty();
        System.out.println("driver-only data: " + failed.message());
    }

    @Test
    @Order(5)
    void aMasterThatDiesEndsTheRunWithTheMasterNamed() throws Exception {
        TrainingRun run = TrainingRun.open(RunRequest.of(config("master-lost", 64, 2, clusterParallel())));
        run.start();
        await().atMost(Duration.ofSeconds(180)).until(() -> run.currentStep() >= 14);
        long killedAt = System.nanoTime();
        cluster.killMaster();
        RunResult failed = run.completion().get(120, TimeUnit.SECONDS);

        assertThat(failed.status()).as(failed.message()).isEqualTo(RunResult.Status.FAILED);
        assertThat(failed.message())
                .contains("the master at 127.0.0.1:" + cluster.port + " stopped answering")
                .contains("is intact");
        assertThat((System.nanoTime() - killedAt) / 1e9)
                .as("seconds from the kill to the run's end")
                .isLessThan(60);
    }
}
