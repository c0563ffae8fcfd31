package org.traindeck.engine.train.step;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.Pointer;
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
import org.traindeck.engine.model.fit.FitEstimate;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * Not a check but the measurement behind the README's "Will it fit?" table: a few training steps of a sample config
 * on the CPU, the peak of ND4J's off-heap bytes plus the heap used, plus the workspaces' size (and the peak of the process's RSS) above the level before
 * the model was built, against the fit estimate. Run it alone: -Dtraindeck.measureFit=digits-graph,shapes-unet
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

    private static void measure(String name) throws Exception {
        ModelCheck.Checked checked =
                ModelCheck.checkWithSummary(ConfigParser.load(Path.of("../sample-configs", name + ".json")));
        RunConfig config = checked.result().orThrow();
        StageConfig stage = config.stages().get(0);
        FitEstimate estimate = FitEstimate.model(
                        checked.conf(), checked.input(), checked.summary().parameters(), stage)
                .at(stage.batchSize());
        try (DataLoader.Loaded data = DataLoader.load(config, config.data(), "data")) {
            BatchMaker maker =
                    new BatchMaker(data.train(), ModelCompiler.wantsImages(config.model()), null, DataType.FLOAT);
            int[] order = BatchMaker.epochOrder(data.train().size(), true, 1, 0, 0);
            System.gc();
            Runtime rt = Runtime.getRuntime();
            long base = Pointer.totalBytes() + rt.totalMemory() - rt.freeMemory();
            long baseRss = Pointer.physicalBytes();
            AtomicLong peak = new AtomicLong(base);
            AtomicLong peakRss = new AtomicLong(baseRss);
            AtomicBoolean done = new AtomicBoolean();
            Thread sampler = new Thread(() -> {
                while (!done.get()) {
                    peak.accumulateAndGet(Pointer.totalBytes() + rt.totalMemory() - rt.freeMemory(), Math::max);
                    peakRss.accumulateAndGet(Pointer.physicalBytes(), Math::max);
                    Thread.onSpinWait();
                }
            });
            sampler.start();
            ComputationGraph net = ModelCompiler.build(config.model(), checked.input(), config.seed());
            Optimizers.install(
                    net, stage.optimizer(), new FixedSchedule(stage.optimizer().learningRate()), false);
            for (int s = 0; s < STEPS; s++) {
                BatchMaker.Batch b = maker.batch(order, s, stage.batchSize(), 1, 0, 0, false);
                net.fit(new INDArray[] {b.features()}, new INDArray[] {b.labels()});
            }
            done.set(true);
            sampler.join();
            // ND4J's workspaces are allocated natively, out of JavaCPP's count; after a few steps they hold their peak
            // size
            long workspaces = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
                    .mapToLong(MemoryWorkspace::getCurrentSize)
                    .sum();
            long measured = peak.get() - base + workspaces;
            long rss = peakRss.get() - baseRss;
            System.out.printf(
                    Locale.ROOT,
                    "FIT %s batch %d: estimate %.1f MB (%s), measured off-heap+heap %.1f MB (workspaces %.1f; error %+.0f%%), RSS %.1f MB (error %+.0f%%)%n",
                    name,
                    stage.batchSize(),
                    estimate.total() / 1e6,
                    estimate.fromReport() ? "report" : "shapes",
                    measured / 1e6,
                    workspaces / 1e6,
                    100.0 * (estimate.total() - measured) / measured,
                    rss / 1e6,
                    100.0 * (estimate.total() - rss) / rss);
            net.close();
        }
    }
}
