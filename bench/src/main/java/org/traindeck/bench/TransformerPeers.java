package org.traindeck.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.traindeck.bench.TransformerNets.Peer;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;

/**
 * The ViT and GPT samples' networks against the same networks in PyTorch (bench/src/main/python/pytorch_peer.py),
 * at one thread and on the whole machine. Every TrainDeck run is a fresh JVM ({@link TrainDeckChildRun}) so that
 * OMP_NUM_THREADS can differ between runs, as the peer's threads do; the runs of a pair alternate.
 */
final class TransformerPeers {

    private TransformerPeers() {}

    /**
     * One thread (TrainDeck on one CPU device with OMP_NUM_THREADS=1, PyTorch with set_num_threads(1)) and the whole
     * machine: TrainDeck on one device with every OMP thread and on one worker per core with the synchronous
     * all-reduce at the same global batch, PyTorch in each of {@link TorchSetting#wholeMachine}'s settings (its best
     * the fastest). Each pair alternates peer, TrainDeck, peer, …
     */
    static void compare(Peer peer, Path home, Path out, int pairs, Report report) throws Exception {
        Path script = home.resolve("bench/src/main/python/pytorch_peer.py");
        String python = PeerBench.python();
        if (python == null) {
            skipped(report, peer, "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)");
            return;
        }
        RunConfig sizing = EngineBench.config(peer.workload(), out.resolve(peer.kind() + "-params"), "cpu");
        Dataset sizingData = DataLoader.load(sizing, sizing.data(), "data").train();
        long ours = ModelCompiler.build(sizing.model(), ModelCompiler.inputOf(sizing.model(), sizingData), 1)
                .numParams();
        double stepFlops = peer.stepFlops().applyAsDouble(sizingData.outputCount());
        MachinePeak peak = MachinePeak.read();
        WholeMachine settings =
                WholeMachine.of(peer.workload(), Runtime.getRuntime().availableProcessors());
        TorchSetting.checkDdpOnce(python, script, report);
        Pairs measured = new Pairs(pairs, TorchSetting.wholeMachine(settings.cores()));
        for (int i = 0; i < pairs; i++) {
            PeerBench.PeerRun t = peerRun(python, script, peer, TorchSetting.threads(1));
            if (t.parameters() != ours) {
                skipped(
                        report,
                        peer,
                        "skipped: the PyTorch network has " + t.parameters() + " parameters, TrainDeck's " + ours
                                + " (pytorch_peer.py no longer matches the sample)");
                return;
            }
            measured.torch.put(TorchSetting.threads(1), i, t.samplesPerSecond()[0]);
            measured.td1[i] = child(settings.workload(), "cpu", 1, out.resolve(peer.kind() + "-1t-" + i));
            measured.torch.measure(i, setting -> peerRun(python, script, peer, setting));
            measured.runWholeMachine(i, peer, settings, out);
            measured.print(i, settings);
        }
        String params = String.format(Locale.ROOT, ", %,d parameters in both", ours);
        measured.report(
                report,
                peer,
                settings,
                params,
                PeerBench.describe(python),
                new StepRate(peer.workload().batch(), stepFlops, peak));
        System.out.printf(
                Locale.ROOT,
                "    %s: %.2f GFLOP per step (matrix products, estimated); %s%n",
                peer.name(),
                stepFlops / 1e9,
                peak.describe());
    }

    private static void skipped(Report report, Peer peer, String why) {
        report.add("CPU peer", peer.name(), "—", why, "—", "—");
    }

    /** Samples per second of each alternated pair: PyTorch and TrainDeck at one thread and on the whole machine. */
    private static final class Pairs {
        final double[] td1;
        final double[] tdOmp;
        final double[] tdWorkers;
        final TorchBest torch;

        Pairs(int n, List<TorchSetting> torchSettings) {
            td1 = new double[n];
            tdOmp = new double[n];
            tdWorkers = new double[n];
            torch = new TorchBest(torchSettings, n);
        }

        void runWholeMachine(int i, Peer peer, WholeMachine s, Path out) throws Exception {
            tdOmp[i] = child(s.workload(), "cpu", s.cores(), out.resolve(peer.kind() + "-omp-" + i));
            tdWorkers[i] = child(s.perWorker(), s.devices(), 1, out.resolve(peer.kind() + "-workers-" + i));
        }

        void print(int i, WholeMachine s) {
            System.out.printf(
                    Locale.ROOT,
                    "    pair %d: TrainDeck 1 thread %.1f, cpu OMP %d %.1f, %s %.1f; PyTorch %s samples/s%n",
                    i + 1,
                    td1[i],
                    s.cores(),
                    tdOmp[i],
                    s.devices(),
                    tdWorkers[i],
                    torch.pair(i));
        }

        void report(Report report, Peer peer, WholeMachine s, String params, String torchName, StepRate rate) {
            TorchSetting one = TorchSetting.threads(1);
            TorchSetting threads = TorchSetting.threads(s.cores());
            double[] torch1 = torch.of(one);
            int decimals = Stats.of(torch1).median() < 100 ? 1 : 0;
            row(
                    report,
                    peer.name() + ", 1 thread" + params,
                    td1,
                    1,
                    torch1,
                    cell(torch1, decimals, rate, 1) + " " + torchName + ", 1 thread",
                    "≥ 1×",
                    rate);
            double[] torchThreads = torch.of(threads);
            row(
                    report,
                    peer.name() + ", whole machine: cpu, OMP_NUM_THREADS=" + s.cores(),
                    tdOmp,
                    s.cores(),
                    torchThreads,
                    cell(torchThreads, decimals, rate, s.cores()) + " " + torchName + ", " + threads.describe(),
                    "≥ 1×",
                    rate);
            double[] best = torch.of(torch.best());
            row(
                    report,
                    peer.name() + ", whole machine: " + s.describeWorkers(),
                    tdWorkers,
                    s.cores(),
                    best,
                    torch.describe(decimals, rate.of(best, s.cores())) + " " + torchName,
                    "≥ 1.2× PyTorch's best",
                    rate);
        }

        private static String cell(double[] torch, int decimals, StepRate rate, int threads) {
            return Stats.of(torch).format("samples/s", decimals) + rate.of(torch, threads);
        }
    }

    /**
     * The sample on TrainDeck's own transformer-block kernel against the same sample with "kernel": "dl4j" (the blocks
     * on DL4J's layers, as before the kernel), one thread each, alternated in fresh JVMs.
     */
    static void kernels(Peer peer, Path out, int pairs, Report report) throws Exception {
        EngineBench.Workload own = peer.workload();
        ObjectNode model = (ObjectNode) new ObjectMapper().readTree(own.model());
        model.put("kernel", "dl4j");
        EngineBench.Workload reference =
                new EngineBench.Workload(own.name(), model.toString(), own.data(), own.samples(), own.batch());
        double[] ours = new double[pairs];
        double[] dl4j = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            dl4j[i] = child(reference, "cpu", 1, out.resolve(peer.kind() + "-dl4j-" + i));
            ours[i] = child(own, "cpu", 1, out.resolve(peer.kind() + "-own-" + i));
            System.out.printf(
                    Locale.ROOT, "    pair %d: own kernel %.0f, dl4j %.0f samples/s%n", i + 1, ours[i], dl4j[i]);
        }
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            ratios[i] = ours[i] / dl4j[i];
        }
        Stats r = Stats.of(ratios);
        report.add(
                "kernels",
                peer.name() + ", 1 thread: own transformerBlock kernel against \"kernel\": \"dl4j\"",
                Stats.of(ours).format("samples/s", 0),
                Stats.of(dl4j).format("samples/s", 0) + " on DL4J's layers",
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                "≥ 3× (PyTorch parity)");
    }

    private static void row(
            Report report,
            String figure,
            double[] td,
            int threads,
            double[] torch,
            String torchCell,
            String target,
            StepRate rate) {
        double[] ratios = new double[td.length];
        for (int i = 0; i < td.length; i++) {
            ratios[i] = td[i] / torch[i];
        }
        Stats r = Stats.of(ratios);
        // a workstation-size row trains a few samples a second: whole numbers would hide its spread
        int decimals = Stats.of(torch).median() < 100 ? 1 : 0;
        report.add(
                "CPU peer",
                figure,
                Stats.of(td).format("samples/s", decimals) + rate.of(td, threads),
                torchCell,
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), td.length),
                target);
    }

    private static PeerBench.PeerRun peerRun(String python, Path script, Peer peer, TorchSetting setting)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(
                peer.kind(),
                String.valueOf(EngineBench.EPOCHS),
                "1",
                setting.arg(),
                String.valueOf(peer.workload().batch())));
        args.addAll(peer.extraArgs());
        return PeerBench.run(python, script, args, setting);
    }

    /** Samples/s of one TrainDeck run in a fresh JVM with {@code threads} OMP threads. */
    private static double child(EngineBench.Workload w, String devices, int threads, Path out) throws Exception {
        double rate = Double.parseDouble(ChildJvm.result(
                TrainDeckChildRun.class,
                w.childArgs(devices, out.toString()),
                Map.of("OMP_NUM_THREADS", String.valueOf(threads)),
                TrainDeckChildRun.RESULT,
                "the TrainDeck run (" + devices + ", OMP_NUM_THREADS=" + threads + ")"));
        return rate;
    }
}
