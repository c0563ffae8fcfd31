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
 * Convolutional networks against PyTorch (bench/src/main/python/pytorch_peer.py has each node for node): the
 * {@link ConvSampleNets}, each as a graph so that its pooling, upsampling and concat nodes can be put back on DL4J's
 * layers ({@code "kernel": "dl4j"}, the kernels' before). Every TrainDeck run is a fresh JVM with OMP_NUM_THREADS=1,
 * as every peer is a fresh process; a pair runs PyTorch and TrainDeck at one thread (then TrainDeck on DL4J's layers),
 * then, for the whole machine, PyTorch's other settings and TrainDeck's {@code cpu:N} workers at the same global
 * batch, measured against PyTorch's best ({@link TorchBest}).
 */
final class ConvSamplePeers {

    /**
     * Epochs of every run, both sides, the first not measured (-Dtraindeck.bench.convEpochs; 4 by default): longer
     * runs measure past the JIT's warm-up, which on the LeNet lasts about ten epochs.
     */
    static final int EPOCHS = Integer.getInteger("traindeck.bench.convEpochs", EngineBench.EPOCHS);

    /** A batch norm's parameters that no gradient trains (PyTorch's buffers, not its parameters). */
    private static final Set<String> RUNNING_STATISTICS = Set.of("mean", "var", "log10stdev");

    /** The node types whose kernel the reference puts back on DL4J's layers. */
    static final Set<String> KERNEL_NODES = Set.of("maxPool2d", "maxPool3d", "upsample2d", "upsample3d", "concat");

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConvSamplePeers() {}

    /**
     * The same network with {@code "kernel": "dl4j"} on every pooling, upsampling and concat node and {@code
     * "implementation": "dl4j"} on every conv2d, conv3d and deconv2d node.
     */
    static EngineBench.Workload onDl4jLayers(EngineBench.Workload w) throws Exception {
        ObjectNode model = (ObjectNode) JSON.readTree(w.model());
        for (JsonNode node : model.withArray("layers")) {
            if (KERNEL_NODES.contains(node.path("type").asText())) {
                ((ObjectNode) node).put("kernel", "dl4j");
            } else if (List.of("conv2d", "conv3d", "deconv2d")
                    .contains(node.path("type").asText())) {
                ((ObjectNode) node).put("implementation", "dl4j");
            }
        }
        return new EngineBench.Workload(
                w.name() + ", DL4J's layers", model.toString(), w.data(), w.samples(), w.batch());
    }

    /**
     * {@code pairs} rounds of PyTorch, TrainDeck (and, with {@code withReference}, TrainDeck on DL4J's layers) at one
     * thread; with {@code wholeMachine} each round goes on with PyTorch's other {@link TorchSetting#wholeMachine}
     * settings and TrainDeck's {@code cpu:N} workers at the same global batch.
     */
    static void compare(
            ConvSampleNets.Sample s,
            Path home,
            Path out,
            int pairs,
            boolean withReference,
            boolean wholeMachine,
            Report report)
            throws Exception {
        Path script = home.resolve("bench/src/main/python/pytorch_peer.py");
        String python = PeerBench.python();
        if (python == null) {
            report.add("CPU peer", s.name(), "—", "skipped: PyTorch is not installed", "—", "—");
            return;
        }
        EngineBench.Workload w = s.workload();
        long ours = parameters(w, out.resolve(s.kind() + "-params"));
        WholeMachine machine = WholeMachine.of(w, Runtime.getRuntime().availableProcessors());
        boolean workers = wholeMachine && machine.workers() > 1;
        if (workers) {
            TorchSetting.checkDdpOnce(python, script, report);
        }
        Figures f = new Figures(
                new TorchBest(TorchSetting.wholeMachine(workers ? machine.cores() : 1), pairs),
                new double[pairs],
                withReference ? new double[pairs] : null,
                workers ? new double[pairs] : null);
        for (int i = 0; i < pairs; i++) {
            PeerBench.PeerRun t = peerRun(python, script, s, TorchSetting.threads(1));
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
            f.torch().put(TorchSetting.threads(1), i, t.samplesPerSecond()[0]);
            f.td()[i] = child(w, "cpu", out.resolve(s.kind() + "-own-" + i));
            if (f.ref() != null) {
                f.ref()[i] = child(onDl4jLayers(w), "cpu", out.resolve(s.kind() + "-dl4j-" + i));
            }
            if (f.workers() != null) {
                f.torch().measure(i, setting -> peerRun(python, script, s, setting));
                f.workers()[i] = child(machine.perWorker(), machine.devices(), out.resolve(s.kind() + "-cpu2-" + i));
            }
            f.print(i);
        }
        rows(s, ours, f, PeerBench.describe(python), report);
        if (f.workers() != null) {
            wholeMachineRow(s, machine, f, PeerBench.describe(python), report);
        }
    }

    /** Samples/s of a network's runs, pair by pair: PyTorch's, TrainDeck's, on DL4J's layers, as cpu:N workers. */
    private record Figures(TorchBest torch, double[] td, double[] ref, double[] workers) {
        void print(int i) {
            System.out.printf(
                    Locale.ROOT,
                    "    pair %d: TrainDeck %s%s%s; PyTorch %s samples/s%n",
                    i + 1,
                    Stats.rate(td[i]),
                    ref == null ? "" : " (DL4J's layers " + Stats.rate(ref[i]) + ")",
                    workers == null ? "" : ", cpu:N workers " + Stats.rate(workers[i]),
                    torch.pair(i));
        }
    }

    private static PeerBench.PeerRun peerRun(String python, Path script, ConvSampleNets.Sample s, TorchSetting setting)
            throws Exception {
        List<String> args = List.of(
                s.kind(),
                String.valueOf(EPOCHS),
                "1",
                setting.arg(),
                "0",
                "-",
                String.valueOf(s.workload().samples()));
        return PeerBench.run(python, script, args, setting);
    }

    /** The rows of one network: TrainDeck against PyTorch and, with DL4J's layers measured, those against both. */
    private static void rows(ConvSampleNets.Sample s, long ours, Figures f, String torchName, Report report) {
        MachinePeak peak = MachinePeak.read();
        double[] torch = f.torch().of(TorchSetting.threads(1));
        String peer = Stats.of(torch).format("samples/s", decimals(torch))
                + SmallNetFlops.rate(torch, s.flops(), 1, peak) + " " + torchName;
        String params = String.format(Locale.ROOT, ", 1 thread, %,d trained parameters in both", ours);
        report.add(
                "CPU peer",
                s.name() + params,
                Stats.of(f.td()).format("samples/s", decimals(f.td())) + SmallNetFlops.rate(f.td(), s.flops(), 1, peak),
                peer,
                ratio(f.td(), torch),
                "≥ 1×");
        if (f.ref() != null) {
            report.add(
                    "CPU peer",
                    s.name() + ", convolutions, pooling, upsampling and concat on DL4J's layers",
                    Stats.of(f.ref()).format("samples/s", 0),
                    peer,
                    ratio(f.ref(), torch),
                    "(the kernels' before)");
            report.add("CPU peer", s.name() + ": kernels / DL4J's layers", "—", "—", ratio(f.td(), f.ref()), "> 1×");
        }
    }

    /** Whole samples/s, or two decimals where a network trains under ten a second (the large ones). */
    private static int decimals(double[] samplesPerSecond) {
        return Stats.of(samplesPerSecond).median() < 10 ? 2 : 0;
    }

    /** TrainDeck's cpu:N workers against PyTorch's best whole-machine setting. */
    private static void wholeMachineRow(
            ConvSampleNets.Sample s, WholeMachine machine, Figures f, String torchName, Report report) {
        MachinePeak peak = MachinePeak.read();
        double[] best = f.torch().of(f.torch().best());
        int cores = machine.cores();
        report.add(
                "CPU peer",
                s.name() + ", whole machine: " + machine.describeWorkers(),
                Stats.of(f.workers()).format("samples/s", decimals(f.workers()))
                        + SmallNetFlops.rate(f.workers(), s.flops(), cores, peak),
                f.torch().describe(decimals(best), SmallNetFlops.rate(best, s.flops(), cores, peak)) + " " + torchName,
                ratio(f.workers(), best),
                "≥ 1.2× PyTorch's best");
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

    private static double child(EngineBench.Workload w, String devices, Path out) throws Exception {
        return Double.parseDouble(ChildJvm.result(
                TrainDeckChildRun.class,
                w.childArgs(devices, out.toString(), String.valueOf(EPOCHS)),
                Map.of("OMP_NUM_THREADS", "1"),
                TrainDeckChildRun.RESULT,
                "the TrainDeck run (" + w.name() + ", " + devices + ", OMP_NUM_THREADS=1)"));
    }
}
