package org.traindeck.engine.train;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.parallel.Tier;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distributed step through the public backend seam, with an in-process backend (no cluster framework in the
 * engine): N executors train as one device at the global batch; a lost executor stops the run with its checkpoint,
 * which resumes exactly on one machine; a cluster nobody provides is said so.
 */
class DistributedStepTest {

    @TempDir
    Path dir;

    private RunConfig config(String name, int batch, String parallel) {
        String digits = TestPaths.repoRoot().resolve("data/digits/digits.csv.gz").toString().replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 5, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": %d, "accumulationSteps": 1, "gradientClipping": 1.0,
                             "optimizer": {"type": "adam", "learningRate": 0.003}}],
                 "checkpoint": {"keepBestPerStage": false, "everyEpochs": 1},
                 "parallel": %s}
                """.formatted(name, digits, batch, parallel), dir).orThrow();
    }

    @Test
    void aClusterRunHasOneTierAndNoFallback() {
        assertThat(Tier.clusterChain()).containsExactly(Tier.DISTRIBUTED);
        assertThat(Tier.DISTRIBUTED.synchronous()).isTrue();
    }

    @Test
    void executorsTrainAsOneDeviceAtTheGlobalBatch() throws Exception {
        RunResult one = TrainingRun.prepare(config("one", 96, "{}")).runHere();
        RunResult three = TrainingRun.prepare(config("three", 32, "{\"cluster\": \"inprocess://localhost:1\", \"executors\": 3}")).runHere();

        assertThat(three.status()).as(three.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(one.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(three.runDir());
        assertThat(a).hasSizeGreaterThanOrEqualTo(25).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i))).as("step %d", i + 1).isLessThan(1e-4);
        }
        assertThat(Files.readString(three.runDir().resolve("metrics.jsonl"))).contains("\"device\":\"executor2\"");
    }

    @Test
    void aLostExecutorStopsTheRunWithItsCheckpointWhichResumesExactlyOnOneMachine() throws Exception {
        RunResult one = TrainingRun.prepare(config("one", 96, "{}")).runHere();
        RunResult failed = TrainingRun.prepare(config("lost", 32, "{\"cluster\": \"inprocess://fail-at-20:1\", \"executors\": 3}")).runHere();

        assertThat(failed.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(failed.message()).contains("the cluster step 20 failed: executor 1 on in-process was lost")
                .contains("--devices cpu:3").contains("is intact");
        RunResult resumed = TrainingRun.resume(failed.runDir(), new TrainingRun.ResumeOptions(null, null, DeviceSelection.cpuWorkers(3)),
                DeviceDiscovery.system()).runHere();
        assertThat(resumed.status()).as(resumed.message()).isEqualTo(RunResult.Status.FINISHED);
        List<Double> a = SynchronousEquivalenceTest.losses(one.runDir());
        List<Double> b = SynchronousEquivalenceTest.losses(failed.runDir());
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Math.abs(b.get(i) - a.get(i)) / Math.abs(a.get(i))).as("step %d", i + 1).isLessThan(1e-4);
        }
        assertThat(Files.readString(failed.runDir().resolve("train.log"))).containsOnlyOnce("cluster: connecting");
    }

    @Test
    void aClusterNoBackendServesIsSaidSo() throws Exception {
        RunResult r = TrainingRun.prepare(config("nobody", 32, "{\"cluster\": \"spark://127.0.0.1:7077\"}")).runHere();
        assertThat(r.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(r.message()).contains("no cluster backend for spark://127.0.0.1:7077 on the class path");
    }
}
