package org.traindeck.engine.model.layers;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.nd4j.autodiff.listeners.At;
import org.nd4j.autodiff.listeners.BaseListener;
import org.nd4j.autodiff.listeners.Operation;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.internal.SameDiffOp;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Forward + backward time of one pre-norm ViT block (width 64, 4 heads, T = 50, batch 64, float32), and of its
 * parts alone. A measurement, not a test: it runs only with -Dtraindeck.layers.timing=true.
 */
@EnabledIfSystemProperty(named = "traindeck.layers.timing", matches = "true")
class BlockStepTiming {

    private static final int WIDTH = 64;
    private static final int HEADS = 4;
    private static final int LENGTH = 50;
    private static final int BATCH = 64;

    @Test
    void blockStep() {
        INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, WIDTH, LENGTH);
        INDArray y = Nd4j.rand(DataType.FLOAT, BATCH, WIDTH, LENGTH);
        ComputationGraphConfiguration.GraphBuilder b =
                TinyGraphs.base(DataType.FLOAT, new Adam(1e-3), InputType.recurrent(WIDTH, LENGTH));
        String out = TinyVit.block(b, "b0", "in", WIDTH, HEADS);
        report("whole block", finish(b, out), x, y);
        report("LayerNorm alone", single(new LayerNorm()), x, y);
        report("SelfAttention alone", single(new SelfAttention(WIDTH, HEADS, false)), x, y);
        report("SelfAttention causal", single(new SelfAttention(WIDTH, HEADS, true)), x, y);
        report("output layer alone", single(null), x, y);
        // one example of one step: what is left is the per-op cost of SameDiff and DL4J, not arithmetic
        INDArray tinyX = Nd4j.rand(DataType.FLOAT, 1, WIDTH, 1);
        INDArray tinyY = Nd4j.rand(DataType.FLOAT, 1, WIDTH, 1);
        report("LayerNorm, 1x1 input", single(new LayerNorm()), tinyX, tinyY);
        report("SelfAttention, 1x1", single(new SelfAttention(WIDTH, HEADS, true)), tinyX, tinyY);
        report("output layer, 1x1", single(null), tinyX, tinyY);
        opBreakdown("SelfAttention causal ops", single(new SelfAttention(WIDTH, HEADS, true)), x, y);
        opBreakdown("LayerNorm ops", single(new LayerNorm()), x, y);
    }

    /** Native time per op name inside the layer's SameDiff graphs (forward and gradient), against the wall time. */
    private static void opBreakdown(String what, ComputationGraph graph, INDArray x, INDArray y) {
        graph.setInputs(x);
        graph.setLabels(y);
        graph.computeGradientAndScore();
        OpTimer timer = new OpTimer();
        SameDiff sd = layerSameDiff(graph.getLayer("l"));
        sd.addListeners(timer);
        sd.getFunction("grad").addListeners(timer);
        int steps = 10;
        long start = System.nanoTime();
        for (int i = 0; i < steps; i++) {
            graph.computeGradientAndScore();
        }
        double wall = (System.nanoTime() - start) / 1e6 / steps;
        System.err.printf(
                Locale.ROOT,
                "OPS %s: whole graph %.1f ms per step, inside the layer's ops %.1f ms%n",
                what,
                wall,
                timer.totalMs() / steps);
        timer.perOp().entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .limit(12)
                .forEach(e ->
                        System.err.printf(Locale.ROOT, "OPS   %-28s %6.2f ms%n", e.getKey(), e.getValue() / steps));
    }

    private static SameDiff layerSameDiff(Object layer) {
        try {
            Field field = layer.getClass().getSuperclass().getDeclaredField("sameDiff");
            field.setAccessible(true);
            return (SameDiff) field.get(layer);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class OpTimer extends BaseListener {
        private final Map<String, Double> ms = new HashMap<>();
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

        Map<String, Double> perOp() {
            return ms;
        }

        double totalMs() {
            return ms.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    private static ComputationGraph single(Layer layer) {
        ComputationGraphConfiguration.GraphBuilder b =
                TinyGraphs.base(DataType.FLOAT, new Adam(1e-3), InputType.recurrent(WIDTH, LENGTH));
        if (layer == null) {
            return finish(b, "in");
        }
        b.addLayer("l", layer, "in");
        return finish(b, "l");
    }

    private static ComputationGraph finish(ComputationGraphConfiguration.GraphBuilder b, String last) {
        b.addLayer(
                        "out",
                        new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .nOut(WIDTH)
                                .build(),
                        last)
                .setOutputs("out");
        ComputationGraph graph = new ComputationGraph(b.build());
        graph.init();
        return graph;
    }

    private static void report(String what, ComputationGraph graph, INDArray x, INDArray y) {
        graph.setInputs(x);
        graph.setLabels(y);
        for (int i = 0; i < 5; i++) {
            graph.computeGradientAndScore();
        }
        int steps = 20;
        double[] ms = new double[steps];
        double[] cpuMs = new double[steps];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < steps; i++) {
            long start = System.nanoTime();
            long cpuStart = threads.getCurrentThreadCpuTime();
            graph.computeGradientAndScore();
            cpuMs[i] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e6;
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        Arrays.sort(cpuMs);
        // with OMP_NUM_THREADS=1 the native ops run on this thread, so its CPU time leaves out waiting for a busy core
        System.err.printf(
                Locale.ROOT,
                "TIMING %-22s wall median %7.1f ms, min %7.1f ms; thread CPU median %7.1f ms (forward+backward, batch %d)%n",
                what,
                ms[steps / 2],
                ms[0],
                cpuMs[steps / 2],
                BATCH);
    }
}
