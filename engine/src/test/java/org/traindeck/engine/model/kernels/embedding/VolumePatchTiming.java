package org.traindeck.engine.model.kernels.embedding;

import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.layers.Unpatch3D;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * A measurement, not a test: the patches3d and unpatch3d kernels alone at the x-ray stage 1's sizes (batch 8, one
 * 16³ volume channel, 4³ patches, 64 tokens of width 64), thread CPU per pass after a long warm-up, medians. The
 * patches3d node reads a network input (no input gradient), as in the sample. java -cp
 * test-classes:classes:deps org.traindeck.engine.model.kernels.embedding.VolumePatchTiming [passes]
 */
public final class VolumePatchTiming {

    private static final int WARMUP = 3_000;

    private VolumePatchTiming() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        PatchEmbedding3DKernel p = new PatchEmbedding3DKernel(4, 64);
        p.setNIn(InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 16, 16, 16, 1), true);
        p.setInputGradient(false);
        Unpatch3D u = new Unpatch3DKernel(4, 1, new int[] {4, 4, 4});
        u.setNIn(InputType.recurrent(64, 64), true);
        time("patches3d", instantiate(p), Nd4j.rand(DataType.FLOAT, 8, 1, 16, 16, 16), passes);
        time("unpatch3d", instantiate(u), Nd4j.randn(DataType.FLOAT, 8, 64, 64), passes);
        System.exit(0);
    }

    private static void time(String name, Layer layer, INDArray x, int passes) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        INDArray eps = Nd4j.randn(DataType.FLOAT, layer.activate(true, ws).shape());
        long[] forward = new long[passes];
        long[] backward = new long[passes];
        for (int i = -WARMUP; i < passes; i++) {
            long t0 = threads.getCurrentThreadCpuTime();
            layer.setInput(x, ws);
            layer.activate(true, ws);
            long t1 = threads.getCurrentThreadCpuTime();
            layer.backpropGradient(eps, ws);
            long t2 = threads.getCurrentThreadCpuTime();
            if (i >= 0) {
                forward[i] = t1 - t0;
                backward[i] = t2 - t1;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%-10s forward %.3f ms, backward %.3f ms (medians of %d)%n",
                name,
                median(forward) / 1e6,
                median(backward) / 1e6,
                passes);
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
