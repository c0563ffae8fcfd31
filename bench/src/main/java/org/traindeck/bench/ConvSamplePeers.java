package org.traindeck.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;

/**
 * Convolutional networks without batch norm against PyTorch at one thread (bench/src/main/python/pytorch_peer.py): the
 * shapes-unet sample's U-Net and a LeNet, each as a graph so that its convolution, pooling, upsampling and concat nodes
 * can be put back on DL4J's layers ({@code "implementation"} or {@code "kernel": "dl4j"}, the kernels' before). Every TrainDeck run is a fresh JVM with
 * OMP_NUM_THREADS=1, as the peer is a fresh process with one thread; a pair runs PyTorch, TrainDeck, then (with the
 * reference) TrainDeck on DL4J's layers.
 */
final class ConvSamplePeers {

    /** A batch norm's parameters that no gradient trains (PyTorch's buffers, not its parameters). */
    private static final Set<String> RUNNING_STATISTICS = Set.of("mean", "var", "log10stdev");

    /** The node types whose kernel the reference puts back on DL4J's layers. */
    static final Set<String> KERNEL_NODES = Set.of("maxPool2d", "upsample2d", "concat");

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConvSamplePeers() {}

    /**
     * The same network with {@code "kernel": "dl4j"} on every pooling, upsampling and concat node and {@code
     * "implementation": "dl4j"} on every conv2d node.
     */
    static EngineBench.Workload onDl4jLayers(EngineBench.Workload w) throws Exception {
        ObjectNode model = (ObjectNode) JSON.readTree(w.model());
        for (JsonNode node : model.withArray("layers")) {
            if (KERNEL_NODES.contains(node.path("type").asText())) {
                ((ObjectNode) node).put("kernel", "dl4j");
            } else if ("conv2d".equals(node.path("type").asText())) {
                ((ObjectNode) node).put("implementation", "dl4j");
            }
        }
        return new EngineBench.Workload(
                w.name() + ", DL4J's layers", model.toString(), w.data(), w.samples(), w.batch());
    }

    /** {@code pairs} rounds of PyTorch, TrainDeck (and, with {@code withReference}, TrainDeck on DL4J's layers). */
    static void compare(ConvSampleNets.Sample s, Path home, Path out, int pairs, boolean withReference, Report report)
            throws Exception {
        Path script = home.resolve("bench/src/main/python/pytorch_peer.py");
        String python = PeerBench.python();
        if (python == null) {
            report.add("CPU peer", s.name(), "—", "skipped: PyTorch is not installed", "—", "—");
            return;
        }
        EngineBench.Workload w = s.workload();
        long ours = parameters(w, out.resolve(s.kind() + "-params"));
        EngineBench.Workload reference = withReference ? onDl4jLayers(w) : null;
        double[] torch = new double[pairs];
        double[] td = new double[pairs];
        double[] ref = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            PeerBench.PeerRun t = PeerBench.run(
                    python,
                    script,
                    List.of(
                            s.kind(),
                            String.valueOf(EngineBench.EPOCHS),
                            "1",
                            "1",
                            "0",
                            "-",
                            String.valueOf(w.samples())),
                    1);
            if (t.parameters() != ours) {
                report.add(
                        "CPU peer",
                        s.name(),
                        "—",
                        "skipped: PyTorch's network has " + t.parameters() + " parameters, TrainDeck's " + ours,
                        "—",
                        "—");
                return;
            }
            torch[i] = t.samplesPerSecond()[0];
            td[i] = child(w, out.resolve(s.kind() + "-own-" + i));
            if (reference != null) {
                ref[i] = child(reference, out.resolve(s.kind() + "-dl4j-" + i));
            }
            System.out.printf(
                    Locale.ROOT,
                    "    pair %d: TrainDeck %.3g%s vs PyTorch %.3g samples/s%n",
                    i + 1,
                    td[i],
                    reference == null ? "" : String.format(Locale.ROOT, " (DL4J's layers %.1f)", ref[i]),
                    torch[i]);
        }
        rows(s, ours, torch, td, reference == null ? null : ref, PeerBench.describe(python), report);
    }

    /** The rows of one network: TrainDeck against PyTorch and, with {@code ref}, DL4J's layers against both. */
    private static void rows(
            ConvSampleNets.Sample s,
            long ours,
            double[] torch,
            double[] td,
            double[] ref,
            String torchName,
            Report report) {
        MachinePeak peak = MachinePeak.read();
        String peer = Stats.of(torch).format("samples/s", decimals(torch))
                + SmallNetFlops.rate(torch, s.flops(), 1, peak) + " " + torchName;
        String params = String.format(Locale.ROOT, ", 1 thread, %,d trained parameters in both", ours);
        report.add(
                "CPU peer",
                s.name() + params,
                Stats.of(td).format("samples/s", decimals(td)) + SmallNetFlops.rate(td, s.flops(), 1, peak),
                peer,
                ratio(td, torch),
                "≥ 1×");
        if (ref != null) {
            report.add(
                    "CPU peer",
                    s.name() + ", convolutions, pooling, upsampling and concat on DL4J's layers",
                    Stats.of(ref).format("samples/s", 0),
                    peer,
                    ratio(ref, torch),
                    "(the kernels' before)");
            report.add("CPU peer", s.name() + ": kernels / DL4J's layers", "—", "—", ratio(td, ref), "> 1×");
        }
    }

    /** Whole samples/s, or two decimals where a network trains under ten a second (the large ones). */
    private static int decimals(double[] samplesPerSecond) {
        return Stats.of(samplesPerSecond).median() < 10 ? 2 : 0;
    }

    private static String ratio(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] / b[i];
        }
        Stats s = Stats.of(r);
        return String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", s.median(), s.min(), s.max(), r.length);
    }

    /** The parameters a gradient trains (a batch norm's running statistics left out, as PyTorch counts them). */
    private static long parameters(EngineBench.Workload w, Path out) throws Exception {
        RunConfig sizing = EngineBench.config(w, out, "cpu");
        Dataset data = DataLoader.load(sizing, sizing.data(), "data").train();
        ComputationGraph net = ModelCompiler.build(sizing.model(), ModelCompiler.inputOf(sizing.model(), data), 1);
        long trained = 0;
        for (Layer layer : net.getLayers()) {
            for (Map.Entry<String, INDArray> p : layer.paramTable().entrySet()) {
                boolean runningStatistic = layer.conf().getLayer() instanceof BatchNormalization
                        && RUNNING_STATISTICS.contains(p.getKey());
                trained += runningStatistic ? 0 : p.getValue().length();
            }
        }
        return trained;
    }

    private static double child(EngineBench.Workload w, Path out) throws Exception {
        return Double.parseDouble(ChildJvm.result(
                TrainDeckChildRun.class,
                w.childArgs("cpu", out.toString()),
                Map.of("OMP_NUM_THREADS", "1"),
                TrainDeckChildRun.RESULT,
                "the TrainDeck run (" + w.name() + ", OMP_NUM_THREADS=1)"));
    }
}
