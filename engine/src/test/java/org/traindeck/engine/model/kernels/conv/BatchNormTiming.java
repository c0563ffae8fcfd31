package org.traindeck.engine.model.kernels.conv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.dense.DenseKernelTest;

/**
 * A measurement, not a test: the batch norm and relu kernels against DL4J's layers on the ResNet row's largest
 * activation ([64, 64, 32, 32]), forward and backward called on the layers directly, alternated call by call; prints
 * the median thread CPU time per forward + backward of each. java -cp test-classes:classes:deps
 * org.traindeck.engine.model.kernels.BatchNormTiming [calls] [batch channels size]
 */
public final class BatchNormTiming {

    private BatchNormTiming() {}

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int c = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        int size = args.length > 3 ? Integer.parseInt(args[3]) : 32;
        INDArray x = Nd4j.randn(DataType.FLOAT, n, c, size, size);
        INDArray eps = Nd4j.randn(DataType.FLOAT, n, c, size, size);
        BatchNormalization bn = new BatchNormalization.Builder().build();
        bn.setNIn(c);
        bn.setNOut(c);
        ActivationLayer relu =
                new ActivationLayer.Builder().activation(Activation.RELU).build();
        Layer[] layers = {
            DenseKernelTest.instantiate(BatchNormKernel.of(bn)),
            DenseKernelTest.instantiate(bn),
            ReluKernelTest.instantiate(ReluKernel.of(relu)),
            ReluKernelTest.instantiate(relu)
        };
        String[] names = {"batch norm kernel", "DL4J BatchNormalization", "relu kernel", "DL4J ActivationLayer relu"};
        double[][] ms = new double[layers.length][calls];
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        for (int call = -3; call < calls; call++) {
            for (int l = 0; l < layers.length; l++) {
                LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
                long t0 = bean.getCurrentThreadCpuTime();
                layers[l].setInput(x, ws);
                layers[l].activate(true, ws);
                layers[l].backpropGradient(eps, ws);
                double spent = (bean.getCurrentThreadCpuTime() - t0) / 1e6;
                if (call >= 0) {
                    ms[l][call] = spent;
                }
            }
        }
        for (int l = 0; l < layers.length; l++) {
            double[] s = ms[l].clone();
            Arrays.sort(s);
            System.out.printf(
                    "%-28s forward + backward %8.2f ms (median of %d, thread CPU)%n", names[l], s[calls / 2], calls);
        }
        System.exit(0);
    }
}
