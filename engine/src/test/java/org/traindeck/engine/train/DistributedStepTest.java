package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.parallel.DataFile;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardResult;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.step.ClusterSessions;
import org.traindeck.engine.train.step.ShardGradient;

/**
 * The distributed step through the public backend seam, with an in-process backend (no cluster framework in the
 * engine): N executors train as one device at the global batch; a lost executor stops the run with its checkpoint,
 * which resumes exactly on one machine; a cluster nobody provides is said so.
 */
class DistributedStepTest {

    @TempDir
    Path dir;

    private RunConfig config(String name, int batch, String parallel) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 5, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": %d, "accumulationSteps": 1, "gradientClipping": 1.0,
                             "optimizer": {"type": "adam", "learningRate": 0.003}}],
                 "checkpoint": {"keepBestPerStage": false, "everyEpochs": 1},
                 "parallel": %s}
                """.formatted(name, digits, batch, parallel), dir)
                .orThrow();
    }

    @Test
    void aClusterRunHasOneTierAndNoFallback() {
        assertThat(Tier.clusterChain()).containsExactly(Tier.DISTRIBUTED);
        assertThat(Tier.DISTRIBUTED.synchronous()).isTrue();
    }

    @Test
    void executorsTrainAsOneDeviceAtTheGlobalBatch() throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config("one", 96, "{}"))).runHere();
        RunResult three = TrainingRun.open(RunRequest.of(
                        config("three", 32, "{\"cluster\": \"inprocess://localhost:1\", \"executors\": 3}")))
                .runHere();

        assertThat(three.status()).as(three.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(one.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(three.runDir());
        assertThat(a).hasSizeGreaterThanOrEqualTo(25).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("step %d", i + 1)
                    .isLessThan(1e-4);
        }
        assertThat(Files.readString(three.runDir().resolve("metrics.jsonl"))).contains("\"device\":\"executor2\"");
    }

    @Test
    void aLostExecutorStopsTheRunWithItsCheckpointWhichResumesExactlyOnOneMachine() throws Exception {
        RunResult one = TrainingRun.open(RunRequest.of(config("one", 96, "{}"))).runHere();
        RunResult failed = TrainingRun.open(RunRequest.of(
                        config("lost", 32, "{\"cluster\": \"inprocess://fail-at-20:1\", \"executors\": 3}")))
                .runHere();

        assertThat(failed.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(failed.message())
                .contains("the cluster step 20 failed: executor 1 on in-process was lost")
                .contains("--devices cpu:3")
                .contains("is intact");
        RunResult resumed = TrainingRun.resume(
                        failed.runDir(),
                        new ResumeOptions(null, null, DeviceSelection.cpuWorkers(3)),
                        DeviceDiscovery.system())
                .runHere();
        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(one.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(failed.runDir());
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("step %d", i + 1)
                    .isLessThan(1e-4);
        }
        assertThat(Files.readString(failed.runDir().resolve("train.log"))).containsOnlyOnce("cluster: connecting");
    }

    private RunConfig twoStages(String name, int batch, String parallel) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        String data = "{\"train\": {\"type\": \"csv\", \"path\": \"" + digits
                + "\", \"numClasses\": 10, \"imageShape\": [8, 8, 1], \"normalize\": \"minmax\"}, \"validationSplit\": %s}";
        return ConfigParser.parse(
                        """
                {"name": "%s", "outputDir": "out", "seed": 5, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": %s,
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

    /** The second stage has another batch, optimizer and data (another split): the same executors train it. */
    @Test
    void aTwoStageRunKeepsItsSessionAndTrainsAsOneDeviceAtTheGlobalBatch() throws Exception {
        RunResult one =
                TrainingRun.open(RunRequest.of(twoStages("one", 96, "{}"))).runHere();
        RunResult three = TrainingRun.open(RunRequest.of(
                        twoStages("three", 32, "{\"cluster\": \"inprocess://localhost:1\", \"executors\": 3}")))
                .runHere();

        assertThat(three.status()).as(three.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(one.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(three.runDir());
        // stage 1: 1438 training samples / 96; stage 2: 1617 / 48
        assertThat(a).hasSize(15 + 34).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i)))
                    .as("step %d", i + 1)
                    .isLessThan(1e-4);
        }
        String log = Files.readString(three.runDir().resolve("train.log"));
        assertThat(log)
                .containsOnlyOnce("cluster: connecting")
                .containsOnlyOnce("cluster: stage 2 on the same executors");
    }

    /** Validation runs on the driver: an executor that cannot see the validation file trains all the same. */
    @Test
    void executorsNeitherCheckNorLoadASeparateValidationSource() throws Exception {
        Path digits = TestPaths.repoRoot().resolve("data/digits/digits.csv.gz");
        Path validation = Files.copy(digits, dir.resolve("validation.csv.gz"));
        RunConfig config = ConfigParser.parse("""
                {"name": "val", "outputDir": "out", "seed": 5, "devices": "cpu",
                 "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10},
                          "validation": {"type": "csv", "path": "validation.csv.gz", "numClasses": 10}},
                 "stages": [{"epochs": 1, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.003}}],
                 "parallel": {"cluster": "inprocess://localhost:1", "executors": 2}}
                """.formatted(digits.toString().replace("\\", "/")), dir)
                .orThrow();
        StagePlan plan = new StageSetup(config, null).plan(0);
        ComputationGraph net = ModelCompiler.build(
                config.model(), ModelCompiler.inputOf(config.model(), plan.data.train()), config.seed());
        ShardData data = ClusterSessions.shardData(config, plan);
        Files.delete(validation);

        assertThat(data.files())
                .extracting(DataFile::path)
                .containsExactly(digits.toAbsolutePath().normalize().toString());
        assertThat(data.problemHere()).isNull();
        assertThat(data.configJson()).doesNotContain("validation.csv.gz");
        ExecutorReplica replica =
                new ExecutorReplica(net.getConfiguration().toJson(), false, false, data, "executor 0 on this machine");
        ShardResult r = replica.compute(
                ShardGradient.write(net.params()), new ShardWork(0, 32, List.of(new ShardWork.MicroBatch(0, 1L))));
        assertThat(r.examples()).isEqualTo(32);
    }

    @Test
    void aClusterNoBackendServesIsSaidSo() throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config("nobody", 32, "{\"cluster\": \"spark://127.0.0.1:7077\"}")))
                .runHere();
        assertThat(r.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(r.message()).contains("no cluster backend for spark://127.0.0.1:7077 on the class path");
    }
}
