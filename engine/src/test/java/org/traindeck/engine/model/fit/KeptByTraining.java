package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.deeplearning4j.nn.graph.ComputationGraph;
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
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.step.Optimizers;

/**
 * What real training steps keep: ND4J's off-heap bytes and workspaces, and the live heap (where kernels keep their
 * Java-side buffers), after the steps, above the level before the model was built. Every buffer a step needs again
 * outlives it, so no peak has to be caught, and the figure does not depend on the machine's load.
 */
final class KeptByTraining {

    private static final String RESULT = "kept ";

    private KeptByTraining() {}

    /**
     * Bytes held after {@code steps} training steps of the config's first stage, measured in a JVM of its own: in the
     * whole suite's JVM what earlier tests leave behind moved the figure (the patch kernel's steps once seemed to keep
     * 1.4 of their ~14 MB there, 13.9 alone).
     */
    static long inOwnJvm(Path configFile, int steps) throws IOException, InterruptedException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-cp",
                System.getProperty("java.class.path"),
                KeptByTraining.class.getName(),
                configFile.toAbsolutePath().toString(),
                String.valueOf(steps));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor())
                .as("the measuring JVM's exit code; its output:%n%s", out)
                .isZero();
        return out.lines()
                .filter(line -> line.startsWith(RESULT))
                .mapToLong(
                        line -> Long.parseLong(line.substring(RESULT.length()).trim()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no '" + RESULT + "' line in:\n" + out));
    }

    /** The child's side of {@link #inOwnJvm}: CONFIG STEPS, prints the bytes kept. */
    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        ModelCheck.Checked checked = ModelCheck.checkWithSummary(ConfigParser.load(Path.of(args[0])));
        RunConfig config = checked.result().orThrow();
        System.out.println(RESULT + bytes(config, checked, Integer.parseInt(args[1])));
        System.exit(0);
    }

    /** Bytes held after {@code steps} training steps of the config's first stage. */
    static long bytes(RunConfig config, ModelCheck.Checked checked, int steps) {
        StageConfig stage = config.stages().get(0);
        try (DataLoader.Loaded data = DataLoader.load(config, config.data(), "data")) {
            BatchMaker maker =
                    new BatchMaker(data.train(), ModelCompiler.wantsImages(config.model()), null, DataType.FLOAT);
            int[] order = BatchMaker.epochOrder(data.train().size(), false, 1, 0, 0);
            // an earlier network's workspaces on this thread (same names) would be counted at their size
            Nd4j.getWorkspaceManager().destroyAllWorkspacesForCurrentThread();
            long heap0 = liveHeap();
            long offHeap0 = settledOffHeap();
            ComputationGraph net = ModelCompiler.build(config.model(), checked.input(), config.seed());
            Optimizers.install(
                    net, stage.optimizer(), new FixedSchedule(stage.optimizer().learningRate()), false);
            for (int s = 0; s < steps; s++) {
                BatchMaker.Batch b = maker.batch(order, s, stage.batchSize(), 1, 0, 0, false);
                INDArray[] masks = b.labelMask() == null ? null : new INDArray[] {b.labelMask()};
                net.fit(b.inputs(), new INDArray[] {b.labels()}, null, masks);
            }
            long workspaces = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
                    .mapToLong(MemoryWorkspace::getCurrentSize)
                    .sum();
            long kept = liveHeap() - heap0 + settledOffHeap() - offHeap0 + workspaces;
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
     * The native count once the garbage of earlier tests is freed (ND4J's and JavaCPP's deallocators run after a
     * collection, on threads of their own, later on a busy machine): the count when three polls in a row, each after a
     * collection, have not seen it fall. One poll that did not fall was not enough in the whole suite: an earlier test's
     * arrays were freed during the steps and the steps seemed to keep 1.9 of their 14 MB.
     */
    private static long settledOffHeap() {
        AtomicLong last = new AtomicLong(Long.MAX_VALUE);
        AtomicInteger steady = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    System.gc();
                    long now = NativeBytes.now();
                    if (now < last.getAndSet(now)) {
                        steady.set(0);
                        return false;
                    }
                    return steady.incrementAndGet() >= 3;
                });
        return last.get();
    }
}
