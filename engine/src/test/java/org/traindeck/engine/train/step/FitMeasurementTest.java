package org.traindeck.engine.train.step;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
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
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.fit.FitEstimate;
import org.traindeck.engine.model.fit.NativeBytes;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * Not a check but the measurement behind docs/configs.md's "Will it fit?" table: a few training steps of a sample config
 * on the CPU, the peak of ND4J's off-heap bytes plus the heap used, plus the workspaces' size, above the level before
 * the model was built, against the fit estimate; and the same without the heap's garbage (the off-heap peak, the
 * workspaces and the heap still live after the steps). Run it alone: -Dtraindeck.measureFit=digits-graph,shapes-unet (or
 * xray-volume-cascade@volume32 for one stage; a JVM of its own per figure keeps one network's buffers out of the next's)
 */
@EnabledIfSystemProperty(named = "traindeck.measureFit", matches = ".+")
class FitMeasurementTest {

    private static final int STEPS = 4;

    @Test
    void measure() throws Exception {
        for (String name : System.getProperty("traindeck.measureFit").split(",")) {
            measure(name);
        }
    }

    /** {@code name}: the first stage of each of its networks; {@code name@stage}: that stage only. */
    private static void measure(String request) throws Exception {
        String name = request.replaceAll("@.*", "");
        String only = request.contains("@") ? request.substring(request.indexOf('@') + 1) : null;
        ModelCheck.Checked checked =
                ModelCheck.checkWithSummary(ConfigParser.load(Path.of("../sample-configs", name + ".json")));
        RunConfig config = checked.result().orThrow();
        for (int i = 0; i < config.stages().size(); i++) {
            boolean wanted = only == null
                    ? i == config.networkStart(i)
                    : only.equals(config.stages().get(i).name());
            if (wanted) {
                measure(name, config, checked, i);
            }
        }
    }

    /** The first stage of each network (a stage of a model of its own; the later ones train the same network). */
    private static void measure(String name, RunConfig config, ModelCheck.Checked checked, int index) throws Exception {
        StageConfig stage = config.stages().get(index);
        ModelCheck.StageNetwork own = checked.networkOf(index);
        ModelInput input = own == null ? checked.input() : own.input();
        FitEstimate estimate = (own == null
                        ? FitEstimate.model(
                                checked.conf(), input, checked.summary().parameters(), stage)
                        : FitEstimate.model(own.conf(), input, own.summary().parameters(), stage))
                .at(stage.batchSize());
        String at = stage.data() != null ? "stages[" + index + "].data" : "data";
        try (DataLoader.Loaded data = DataLoader.load(config, config.dataFor(stage), at)) {
            BatchMaker maker = new BatchMaker(
                    data.train(), ModelCompiler.wantsImages(config.modelAt(index)), null, DataType.FLOAT);
            int[] order = BatchMaker.epochOrder(data.train().size(), true, 1, 0, 0);
            PeakSampler sampler = new PeakSampler();
            ComputationGraph net = ModelCompiler.build(config.modelAt(index), input, config.seed());
            Optimizers.install(
                    net, stage.optimizer(), new FixedSchedule(stage.optimizer().learningRate()), false);
            for (int s = 0; s < STEPS; s++) {
                BatchMaker.Batch b = maker.batch(order, s, stage.batchSize(), 1, 0, 0, true);
                INDArray[] masks = b.labelMask() == null ? null : new INDArray[] {b.labelMask()};
                net.fit(b.inputs(), new INDArray[] {b.labels()}, null, masks);
            }
            sampler.stop();
            // ND4J's workspaces are allocated natively, out of the native count; after a few steps they hold their peak
            // size
            long workspaces = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
                    .mapToLong(MemoryWorkspace::getCurrentSize)
                    .sum();
            long measured = sampler.peak() + workspaces;
            long kept = sampler.offHeap() + workspaces + sampler.liveHeap();
            System.out.printf(
                    Locale.ROOT,
                    "FIT %s stage %s batch %d: estimate %.1f MB (%s; activations %.1f), measured off-heap+heap %.1f MB"
                            + " (error %+.0f%%); off-heap peak %.1f, workspaces %.1f, live heap after the steps %.1f:"
                            + " %.1f MB without the heap's garbage (error %+.0f%%)%n",
                    name,
                    stage.name(),
                    stage.batchSize(),
                    estimate.total() / 1e6,
                    estimate.fromReport() ? "report" : "shapes",
                    estimate.activations() / 1e6,
                    measured / 1e6,
                    100.0 * (estimate.total() - measured) / measured,
                    sampler.offHeap() / 1e6,
                    workspaces / 1e6,
                    sampler.liveHeap() / 1e6,
                    kept / 1e6,
                    100.0 * (estimate.total() - kept) / kept);
            net.close();
        }
    }

    /**
     * Samples, from a thread of its own, the peak of the native bytes outside workspaces ({@link NativeBytes}) plus the heap in use (garbage included),
     * and of the off-heap bytes alone, above the level at its start; at its stop, the heap still live after a collection.
     */
    private static final class PeakSampler {
        private final Runtime rt = Runtime.getRuntime();
        private final long baseHeap;
        private final long baseOffHeap;
        private final AtomicLong peak = new AtomicLong();
        private final AtomicLong peakOffHeap = new AtomicLong();
        private final AtomicBoolean done = new AtomicBoolean();
        private final Thread thread;
        private long liveHeap;

        PeakSampler() {
            System.gc();
            baseHeap = rt.totalMemory() - rt.freeMemory();
            baseOffHeap = NativeBytes.now();
            thread = new Thread(() -> {
                while (!done.get()) {
                    long offHeap = NativeBytes.now() - baseOffHeap;
                    peakOffHeap.accumulateAndGet(offHeap, Math::max);
                    peak.accumulateAndGet(offHeap + rt.totalMemory() - rt.freeMemory() - baseHeap, Math::max);
                    Thread.onSpinWait();
                }
            });
            thread.start();
        }

        void stop() throws InterruptedException {
            done.set(true);
            thread.join();
            System.gc();
            liveHeap = rt.totalMemory() - rt.freeMemory() - baseHeap;
        }

        long peak() {
            return peak.get();
        }

        long offHeap() {
            return peakOffHeap.get();
        }

        long liveHeap() {
            return liveHeap;
        }
    }
}
