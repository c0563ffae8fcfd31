package org.traindeck.bench;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.layers.samediff.SameDiffLayer;
import org.nd4j.autodiff.listeners.At;
import org.nd4j.autodiff.listeners.BaseListener;
import org.nd4j.autodiff.listeners.Operation;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.internal.SameDiffOp;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.profiler.OpProfiler;
import org.nd4j.linalg.profiler.ProfilerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;

/**
 * Time per layer of a training step: the native time of every op inside each SameDiff layer (patches, layer norm,
 * attention, position embedding), timed by a SameDiff listener on the layer's forward and gradient graphs; what is
 * left of the step is DL4J's own layers (dense, dropout, add, the output layer) and the Adam update.
 */
final class LayerTimes {

    private LayerTimes() {}

    static void run(TransformerNets.Peer peer, Path out, int steps) {
        EngineBench.Workload w = peer.workload();
        RunConfig config = EngineBench.config(w, out, "cpu");
        Dataset data = DataLoader.load(config, config.data(), "data").train();
        ComputationGraph net = ModelCompiler.build(config.model(), ModelCompiler.inputOf(config.model(), data), 1);
        INDArray[] batch = batch(peer.kind(), w.batch(), data.outputCount());
        net.setInputs(batch[0]);
        net.setLabels(batch[1]);
        fit(net, batch, 3);
        Map<String, OpTimer> timers = timeSameDiffLayers(net);
        long start = System.nanoTime();
        fit(net, batch, steps);
        double stepMs = (System.nanoTime() - start) / 1e6 / steps;
        printLayers(peer.name(), timers, stepMs, steps);
        printOpsInsideSameDiff(timers, steps);
        // the same steps with every native op timed: per op name minus the above is what runs outside them
        OpProfiler.getInstance().reset();
        Nd4j.getExecutioner()
                .setProfilingConfig(
                        ProfilerConfig.builder().checkElapsedTime(true).build());
        fit(net, batch, steps);
        Nd4j.getExecutioner().setProfilingConfig(ProfilerConfig.builder().build());
        System.out.println("  every native op of " + steps + " steps (ND4J's op profiler):");
        OpProfiler.getInstance().printOutDashboard();
    }

    private static void fit(ComputationGraph net, INDArray[] batch, int steps) {
        for (int i = 0; i < steps; i++) {
            net.fit(new INDArray[] {batch[0]}, new INDArray[] {batch[1]});
        }
    }

    /** A timer on each SameDiff layer's forward and gradient graphs, by layer name. */
    private static Map<String, OpTimer> timeSameDiffLayers(ComputationGraph net) {
        Map<String, OpTimer> timers = new LinkedHashMap<>();
        for (Layer layer : net.getLayers()) {
            if (layer instanceof SameDiffLayer) {
                OpTimer timer = new OpTimer();
                SameDiff sd = sameDiff(layer);
                sd.addListeners(timer);
                if (sd.getFunction("grad") != null) {
                    sd.getFunction("grad").addListeners(timer);
                }
                timers.put(layer.getConfig().getLayerName(), timer);
            }
        }
        return timers;
    }

    /** Each SameDiff layer's share of the step, and what is left for the rest. */
    private static void printLayers(String peer, Map<String, OpTimer> timers, double stepMs, int steps) {
        double inSameDiff =
                timers.values().stream().mapToDouble(OpTimer::totalMs).sum() / steps;
        System.out.printf(
                Locale.ROOT, "=== time per layer, %s: %.1f ms per step (wall, %d steps) ===%n", peer, stepMs, steps);
        timers.forEach((name, t) -> System.out.printf(
                Locale.ROOT,
                "  %-22s %7.1f ms  %4.1f %%   top ops: %s%n",
                name,
                t.totalMs() / steps,
                100 * t.totalMs() / steps / stepMs,
                t.top(3, steps)));
        System.out.printf(
                Locale.ROOT,
                "  %-22s %7.1f ms  %4.1f %%%n",
                "rest (DL4J's own layers, Adam, SameDiff's bookkeeping)",
                stepMs - inSameDiff,
                100 * (stepMs - inSameDiff) / stepMs);
    }

    private static void printOpsInsideSameDiff(Map<String, OpTimer> timers, int steps) {
        Map<String, Double> inside = new LinkedHashMap<>();
        timers.values().forEach(t -> t.ms.forEach((op, ms) -> inside.merge(op, ms / steps, Double::sum)));
        System.out.println("  native time per op inside the SameDiff layers (ms per step): "
                + inside.entrySet().stream()
                        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                        .limit(12)
                        .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue()))
                        .toList());
    }

    /** Images [b, 1, 28, 28] with one-hot labels, or token ids [b, 64] with one-hot next tokens [b, V, 64]. */
    private static INDArray[] batch(String kind, int b, int outputs) {
        if (kind.equals("vit")) {
            INDArray y = Nd4j.zeros(DataType.FLOAT, b, outputs);
            for (int i = 0; i < b; i++) {
                y.putScalar(i, i % outputs, 1);
            }
            return new INDArray[] {Nd4j.rand(DataType.FLOAT, b, 1, 28, 28), y};
        }
        int t = 64;
        INDArray x = Nd4j.zeros(DataType.FLOAT, b, t);
        INDArray y = Nd4j.zeros(DataType.FLOAT, b, outputs, t);
        for (int i = 0; i < b; i++) {
            for (int j = 0; j < t; j++) {
                x.putScalar(i, j, (i * 7 + j * 3) % outputs);
                y.putScalar(new int[] {i, (i * 5 + j) % outputs, j}, 1);
            }
        }
        return new INDArray[] {x, y};
    }

    private static SameDiff sameDiff(Layer layer) {
        try {
            Field field = SameDiffLayer.class.getDeclaredField("sameDiff");
            field.setAccessible(true);
            return (SameDiff) field.get(layer);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Native time per op name, from before to after each op. */
    private static final class OpTimer extends BaseListener {
        private final Map<String, Double> ms = new LinkedHashMap<>();
        private long started;

        @Override
        public boolean isActive(Operation operation) {
            return true;
        }

        @Override
        public void preOpExecution(SameDiff sd, At at, SameDiffOp op, OpContext opContext) {
            started = System.nanoTime();
        }

        @Override
        public void opExecution(
                SameDiff sd, At at, MultiDataSet batch, SameDiffOp op, OpContext opContext, INDArray[] outputs) {
            ms.merge(op.getOp().opName(), (System.nanoTime() - started) / 1e6, Double::sum);
        }

        double totalMs() {
            return ms.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        String top(int n, int steps) {
            StringBuilder b = new StringBuilder();
            ms.entrySet().stream()
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .limit(n)
                    .forEach(e -> b.append(String.format(Locale.ROOT, "%s %.1f, ", e.getKey(), e.getValue() / steps)));
            return b.length() == 0 ? "" : b.substring(0, b.length() - 2);
        }
    }
}
