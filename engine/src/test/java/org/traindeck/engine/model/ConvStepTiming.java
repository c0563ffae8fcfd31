package org.traindeck.engine.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.profile.GraphWalk;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.step.TrainingStep;

/**
 * A measurement, not a test: whole training steps of the shapes-unet sample's U-Net (batch 32), the bench's LeNet
 * (batch 64) or the volumes-autoencoder sample's 3D autoencoder (16³ batch 16, or 64³ batch 4) with the convolutions
 * on the kernel (A) against the same network with {@code "implementation": "dl4j"} on every conv2d and conv3d node and
 * {@code "kernel": "dl4j"} on every maxPool3d and upsample3d node (B), both with oneDNN's helpers as a run installs them, in one process, alternated A, B, B, A
 * step by step; {@code unethead}: the U-Net on the kernels with the segmentation head's kernel (A) against the same
 * network and parameters with DL4J's CnnLossLayer (B). Prints per-step thread CPU medians and the median of the pairwise ratios B / A with min and max; with
 * {@code profile}, each node's forward and backward thread CPU time (GraphWalk), alternated the same way.
 * java -cp test-classes:classes:deps org.traindeck.engine.model.ConvStepTiming [unet|unethead|lenet|volumes|volumes64] [pairs] [profile]
 */
public final class ConvStepTiming {

    private static final String LENET = """
            {"name": "conv1", "type": "conv2d", "filters": 8, "kernel": 5, "activation": "relu"},
            {"name": "pool1", "type": "maxPool2d"},
            {"name": "conv2", "type": "conv2d", "filters": 16, "kernel": 5, "activation": "relu"},
            {"name": "pool2", "type": "maxPool2d"},
            {"name": "dense", "type": "dense", "units": 64, "activation": "relu"}""";

    private ConvStepTiming() {}

    public static void main(String[] args) throws Exception {
        String which = args.length == 0 ? "unet" : args[0];
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        boolean profile = args.length > 2 && args[2].equals("profile");
        Path dir = Files.createTempDirectory("conv-step-timing");
        boolean head = which.equals("unethead");
        Net net = net(head ? "unet" : which);
        ComputationGraph own = built(GraphFixture.model(net.layers(), dir), net.input());
        ComputationGraph[] nets = {
            own, head ? withDl4jHead(own) : built(GraphFixture.model(onDl4j(net.layers()), dir), net.input())
        };
        if (profile) {
            profile(nets, net.batch(), pairs);
        } else {
            steps(nets, net.batch(), pairs);
        }
        System.exit(0);
    }

    /** A network's layers, its input and one batch. */
    record Net(String layers, ModelInput input, BatchMaker.Batch batch) {}

    /**
     * unet, lenet, volumes (the volumes-autoencoder sample at 16³, batch 16) or volumes64 (its model at 64³, batch 4,
     * as {@code traindeck bench volumes64}).
     */
    static Net net(String which) throws Exception {
        return switch (which) {
            case "unet" ->
                new Net(
                        sampleLayers("shapes-unet.json"),
                        new ModelInput(InputType.convolutional(32, 32, 1), Task.SEGMENTATION, 3, false),
                        segmentation(32, 5));
            case "lenet" ->
                new Net(
                        LENET,
                        new ModelInput(InputType.convolutional(28, 28, 1), Task.CLASSIFICATION, 10),
                        classification(64, 5));
            case "volumes" -> volumes(16, 16);
            case "volumes64" -> volumes(64, 4);
            default -> throw new IllegalArgumentException("unet, lenet, volumes or volumes64: " + which);
        };
    }

    private static Net volumes(int size, int n) throws Exception {
        Nd4j.getRandom().setSeed(5);
        INDArray x = Nd4j.rand(DataType.FLOAT, n, 1, size, size, size);
        return new Net(
                sampleLayers("volumes-autoencoder.json"),
                new ModelInput(
                        InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, size, size, size, 1),
                        Task.RECONSTRUCTION,
                        1),
                new BatchMaker.Batch(x, x, n));
    }

    /** Every convolution and every 3D pooling and upsampling node on DL4J's layer (the reference). */
    private static String onDl4j(String layers) {
        String text = layers;
        for (String type : List.of("conv2d", "conv3d")) {
            text = text.replace(
                    "\"type\": \"" + type + "\"", "\"type\": \"" + type + "\", \"implementation\": \"dl4j\"");
        }
        for (String type : List.of("maxPool3d", "upsample3d")) {
            text = text.replace("\"type\": \"" + type + "\"", "\"type\": \"" + type + "\", \"kernel\": \"dl4j\"");
        }
        return text;
    }

    private static String sampleLayers(String sample) throws Exception {
        String text = new ObjectMapper()
                .readTree(Path.of("../sample-configs/" + sample).toFile())
                .get("model")
                .get("layers")
                .toString();
        return text.substring(1, text.length() - 1).replace("\":\"", "\": \"").replace(",\"type\"", ", \"type\"");
    }

    /** The same network and parameters with DL4J's CnnLossLayer as the head instead of its kernel. */
    private static ComputationGraph withDl4jHead(ComputationGraph net) {
        ComputationGraphConfiguration conf = net.getConfiguration().clone();
        NeuralNetConfiguration output = ((LayerVertex) conf.getVertices().get(Heads.OUTPUT)).getLayerConf();
        output.setLayer(KernelInstances.copyFields(CnnLossLayer.class, output.getLayer(), new CnnLossLayer()));
        ComputationGraph dl4j = new ComputationGraph(conf);
        dl4j.init(net.params().dup(), true);
        OneDnnHelpers.install(dl4j);
        return dl4j;
    }

    static ComputationGraph built(ModelConfig model, ModelInput input) {
        ComputationGraph net = ModelCompiler.build(model, input, 7, KernelUse.OWN);
        OneDnnHelpers.install(net);
        return net;
    }

    /** The unet or lenet network on the kernels, as {@link #main} builds it (for timings in other packages). */
    public static ComputationGraph network(String which) throws Exception {
        Net net = net(which);
        return built(GraphFixture.model(net.layers(), Files.createTempDirectory("conv-step-timing")), net.input());
    }

    /** {@code n} examples of the unet's or the lenet's synthetic batch, the inputs drawn from {@code seed}. */
    public static BatchMaker.Batch batch(String which, int n, long seed) {
        return switch (which) {
            case "unet" -> segmentation(n, seed);
            case "lenet" -> classification(n, seed);
            default -> throw new IllegalArgumentException("unet or lenet: " + which);
        };
    }

    private static BatchMaker.Batch segmentation(int n, long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x = Nd4j.rand(DataType.FLOAT, n, 1, 32, 32);
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, 3, 32, 32);
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < 1024; p++) {
                y.putScalar(new int[] {i, (i * 5 + p * 7) % 3, p / 32, p % 32}, 1f);
            }
        }
        return new BatchMaker.Batch(x, y, n);
    }

    private static BatchMaker.Batch classification(int n, long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x = Nd4j.rand(DataType.FLOAT, n, 1, 28, 28);
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, 10);
        for (int i = 0; i < n; i++) {
            y.putScalar(i, i % 10, 1f);
        }
        return new BatchMaker.Batch(x, y, n);
    }

    private static void steps(ComputationGraph[] nets, BatchMaker.Batch batch, int pairs) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        TrainingStep[] steps = {new TrainingStep(nets[0], false), new TrainingStep(nets[1], false)};
        double[][] ms = new double[2][pairs];
        for (int p = -5; p < pairs; p++) {
            for (int k = 0; k < 2; k++) {
                int which = (k + Math.max(p, 0)) % 2;
                long t0 = bean.getCurrentThreadCpuTime();
                steps[which].step(List.of(batch), Math.max(p, 0) + 5, 0, 0);
                long t1 = bean.getCurrentThreadCpuTime();
                if (p >= 0) {
                    ms[which][p] = (t1 - t0) / 1e6;
                }
            }
        }
        double[] ratios = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            ratios[p] = ms[1][p] / ms[0][p];
        }
        print("step thread CPU", ms, ratios);
        blocks(steps, batch, pairs);
    }

    /**
     * Blocks of five steps of one network, then five of the other, alternated: the process's CPU time (every thread:
     * the garbage collector and ND4J's own threads too) and the collectors' time per step.
     */
    private static void blocks(TrainingStep[] steps, BatchMaker.Batch batch, int pairs) {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        int block = 5;
        double[][] ms = new double[2][pairs];
        double[] gcMs = new double[2];
        for (int p = 0; p < pairs; p++) {
            for (int k = 0; k < 2; k++) {
                int which = (k + p) % 2;
                long gc0 = gcMillis();
                long t0 = os.getProcessCpuTime();
                for (int s = 0; s < block; s++) {
                    steps[which].step(List.of(batch), 100 + p * block + s, 0, 0);
                }
                ms[which][p] = (os.getProcessCpuTime() - t0) / 1e6 / block;
                gcMs[which] += (gcMillis() - gc0) / (double) (block * pairs);
            }
        }
        double[] ratios = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            ratios[p] = ms[1][p] / ms[0][p];
        }
        print("process CPU per step, blocks of " + block, ms, ratios);
        System.out.printf("collectors' time per step: kernel %.2f ms, DL4J's layers %.2f ms%n", gcMs[0], gcMs[1]);
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    private static void print(String what, double[][] ms, double[] ratios) {
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        System.out.printf(
                "%s: kernel %.2f ms, DL4J's layers %.2f ms (medians of %d); DL4J / kernel %.3f (%.3f-%.3f)%n",
                what,
                median(ms[0]),
                median(ms[1]),
                ratios.length,
                median(ratios),
                sorted[0],
                sorted[ratios.length - 1]);
    }

    private static void profile(ComputationGraph[] nets, BatchMaker.Batch batch, int pairs) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        GraphWalk[] walks = {
            new GraphWalk(nets[0], bean::getCurrentThreadCpuTime), new GraphWalk(nets[1], bean::getCurrentThreadCpuTime)
        };
        INDArray[] inputs = batch.inputs();
        INDArray[] labels = {batch.labels()};
        for (int p = -5; p < pairs; p++) {
            if (p == 0) {
                walks[0].reset();
                walks[1].reset();
            }
            for (int k = 0; k < 2; k++) {
                walks[(k + Math.max(p, 0)) % 2].gradientAndScore(inputs, labels);
            }
        }
        List<String> names = walks[0].nodeNames();
        System.out.printf(
                "%-12s %9s %9s %9s %9s  (ms per step, thread CPU, %d steps each)%n",
                "node", "fwd own", "fwd dl4j", "bwd own", "bwd dl4j", pairs);
        double[] totals = new double[4];
        for (int i = 0; i < names.size(); i++) {
            double[] row = {
                walks[0].forwardNs()[i] / 1e6 / pairs,
                walks[1].forwardNs()[i] / 1e6 / pairs,
                walks[0].backwardNs()[i] / 1e6 / pairs,
                walks[1].backwardNs()[i] / 1e6 / pairs
            };
            for (int c = 0; c < 4; c++) {
                totals[c] += row[c];
            }
            System.out.printf("%-12s %9.3f %9.3f %9.3f %9.3f%n", names.get(i), row[0], row[1], row[2], row[3]);
        }
        System.out.printf("%-12s %9.3f %9.3f %9.3f %9.3f%n", "nodes", totals[0], totals[1], totals[2], totals[3]);
        System.out.printf(
                "walk: own %.3f ms, dl4j %.3f ms per step; branch sums own %.3f dl4j %.3f%n",
                walks[0].walkNs() / 1e6 / pairs,
                walks[1].walkNs() / 1e6 / pairs,
                walks[0].branchSumNs() / 1e6 / pairs,
                walks[1].branchSumNs() / 1e6 / pairs);
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
