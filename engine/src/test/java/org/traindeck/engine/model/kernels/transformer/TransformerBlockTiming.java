package org.traindeck.engine.model.kernels.transformer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * A measurement, not a test: one fused block at the ViT sample's shape (batch 64, 50 steps, width 64, 4 heads, hidden
 * 128, no dropout) and the GPT sample's (batch 32, 64 steps, width 64, 4 heads, hidden 256, causal, dropout 0.1),
 * forward and backward called on the layer directly; prints the median thread CPU time per call of each, and of its
 * parts. Also the bench's workstation ViT ("vit-ws": batch 64, 65 steps, width 192, 3 heads, hidden 768) and the x-ray
 * cascade's conditioned, cross-attending block ("xray", {@link ConditionedBlockTiming}). Run it in
 * fresh JVMs alternating two builds (old and new classes) to compare them: java -cp
 * test-classes:classes:deps org.traindeck.engine.model.kernels.TransformerBlockTiming [calls] [vit,gpt,vit-ws,xray]
 */
public final class TransformerBlockTiming {

    private TransformerBlockTiming() {}

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        String only = args.length > 1 ? args[1] : "vit,gpt";
        Set<String> wanted = Set.of(only.split(","));
        if (wanted.contains("vit")) {
            time("vit", 64, 50, 64, 4, 128, false, 0, calls);
        }
        if (wanted.contains("gpt")) {
            time("gpt", 32, 64, 64, 4, 256, true, 0.1, calls);
        }
        if (wanted.contains("vit-ws")) {
            // the bench's workstation ViT: 32×32 images in 4×4 patches and a class token, width 192, 3 heads
            time("vit-ws", 64, 65, 192, 3, 768, false, 0, calls);
        }
        if (wanted.contains("xray")) {
            ConditionedBlockTiming.time(calls);
        }
        System.exit(0);
    }

    private static void time(
            String name,
            int mb,
            int length,
            int width,
            int heads,
            int hidden,
            boolean causal,
            double dropout,
            int calls) {
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(5)
                .dataType(DataType.FLOAT)
                .updater(new Adam(1e-3))
                .graphBuilder()
                .addInputs("input")
                .addLayer("block", new TransformerBlock(0, hidden, heads, causal, dropout, false), "input")
                .addLayer(
                        "out",
                        new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .nOut(2)
                                .dataFormat(RNNFormat.NCW)
                                .build(),
                        "block")
                .setOutputs("out")
                .setInputTypes(InputType.recurrent(width, length, RNNFormat.NCW))
                .build());
        net.init();
        net.initGradientsView();
        Layer layer = net.getLayer("block");
        Nd4j.getRandom().setSeed(3);
        INDArray x = Nd4j.randn(DataType.FLOAT, mb, width, length);
        INDArray eps = Nd4j.randn(DataType.FLOAT, mb, width, length);
        LayerWorkspaceMgr mgr = LayerWorkspaceMgr.noWorkspaces();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] forward = new long[calls];
        long[] backward = new long[calls];
        for (int warm = 0; warm < 2; warm++) {
            for (int i = 0; i < calls; i++) {
                layer.setInput(x, mgr);
                long t0 = threads.getCurrentThreadCpuTime();
                layer.activate(true, mgr);
                long t1 = threads.getCurrentThreadCpuTime();
                layer.backpropGradient(eps, mgr);
                long t2 = threads.getCurrentThreadCpuTime();
                forward[i] = t1 - t0;
                backward[i] = t2 - t1;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%s: forward %.3f ms, backward %.3f ms (median thread CPU of %d calls)%n",
                name,
                median(forward) / 1e6,
                median(backward) / 1e6,
                calls);
        parts(name, mb, length, width, heads, hidden, causal, calls);
    }

    /** The attention, the layer norm and the GELU alone, on one set of buffers filled with random numbers. */
    private static void parts(
            String name, int mb, int length, int width, int heads, int hidden, boolean causal, int calls) {
        TransformerBlockBuffers b = new TransformerBlockBuffers(mb, length, width, hidden, heads, false);
        java.util.Random random = new java.util.Random(1);
        int n = b.rows;
        for (int i = 0; i < 3 * n * width; i++) {
            b.qkv.buffer.put(i, (float) random.nextGaussian());
            b.dqkv.buffer.put(i, 0);
        }
        for (int i = 0; i < n * width; i++) {
            b.datt.buffer.put(i, (float) random.nextGaussian());
            b.x[i] = (float) random.nextGaussian();
        }
        for (int i = 0; i < n * hidden; i++) {
            b.u.buffer.put(i, (float) random.nextGaussian());
            b.dz.buffer.put(i, (float) random.nextGaussian());
        }
        float[] gain = new float[width];
        java.util.Arrays.fill(gain, 1.1f);
        float[] bias = new float[Math.max(width, hidden)];
        float[] cs = new float[Math.max(width, hidden)];
        float[] cs2 = new float[width];
        String[] names = {
            "attention forward",
            "attention backward",
            "layer norm",
            "layer norm backward",
            "gelu",
            "gelu backward",
            "toRows",
            "fromRows"
        };
        Runnable[] runs = {
            () -> TransformerBlockAttention.forward(b, b.attended, width, heads, causal),
            () -> TransformerBlockAttention.backward(b, width, heads, causal),
            () -> TransformerBlockMath.layerNorm(
                    b.x, b.xhat1, b.rstd1, b.rows2, gain, bias, n, width, 1e-5, b.local[0]),
            () -> TransformerBlockMath.layerNormBackward(
                    b.x, b.xhat1, b.rstd1, gain, b.dy, b.dr1, cs, cs2, b.rows2, n, width, b.local),
            () -> TransformerBlockGelu.forward(b, bias, hidden),
            () -> TransformerBlockGelu.backward(b, hidden, cs),
            () -> TransformerBlockMath.toRows(b.rows1, b.x, mb, width, length),
            () -> TransformerBlockMath.fromRows(b.rows2, b.rows1, mb, width, length),
        };
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder line = new StringBuilder(name + " parts (ms):");
        for (int k = 0; k < runs.length; k++) {
            long[] times = new long[calls];
            for (int warm = 0; warm < 2; warm++) {
                for (int i = 0; i < calls; i++) {
                    long t0 = threads.getCurrentThreadCpuTime();
                    runs[k].run();
                    times[i] = threads.getCurrentThreadCpuTime() - t0;
                }
            }
            line.append(String.format(Locale.ROOT, " %s %.3f;", names[k], median(times) / 1e6));
        }
        System.out.println(line);
        b.free();
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
