package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.Pointer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.step.Optimizers;

/**
 * The fit estimate of a model of TrainDeck's transformer kernels against what its training really keeps: four blocks
 * (64 tokens of 64) at batch 32, whose kernels' buffers are most of the memory. What stays after a few steps (ND4J's
 * off-heap bytes and workspaces, and the live heap, where the kernels keep their Java-side buffers) is counted once the
 * steps are over: every buffer outlives its step, so no peak has to be caught. The estimate counted the buffers three
 * times (2.4 times the measure) before they were counted once.
 */
class KernelBuffersFitTest {

    @Test
    void theEstimateOfTransformerKernelsIsCloseToWhatTrainingKeeps(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("m.json"), """
                {"name": "m", "seed": 3, "model": {"type": "graph", "layers": [
                   {"name": "tokens", "type": "patches", "size": 8, "units": 64},
                   {"type": "transformerBlock", "heads": 4},
                   {"type": "transformerBlock", "heads": 4},
                   {"type": "transformerBlock", "heads": 4},
                   {"type": "transformerBlock", "heads": 4},
                   {"type": "globalPool"}]},
                 "data": {"train": {"type": "synthetic", "samples": 96, "imageShape": [64, 64, 3], "numClasses": 4}},
                 "stages": [{"epochs": 1, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        ModelCheck.Checked checked = ModelCheck.checkWithSummary(ConfigParser.load(file));
        RunConfig config = checked.result().orThrow();
        StageConfig stage = config.stages().get(0);
        FitEstimate estimate = FitEstimate.model(
                        checked.conf(), checked.input(), checked.summary().parameters(), stage)
                .at(stage.batchSize());

        long kept = keptByTraining(config, checked, stage, 3);

        assertThat(estimate.fromReport()).isFalse();
        assertThat((double) estimate.total() / kept)
                .as("estimate %d bytes, kept %d bytes", estimate.total(), kept)
                .isBetween(0.75, 1.5);
    }

    /** Bytes ND4J and the heap hold after {@code steps} training steps, above the level before the model was built. */
    private static long keptByTraining(RunConfig config, ModelCheck.Checked checked, StageConfig stage, int steps) {
        try (DataLoader.Loaded data = DataLoader.load(config, config.data(), "data")) {
            BatchMaker maker =
                    new BatchMaker(data.train(), ModelCompiler.wantsImages(config.model()), null, DataType.FLOAT);
            int[] order = BatchMaker.epochOrder(data.train().size(), false, 1, 0, 0);
            long heap0 = liveHeap();
            long offHeap0 = settledOffHeap();
            ComputationGraph net = ModelCompiler.build(config.model(), checked.input(), config.seed());
            Optimizers.install(
                    net, stage.optimizer(), new FixedSchedule(stage.optimizer().learningRate()), false);
            for (int s = 0; s < steps; s++) {
                BatchMaker.Batch b = maker.batch(order, s, stage.batchSize(), 1, 0, 0, false);
                net.fit(b.inputs(), new INDArray[] {b.labels()});
            }
            long workspaces = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
                    .mapToLong(MemoryWorkspace::getCurrentSize)
                    .sum();
            long kept = liveHeap() - heap0 + Pointer.totalBytes() - offHeap0 + workspaces;
            assertThat(net.getIterationCount()).isEqualTo(steps);
            return kept;
        }
    }

    private static long liveHeap() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }

    /**
     * JavaCPP's off-heap count once the garbage of earlier tests is freed (its deallocator runs after a collection,
     * on a thread of its own): the count when it no longer falls.
     */
    private static long settledOffHeap() {
        AtomicLong last = new AtomicLong(Long.MAX_VALUE);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    System.gc();
                    long now = Pointer.totalBytes();
                    return now >= last.getAndSet(now);
                });
        return last.get();
    }
}
