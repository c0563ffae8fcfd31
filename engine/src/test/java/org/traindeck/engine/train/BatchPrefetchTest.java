package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.BatchPrefetcher;

/**
 * Batches prepared ahead on a loader thread: the same batches and augmentation draws as without (so the same losses,
 * and a stop and resume still exact), the thread ended on finish, stop and fallback, and a failure in it reaching
 * the training thread instead of leaving it waiting.
 */
class BatchPrefetchTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "out", "seed": 11, "devices": "%s",
             "model": {"type": "lenet", "channels": [4], "kernelSize": 3, "dense": 16, "dropout": 0.1},
             "data": {"train": {"type": "synthetic", "samples": 240, "imageShape": [8, 8, 1], "numClasses": 4, "noise": 0.5},
                      "validationSplit": 0.2},
             "stages": [{"epochs": 2, "batchSize": 8, "accumulationSteps": 2, "optimizer": {"type": "adam", "learningRate": 0.01},
                         "augmentation": {"rotate90": true, "flipHorizontal": true, "brightness": 0.2, "contrast": 0.2}}],
             "parallel": {"prefetch": %d}}
            """;

    private static RunConfig config(Path dir, String name, String devices, int prefetch) {
        return ConfigParser.parse(CONFIG.formatted(name, devices, prefetch), dir)
                .orThrow();
    }

    private static List<Thread> loaderThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(BatchPrefetcher.THREAD_NAME) && t.isAlive())
                .toList();
    }

    private static void awaitNoLoaderThread() {
        await("the loader threads to end")
                .atMost(Duration.ofMinutes(1))
                .until(() -> loaderThreads().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cpu:1", "cpu:2"})
    void preparedAheadOrNotTheRunIsTheSame(String devices, @TempDir Path dir) throws Exception {
        RunResult inline = TrainingRun.open(RunRequest.of(config(dir, "inline", devices, 0)))
                .runHere();
        RunResult ahead = TrainingRun.open(RunRequest.of(config(dir, "ahead", devices, 3)))
                .runHere();

        assertThat(ahead.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ahead.steps()).isEqualTo(inline.steps()).isGreaterThan(10);
        assertThat(ResumeTest.lossesByStep(ahead.runDir())).isEqualTo(ResumeTest.lossesByStep(inline.runDir()));
        assertThat(ResumeTest.finalParams(ahead)).containsExactly(ResumeTest.finalParams(inline));
        awaitNoLoaderThread();
    }

    @Test
    void aStopAndResumeWithBatchesPreparedAheadIsExact(@TempDir Path dir) throws Exception {
        RunResult straight = TrainingRun.open(RunRequest.of(config(dir, "straight", "cpu:1", 2)))
                .runHere();
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", "cpu:1", 2), 7);
        assertThat(stopped.status()).isEqualTo(RunResult.Status.STOPPED);
        awaitNoLoaderThread();

        RunResult resumed = TrainingRun.resume(stopped.runDir(), ResumeOptions.NONE, DeviceDiscovery.system())
                .runHere();

        assertThat(resumed.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(ResumeTest.lossesByStep(resumed.runDir())).isEqualTo(ResumeTest.lossesByStep(straight.runDir()));
        assertThat(ResumeTest.finalParams(resumed)).containsExactly(ResumeTest.finalParams(straight));
    }

    @Test
    void aFallbackEndsTheFailedTiersLoaderBeforeTheNextStarts(@TempDir Path dir) throws Exception {
        FaultPlan failing = FaultPlan.NONE.failingWorkerAtStep(4);
        AtomicInteger most = new AtomicInteger();
        // counted on the training thread after every step (a listener hears the steps later, maybe after the run)
        TrainingRun run = TrainingRun.open(RunRequest.of(config(dir, "fallback", "cpu:2", 2))
                .on(DeviceDiscovery.system())
                .withFaults(new RunFaults() {
                    @Override
                    public long failWorkerAtStep() {
                        return failing.failWorkerAtStep();
                    }

                    @Override
                    public void afterStep(long globalStep) {
                        most.accumulateAndGet(loaderThreads().size(), Math::max);
                    }
                }));
        run.start();
        RunResult r = run.await();

        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(RunFiles.jsonl(r.runDir()).stream()
                        .filter(e -> "FALLBACK".equals(e.path("event").asText())))
                .isNotEmpty();
        assertThat(most.get()).as("loader threads alive at once").isEqualTo(1);
        awaitNoLoaderThread();
    }

    @Test
    void aFailureWhilePreparingABatchReachesTheTrainingThread() {
        IllegalStateException broken = new IllegalStateException("batch 3 cannot be read");
        AtomicInteger made = new AtomicInteger();
        BatchPrefetcher prefetcher = new BatchPrefetcher(
                (order, epoch, index) -> {
                    made.incrementAndGet();
                    if (index == 6) {
                        throw broken;
                    }
                    return new BatchMaker.Batch(Nd4j.zeros(1, 2), Nd4j.zeros(1, 2), 1);
                },
                2,
                10,
                () -> {});
        int[] order = new int[10];
        try (prefetcher) {
            assertThat(prefetcher.take(order, 0, 0, 2)).hasSize(2);
            // two taken, two waiting in the queue, one made and waiting for room: no more
            await().atMost(Duration.ofMinutes(1)).until(() -> made.get() == 5);
            assertThat(prefetcher.take(order, 0, 2, 3)).hasSize(1);
            assertThat(made.get()).isLessThanOrEqualTo(3 + 2 + 1);
            assertThat(prefetcher.take(order, 0, 3, 6)).hasSize(3);
            assertThat(catchThrowable(() -> prefetcher.take(order, 0, 6, 7))).isSameAs(broken);
            awaitNoLoaderThread();
            // asked again, it tries again from that batch
            assertThat(catchThrowable(() -> prefetcher.take(order, 0, 6, 7))).isSameAs(broken);
        }
        awaitNoLoaderThread();
    }

    @Test
    void anErrorWhilePreparingABatchReachesTheTrainingThreadToo() {
        InternalError sigbus = new InternalError("a fault occurred in an unsafe memory access");
        try (BatchPrefetcher prefetcher = new BatchPrefetcher(
                (order, epoch, index) -> {
                    throw sigbus;
                },
                2,
                10,
                () -> {})) {
            assertThat(catchThrowable(() -> prefetcher.take(new int[10], 0, 0, 1)))
                    .isSameAs(sigbus);
        }
        awaitNoLoaderThread();
    }
}
