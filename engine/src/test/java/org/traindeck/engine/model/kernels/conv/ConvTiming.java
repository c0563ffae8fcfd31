package org.traindeck.engine.model.kernels.conv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNConvHelper;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A measurement, not a test: the shapes-unet sample's ten 3×3 convolutions (batch 32, relu, bias) forward and backward
 * one layer at a time, TrainDeck's convolution kernel against DL4J's ConvolutionLayer with oneDNN's helper (as a run
 * installs it, cache mode DEVICE), alternated call by call; prints the median thread CPU time of each pass.
 * java -cp test-classes:classes:deps org.traindeck.engine.model.kernels.ConvTiming [calls] [layer names | lenet]
 */
public final class ConvTiming {

    /** The LeNet row's two 5×5 convolutions (batch 64): name, channels in, filters, image size, window, batch. */
    static final Object[][] LENET = {{"conv1", 1, 8, 28, 5, 64}, {"conv2", 8, 16, 14, 5, 64}};

    /** name, channels in, filters, image size (3×3 windows, batch 32). */
    static final Object[][] UNET = {
        {"enc1a", 1, 16, 32}, {"enc1b", 16, 16, 32}, {"enc2a", 16, 32, 16}, {"enc2b", 32, 32, 16},
        {"bottom1", 32, 64, 8}, {"bottom2", 64, 64, 8}, {"dec2a", 96, 32, 16}, {"dec2b", 32, 32, 16},
        {"dec1a", 48, 16, 32}, {"dec1b", 16, 16, 32}
    };

    /** No workspaces but the forward cache, which DL4J's layer needs to keep its pre-activation (cache mode DEVICE). */
    private static final LayerWorkspaceMgr CACHED = LayerWorkspaceMgr.builder()
            .defaultNoWorkspace()
            .with(
                    ArrayType.FF_CACHE,
                    "CONV_TIMING_FF_CACHE",
                    WorkspaceConfiguration.builder()
                            .policyAllocation(AllocationPolicy.OVERALLOCATE)
                            .policyLearning(LearningPolicy.FIRST_LOOP)
                            .build())
            .build();

    private ConvTiming() {}

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String only = args.length > 1 ? args[1] : null;
        boolean lenet = "lenet".equals(only);
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        double[] totals = new double[4];
        for (Object[] s : lenet ? LENET : UNET) {
            if (only != null && !lenet && !only.contains((String) s[0])) {
                continue;
            }
            int cin = (Integer) s[1];
            int cout = (Integer) s[2];
            int hw = (Integer) s[3];
            int window = s.length > 4 ? (Integer) s[4] : 3;
            int batch = s.length > 5 ? (Integer) s[5] : 32;
            ConvolutionLayer conf = layer(cin, cout, window);
            List<Layer> layers = new ArrayList<>();
            layers.add(instantiate(ConvKernel.of(conf)));
            layers.add(withHelper(instantiate(conf)));
            layers.get(0).setParams(layers.get(1).params().dup());
            INDArray x = Nd4j.randn(DataType.FLOAT, batch, cin, hw, hw);
            INDArray eps = Nd4j.randn(DataType.FLOAT, batch, cout, hw, hw);
            double[][][] ms = new double[layers.size()][2][calls];
            for (int call = -3; call < calls; call++) {
                // which layer goes first alternates too (the first after the other's backward pass meets colder caches)
                for (int k = 0; k < layers.size(); k++) {
                    int l = (k + Math.max(call, 0)) % layers.size();
                    Layer layer = layers.get(l);
                    long t0;
                    long t1;
                    long t2;
                    try (MemoryWorkspace cache = CACHED.notifyScopeEntered(ArrayType.FF_CACHE)) {
                        t0 = bean.getCurrentThreadCpuTime();
                        layer.setInput(x, CACHED);
                        layer.activate(true, CACHED);
                        t1 = bean.getCurrentThreadCpuTime();
                        layer.backpropGradient(eps, CACHED);
                        t2 = bean.getCurrentThreadCpuTime();
                        layer.clear();
                    }
                    if (call >= 0) {
                        ms[l][0][call] = (t1 - t0) / 1e6;
                        ms[l][1][call] = (t2 - t1) / 1e6;
                    }
                }
            }
            StringBuilder line = new StringBuilder(String.format("%-8s %3d->%3d @%2d", s[0], cin, cout, hw));
            String[] names = {"kernel", "DL4J+oneDNN"};
            for (int l = 0; l < layers.size(); l++) {
                double f = median(ms[l][0]);
                double b = median(ms[l][1]);
                totals[2 * l] += f;
                totals[2 * l + 1] += b;
                line.append(String.format("  %s fwd %7.3f bwd %7.3f", names[l], f, b));
            }
            System.out.println(line);
        }
        System.out.printf(
                "total kernel fwd %.2f bwd %.2f | DL4J+oneDNN fwd %.2f bwd %.2f ms (median of %d, thread CPU)%n",
                totals[0], totals[1], totals[2], totals[3], calls);
        System.exit(0);
    }

    static ConvolutionLayer layer(int cin, int cout, int window) {
        return new ConvolutionLayer.Builder(window, window)
                .nIn(cin)
                .nOut(cout)
                .convolutionMode(ConvolutionMode.Same)
                .activation(Activation.RELU)
                .weightInit(WeightInit.RELU)
                .build();
    }

    static Layer instantiate(org.deeplearning4j.nn.conf.layers.Layer layerConf) {
        NeuralNetConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(3)
                .dataType(DataType.FLOAT)
                .cacheMode(CacheMode.DEVICE)
                .layer(layerConf)
                .build();
        long n = conf.getLayer().initializer().numParams(conf);
        Layer layer = conf.getLayer()
                .instantiate(conf, List.of(), 0, Nd4j.create(DataType.FLOAT, 1, n), true, DataType.FLOAT);
        layer.setBackpropGradientsViewArray(Nd4j.create(DataType.FLOAT, 1, n));
        return layer;
    }

    static Layer withHelper(Layer layer) throws ReflectiveOperationException {
        Field helper = org.deeplearning4j.nn.layers.convolution.ConvolutionLayer.class.getDeclaredField("helper");
        helper.setAccessible(true);
        helper.set(layer, new MKLDNNConvHelper(DataType.FLOAT));
        return layer;
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
