package org.traindeck.engine.model.kernels.conv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.Arrays;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.graph.vertex.impl.MergeVertex;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNSubsamplingHelper;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A measurement, not a test: the max pooling, upsampling and concat kernels against DL4J's layers (the pooling with
 * oneDNN's helper, as a run installs it) at the U-Net sample's largest shapes and the LeNet's two pools, forward and
 * backward called directly, alternated call by call; prints the median thread CPU time per forward + backward.
 * java -cp test-classes:classes:deps org.traindeck.engine.model.kernels.PoolingTiming [calls]
 */
public final class PoolingTiming {

    private PoolingTiming() {}

    private interface Pass {
        void run();
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        SubsamplingLayer pool = new SubsamplingLayer.Builder(PoolingType.MAX)
                .kernelSize(2, 2)
                .stride(2, 2)
                .build();
        Layer dl4jPool = ReluKernelTest.instantiate(pool);
        Field helper =
                org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer.class.getDeclaredField("helper");
        helper.setAccessible(true);
        helper.set(dl4jPool, new MKLDNNSubsamplingHelper(DataType.FLOAT));
        Layer ownPool = ReluKernelTest.instantiate(MaxPoolKernel.of(pool));
        Upsampling2D up = new Upsampling2D.Builder().size(2).build();
        Layer dl4jUp = ReluKernelTest.instantiate(up);
        Layer ownUp = ReluKernelTest.instantiate(UpsampleKernel.of(up));
        INDArray unetPool = Nd4j.randn(DataType.FLOAT, 32, 16, 32, 32);
        INDArray lenetPool = Nd4j.randn(DataType.FLOAT, 64, 8, 28, 28);
        INDArray lenetPool2 = Nd4j.randn(DataType.FLOAT, 64, 16, 14, 14);
        INDArray unetUp = Nd4j.randn(DataType.FLOAT, 32, 32, 16, 16);
        INDArray[] joined = {Nd4j.randn(DataType.FLOAT, 32, 32, 32, 32), Nd4j.randn(DataType.FLOAT, 32, 16, 32, 32)};
        GraphVertex dl4jConcat = vertex(new MergeVertex(null, "ref", 0, DataType.FLOAT, 1));
        GraphVertex ownConcat = vertex(new ConcatKernel().instantiate(null, "own", 0, null, false, DataType.FLOAT));
        String[] names = {
            "max pool kernel, U-Net [32,16,32,32]", "DL4J + oneDNN max pool, U-Net",
            "max pool kernel, LeNet [64,8,28,28]", "DL4J + oneDNN max pool, LeNet",
            "max pool kernel, LeNet [64,16,14,14]", "DL4J + oneDNN max pool, LeNet 2",
            "upsampling kernel, U-Net [32,32,16,16]", "DL4J Upsampling2D, U-Net",
            "concat kernel, U-Net 32+16 channels", "DL4J MergeVertex, U-Net"
        };
        Pass[] passes = {
            () -> layer(ownPool, unetPool), () -> layer(dl4jPool, unetPool),
            () -> layer(ownPool, lenetPool), () -> layer(dl4jPool, lenetPool),
            () -> layer(ownPool, lenetPool2), () -> layer(dl4jPool, lenetPool2),
            () -> layer(ownUp, unetUp), () -> layer(dl4jUp, unetUp),
            () -> merge(ownConcat, joined), () -> merge(dl4jConcat, joined)
        };
        double[][] ms = new double[passes.length][calls];
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        for (int call = -5; call < calls; call++) {
            for (int p = 0; p < passes.length; p++) {
                long t0 = bean.getCurrentThreadCpuTime();
                passes[p].run();
                double spent = (bean.getCurrentThreadCpuTime() - t0) / 1e6;
                if (call >= 0) {
                    ms[p][call] = spent;
                }
            }
        }
        for (int p = 0; p < passes.length; p++) {
            double[] s = ms[p].clone();
            Arrays.sort(s);
            System.out.printf(
                    "%-40s forward + backward %7.3f ms (median of %d, thread CPU)%n", names[p], s[calls / 2], calls);
        }
        System.exit(0);
    }

    private static void layer(Layer layer, INDArray x) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        INDArray y = layer.activate(true, ws);
        layer.backpropGradient(y, ws);
    }

    private static GraphVertex vertex(GraphVertex v) {
        v.setInputVertices(new VertexIndices[] {new VertexIndices(1, 0), new VertexIndices(2, 0)});
        return v;
    }

    private static void merge(GraphVertex v, INDArray[] inputs) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        for (int i = 0; i < inputs.length; i++) {
            v.setInput(i, inputs[i], ws);
        }
        v.setEpsilon(v.doForward(true, ws));
        v.doBackward(false, ws);
    }
}
