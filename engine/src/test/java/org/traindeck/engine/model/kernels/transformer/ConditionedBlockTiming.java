package org.traindeck.engine.model.kernels.transformer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
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
import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * A measurement, not a test: one block of the x-ray cascade's stage 1 ("xray": batch 8, 64 volume tokens, width 64, 4
 * heads, hidden 256, adaLN-Zero from a 64-wide condition, cross-attention to 64 context tokens), forward and backward
 * called on the layer directly, then its pieces alone at the same shapes; prints the median thread CPU time per call
 * of each. The peer's figures come from bench/src/main/python/volume_block_profile.py. Run through {@link
 * TransformerBlockTiming}: java -cp test-classes:classes:deps ...TransformerBlockTiming [calls] xray
 */
final class ConditionedBlockTiming {

    private static final int MB = 8;
    private static final int STEPS = 64;
    private static final int WIDTH = 64;
    private static final int HEADS = 4;
    private static final int HIDDEN = 256;
    private static final int CONDITION = 64;
    private static final int CONTEXT_STEPS = 64;

    private ConditionedBlockTiming() {}

    static void time(int calls) {
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(5)
                .dataType(DataType.FLOAT)
                .updater(new Adam(1e-3))
                .graphBuilder()
                .addInputs("tokens", "condition", "context")
                .addVertex("packed", new BlockInputsVertex(true, true), "tokens", "condition", "context")
                .addLayer(
                        "block", new TransformerBlock(WIDTH, HIDDEN, HEADS, false, 0, false, CONDITION, true), "packed")
                .addLayer(
                        "out",
                        new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .nOut(2)
                                .dataFormat(RNNFormat.NCW)
                                .build(),
                        "block")
                .setOutputs("out")
                .setInputTypes(
                        InputType.recurrent(WIDTH, STEPS, RNNFormat.NCW),
                        InputType.feedForward(CONDITION),
                        InputType.recurrent(WIDTH, CONTEXT_STEPS, RNNFormat.NCW))
                .build());
        net.init();
        net.initGradientsView();
        Nd4j.getRandom().setSeed(3);
        // adaLN-Zero starts at zero; random modulation weights make the timing's numbers those of a trained block
        net.getLayer("block")
                .getParam(TransformerBlockParams.MODULATION_WEIGHTS)
                .assign(Nd4j.randn(DataType.FLOAT, CONDITION, 6 * WIDTH).muli(0.05));
        Layer layer = net.getLayer("block");
        int size = 1 + WIDTH * STEPS + CONDITION + WIDTH * CONTEXT_STEPS;
        INDArray packed = Nd4j.randn(DataType.FLOAT, MB, size);
        for (int e = 0; e < MB; e++) {
            packed.putScalar(e, 0, STEPS);
        }
        INDArray eps = Nd4j.randn(DataType.FLOAT, MB, WIDTH, STEPS);
        LayerWorkspaceMgr mgr = LayerWorkspaceMgr.noWorkspaces();
        Map<String, Runnable> whole = new LinkedHashMap<>();
        whole.put("block forward", () -> {
            layer.setInput(packed, mgr);
            layer.activate(true, mgr);
        });
        whole.put("block backward", () -> layer.backpropGradient(eps, mgr));
        print("xray", whole, calls, true);
        parts(layer, calls);
    }

    /** The block's pieces alone, on the layer's own parameters and the sides it built in the last forward pass. */
    private static void parts(Layer layer, int calls) {
        Object passes = field(layer, "passes");
        BlockParameters p = (BlockParameters) field(passes, "p");
        TransformerBlockSides sides = (TransformerBlockSides) field(passes, "sides");
        TransformerBlockBuffers b = new TransformerBlockBuffers(MB, STEPS, WIDTH, HIDDEN, HEADS, false);
        Random random = new Random(1);
        int n = b.rows;
        int nc = n * WIDTH;
        fill(b, random);
        float[] r = gaussian(random, nc);
        float[] out = new float[nc];
        float[] dOut = gaussian(random, nc);
        float[] context = gaussian(random, MB * WIDTH * CONTEXT_STEPS);
        float[] condition = gaussian(random, MB * CONDITION);
        float[] gain = new float[WIDTH];
        Arrays.fill(gain, 1.1f);
        float[] bias = new float[Math.max(WIDTH, HIDDEN)];
        float[] cs = new float[Math.max(WIDTH, HIDDEN)];
        float[] cs2 = new float[WIDTH];
        TransformerBlockCrossAttention cross = sides.cross;
        TransformerBlockModulation modulation = sides.modulation;
        Map<String, Runnable> forward = new LinkedHashMap<>();
        Map<String, Runnable> backward = new LinkedHashMap<>();
        forward.put(
                "self-attention heads", () -> TransformerBlockAttention.forward(b, b.attended, WIDTH, HEADS, false));
        backward.put("self-attention heads", () -> TransformerBlockAttention.backward(b, WIDTH, HEADS, false));
        forward.put(
                "cross-attention (norm, projections, heads, output)",
                () -> cross.forward(r, context, MB, STEPS, CONTEXT_STEPS, p, null, 0, out, b.local));
        backward.put(
                "cross-attention (norm, projections, heads, output)",
                () -> cross.backward(dOut.clone(), p, null, 0, b.local));
        forward.put("adaLN vectors (SiLU, [8,64]x[64,384])", () -> modulation.forward(condition, MB, STEPS, p));
        forward.put("adaLN modulate (one norm)", () -> modulation.modulate(b.rows2, n, 0));
        forward.put(
                "adaLN gated residual (one branch)",
                () -> modulation.gatedResidual(b.x, b.rows1, bias, null, 0, out, n, 0));
        backward.put("adaLN gate backward (one branch)", () -> {
            modulation.beginBackward();
            modulation.gateBackward(dOut, b.rows1, n, 0);
        });
        backward.put(
                "adaLN modulate backward (one norm)",
                () -> modulation.modulateBackward(b.rows1, b.xhat1, gain, bias, n, 0));
        backward.put("adaLN vectors backward", () -> modulation.backward(p));
        forward.put(
                "layer norm (one)",
                () -> TransformerBlockMath.layerNorm(
                        b.x, b.xhat1, b.rstd1, b.rows2, gain, bias, n, WIDTH, 1e-5, b.local[0]));
        backward.put(
                "layer norm (one)",
                () -> TransformerBlockMath.layerNormBackward(
                        b.x, b.xhat1, b.rstd1, gain, b.dy, b.dr1, cs, cs2, b.rows2, n, WIDTH, b.local));
        forward.put("GELU", () -> TransformerBlockGelu.forward(b, bias, HIDDEN));
        backward.put("GELU", () -> TransformerBlockGelu.backward(b, HIDDEN, cs));
        products(b, forward, backward);
        forward.put("layout (toRows + fromRows)", () -> {
            TransformerBlockMath.toRows(b.rows1, b.x, MB, WIDTH, STEPS);
            TransformerBlockMath.fromRows(b.rows2, b.rows1, MB, WIDTH, STEPS);
        });
        print("xray forward parts", forward, calls, false);
        print("xray backward parts", backward, calls, false);
        b.free();
    }

    /** The self-attention's and the MLP's dense products, forward (4) and backward (8), with OpenBLAS as the block. */
    private static void products(
            TransformerBlockBuffers b, Map<String, Runnable> forward, Map<String, Runnable> backward) {
        int n = b.rows;
        int c = WIDTH;
        int f = HIDDEN;
        var w3 = b.dqkv.pointer; // any [C, 3C]-sized native scratch stands for a weight here
        forward.put("products qkv, out, mlp1, mlp2", () -> {
            Sgemm.multiply(false, false, n, 3 * c, c, 1, b.h1.pointer, 0, c, w3, 0, 3 * c, 0, b.qkv.pointer, 0, 3 * c);
            Sgemm.multiply(false, false, n, c, c, 1, b.attended.pointer, 0, c, w3, 0, c, 0, b.dm.pointer, 0, c);
            Sgemm.multiply(false, true, n, f, c, 1, b.h2.pointer, 0, c, b.dz.pointer, 0, c, 0, b.u.pointer, 0, f);
            Sgemm.multiply(false, true, n, c, f, 1, b.z.pointer, 0, f, b.dz.pointer, 0, f, 0, b.dm.pointer, 0, c);
        });
        backward.put("products (8: data and weight gradients)", () -> {
            Sgemm.multiply(true, false, c, f, n, 1, b.dm.pointer, 0, c, b.z.pointer, 0, f, 0, b.dz.pointer, 0, f);
            Sgemm.multiply(false, false, n, f, c, 1, b.dm.pointer, 0, c, w3, 0, f, 0, b.dz.pointer, 0, f);
            Sgemm.multiply(true, false, f, c, n, 1, b.dz.pointer, 0, f, b.h2.pointer, 0, c, 0, b.u.pointer, 0, c);
            Sgemm.multiply(false, false, n, c, f, 1, b.dz.pointer, 0, f, w3, 0, c, 0, b.dh.pointer, 0, c);
            Sgemm.multiply(
                    true, false, c, c, n, 1, b.attended.pointer, 0, c, b.dm.pointer, 0, c, 0, b.h1.pointer, 0, c);
            Sgemm.multiply(false, true, n, c, c, 1, b.dm.pointer, 0, c, w3, 0, c, 0, b.datt.pointer, 0, c);
            Sgemm.multiply(
                    true,
                    false,
                    c,
                    3 * c,
                    n,
                    1,
                    b.h1.pointer,
                    0,
                    c,
                    b.dqkv.pointer,
                    0,
                    3 * c,
                    0,
                    b.u.pointer,
                    0,
                    3 * c);
            Sgemm.multiply(false, true, n, c, 3 * c, 1, b.dqkv.pointer, 0, 3 * c, w3, 0, 3 * c, 0, b.dh.pointer, 0, c);
        });
    }

    private static void fill(TransformerBlockBuffers b, Random random) {
        int n = b.rows;
        for (int i = 0; i < 3 * n * WIDTH; i++) {
            b.qkv.buffer.put(i, (float) random.nextGaussian());
            b.dqkv.buffer.put(i, (float) random.nextGaussian() * 0.01f);
        }
        for (int i = 0; i < n * WIDTH; i++) {
            b.datt.buffer.put(i, (float) random.nextGaussian());
            b.attended.buffer.put(i, (float) random.nextGaussian());
            b.h1.buffer.put(i, (float) random.nextGaussian());
            b.h2.buffer.put(i, (float) random.nextGaussian());
            b.dm.buffer.put(i, (float) random.nextGaussian());
            b.x[i] = (float) random.nextGaussian();
            b.rows1[i] = (float) random.nextGaussian();
            b.rows2[i] = (float) random.nextGaussian();
            b.dy[i] = (float) random.nextGaussian();
        }
        for (int i = 0; i < n * HIDDEN; i++) {
            b.u.buffer.put(i, (float) random.nextGaussian());
            b.z.buffer.put(i, (float) random.nextGaussian());
            b.dz.buffer.put(i, (float) random.nextGaussian() * 0.01f);
        }
        TransformerBlockMath.layerNorm(
                b.x, b.xhat1, b.rstd1, b.rows2, new float[WIDTH], new float[WIDTH], n, WIDTH, 1e-5, b.local[0]);
    }

    private static float[] gaussian(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    private static Object field(Object owner, String name) {
        try {
            Field f = owner.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each run's median thread CPU time over {@code calls} calls (after as many to warm up); runs in order. */
    private static void print(String title, Map<String, Runnable> runs, int calls, boolean interleaved) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, long[]> times = new LinkedHashMap<>();
        runs.keySet().forEach(k -> times.put(k, new long[calls]));
        for (int warm = 0; warm < 2; warm++) {
            if (interleaved) {
                for (int i = 0; i < calls; i++) {
                    for (var run : runs.entrySet()) {
                        long t0 = threads.getCurrentThreadCpuTime();
                        run.getValue().run();
                        times.get(run.getKey())[i] = threads.getCurrentThreadCpuTime() - t0;
                    }
                }
            } else {
                for (var run : runs.entrySet()) {
                    for (int i = 0; i < calls; i++) {
                        long t0 = threads.getCurrentThreadCpuTime();
                        run.getValue().run();
                        times.get(run.getKey())[i] = threads.getCurrentThreadCpuTime() - t0;
                    }
                }
            }
        }
        StringBuilder line = new StringBuilder(title + " (ms):");
        times.forEach((k, v) -> line.append(String.format(Locale.ROOT, "%n  %-55s %.3f", k, median(v) / 1e6)));
        System.out.println(line);
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
