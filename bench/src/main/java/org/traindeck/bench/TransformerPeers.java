package org.traindeck.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The ViT and GPT samples' networks against the same networks in PyTorch (bench/src/main/python/pytorch_peer.py),
 * at one thread and on the whole machine. Every TrainDeck run is a fresh JVM ({@link TrainDeckChildRun}) so that
 * OMP_NUM_THREADS can differ between runs, as the peer's threads do; the runs of a pair alternate.
 */
final class TransformerPeers {

    /** The samples and windows the peer script trains on (its VIT_SAMPLES and GPT_WINDOWS). */
    static final int SAMPLES = 512;

    /** A sample's network with the bench's data and Adam; batch is the sample's (global) batch. */
    record Peer(String kind, String name, EngineBench.Workload workload, List<String> extraArgs) {}

    private TransformerPeers() {
    }

    static Peer vit(Path home) throws Exception {
        String model = sampleModel(home, "fashion-vit.json");
        return new Peer("vit", "fashion-vit.json's ViT (synthetic 28×28 images, batch 64)", new EngineBench.Workload("ViT",
                model, "{\"type\": \"synthetic\", \"samples\": " + SAMPLES + ", \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}",
                SAMPLES, 64), List.of());
    }

    static Peer gpt(Path home) throws Exception {
        String model = sampleModel(home, "text-gpt.json");
        Path text = home.resolve("data/text/gpl-3.txt").toAbsolutePath();
        return new Peer("gpt", "text-gpt.json's GPT (gpl-3.txt, " + SAMPLES + " windows of 64, batch 32)", new EngineBench.Workload("GPT",
                model, "{\"type\": \"text\", \"path\": \"" + text.toString().replace("\\", "/")
                + "\", \"context\": 64, \"stride\": 16, \"limit\": " + SAMPLES + "}", SAMPLES, 32), List.of(text.toString()));
    }

    /** The sample's "model" object as it stands, so that the bench follows the sample. */
    private static String sampleModel(Path home, String sample) throws Exception {
        JsonNode config = new ObjectMapper().readTree(home.resolve("sample-configs").resolve(sample).toFile());
        return config.get("model").toString();
    }

    /**
     * One thread (TrainDeck on one CPU device with OMP_NUM_THREADS=1, PyTorch with set_num_threads(1)) and the whole
     * machine (PyTorch on every core; TrainDeck on one device with every OMP thread and on one worker per core with
     * the synchronous all-reduce at the same global batch). Each pair alternates peer, TrainDeck, TrainDeck, …
     */
    static void compare(Peer peer, Path home, Path out, int pairs, Report report) throws Exception {
        Path script = home.resolve("bench/src/main/python/pytorch_peer.py");
        String python = PeerBench.python();
        if (python == null) {
            report.add("CPU peer", peer.name(), "—", "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)",
                    "—", "—");
            return;
        }
        long ours = parameters(peer.workload(), out.resolve(peer.kind() + "-params"));
        int cores = Runtime.getRuntime().availableProcessors();
        EngineBench.Workload w = peer.workload();
        int workers = Math.min(cores, w.batch());
        while (w.batch() % workers != 0) {
            workers--; // the same global batch on every setting
        }
        EngineBench.Workload perWorker = new EngineBench.Workload(w.name(), w.model(), w.data(), w.samples(), w.batch() / workers);

        double[] torch1 = new double[pairs];
        double[] td1 = new double[pairs];
        double[] torchAll = new double[pairs];
        double[] tdOmp = new double[pairs];
        double[] tdWorkers = new double[pairs];
        long theirs = -1;
        for (int i = 0; i < pairs; i++) {
            PeerBench.PeerRun t = peerRun(python, script, peer, 1);
            theirs = t.parameters();
            if (theirs != ours) {
                report.add("CPU peer", peer.name(), "—", "skipped: the PyTorch network has " + theirs
                        + " parameters, TrainDeck's " + ours + " (pytorch_peer.py no longer matches the sample)", "—", "—");
                return;
            }
            torch1[i] = t.samplesPerSecond()[0];
            td1[i] = child(w, "cpu", 1, out.resolve(peer.kind() + "-1t-" + i));
            torchAll[i] = peerRun(python, script, peer, cores).samplesPerSecond()[0];
            tdOmp[i] = child(w, "cpu", cores, out.resolve(peer.kind() + "-omp-" + i));
            tdWorkers[i] = child(perWorker, "cpu:" + workers, 1, out.resolve(peer.kind() + "-workers-" + i));
            System.out.printf(Locale.ROOT, "    pair %d: 1 thread %.0f vs %.0f; whole machine %.0f (cpu, OMP %d), %.0f (cpu:%d) vs %.0f samples/s%n",
                    i + 1, td1[i], torch1[i], tdOmp[i], cores, tdWorkers[i], workers, torchAll[i]);
        }
        String torchName = PeerBench.describe(python);
        String params = String.format(Locale.ROOT, ", %,d parameters in both", ours);
        row(report, peer.name() + ", 1 thread" + params, td1, torch1, 1, torchName, peer.workload().batch());
        row(report, peer.name() + ", whole machine: cpu, OMP_NUM_THREADS=" + cores, tdOmp, torchAll, cores, torchName,
                peer.workload().batch());
        row(report, peer.name() + ", whole machine: cpu:" + workers + " (sync all-reduce, " + workers + " × batch "
                + perWorker.batch() + ", OMP_NUM_THREADS=1)", tdWorkers, torchAll, cores, torchName, peer.workload().batch());
    }

    /**
     * The sample on TrainDeck's own transformer-block kernel against the same sample with "kernel": "dl4j" (the blocks
     * on DL4J's layers, as before the kernel), one thread each, alternated in fresh JVMs.
     */
    static void kernels(Peer peer, Path out, int pairs, Report report) throws Exception {
        EngineBench.Workload own = peer.workload();
        ObjectNode model = (ObjectNode) new ObjectMapper().readTree(own.model());
        model.put("kernel", "dl4j");
        EngineBench.Workload reference = new EngineBench.Workload(own.name(), model.toString(), own.data(), own.samples(), own.batch());
        double[] ours = new double[pairs];
        double[] dl4j = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            dl4j[i] = child(reference, "cpu", 1, out.resolve(peer.kind() + "-dl4j-" + i));
            ours[i] = child(own, "cpu", 1, out.resolve(peer.kind() + "-own-" + i));
            System.out.printf(Locale.ROOT, "    pair %d: own kernel %.0f, dl4j %.0f samples/s%n", i + 1, ours[i], dl4j[i]);
        }
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            ratios[i] = ours[i] / dl4j[i];
        }
        Stats r = Stats.of(ratios);
        report.add("kernels", peer.name() + ", 1 thread: own transformerBlock kernel against \"kernel\": \"dl4j\"",
                Stats.of(ours).format("samples/s", 0), Stats.of(dl4j).format("samples/s", 0) + " on DL4J's layers",
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs), "≥ 3× (PyTorch parity)");
    }

    private static void row(Report report, String figure, double[] td, double[] torch, int threads, String torchName, int batch) {
        double[] ratios = new double[td.length];
        for (int i = 0; i < td.length; i++) {
            ratios[i] = td[i] / torch[i];
        }
        Stats r = Stats.of(ratios);
        report.add("CPU peer", figure, Stats.of(td).format("samples/s", 0) + stepsPerSecond(td, batch),
                Stats.of(torch).format("samples/s", 0) + stepsPerSecond(torch, batch) + " " + torchName + ", " + threads + " thread(s)",
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), td.length), "≥ 1× on the whole machine");
    }

    private static String stepsPerSecond(double[] samples, int batch) {
        return String.format(Locale.ROOT, " = %.2f steps/s", Stats.of(samples).median() / batch);
    }

    private static PeerBench.PeerRun peerRun(String python, Path script, Peer peer, int threads) throws Exception {
        List<String> args = new ArrayList<>(List.of(peer.kind(), String.valueOf(EngineBench.EPOCHS), "1", String.valueOf(threads),
                String.valueOf(peer.workload().batch())));
        args.addAll(peer.extraArgs());
        return PeerBench.run(python, script, args, threads);
    }

    /** TrainDeck's parameter count for the workload's network and data. */
    private static long parameters(EngineBench.Workload w, Path out) {
        RunConfig config = EngineBench.config(w, out, "cpu");
        Dataset data = DataLoader.load(config, config.data(), "data").train();
        return ModelCompiler.build(config.model(), ModelCompiler.inputOf(config.model(), data), 1).numParams();
    }

    /** Samples/s of one TrainDeck run in a fresh JVM with {@code threads} OMP threads. */
    private static double child(EngineBench.Workload w, String devices, int threads, Path out) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TrainDeckChildRun.class.getName(),
                w.name(), w.model(), w.data(), String.valueOf(w.samples()), String.valueOf(w.batch()), devices, out.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("OMP_NUM_THREADS", String.valueOf(threads));
        Process p = builder.start();
        StringBuilder all = new StringBuilder();
        double rate = Double.NaN;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith(TrainDeckChildRun.RESULT)) {
                    rate = Double.parseDouble(line.substring(TrainDeckChildRun.RESULT.length()).trim());
                }
            }
        }
        if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0 || Double.isNaN(rate)) {
            throw new IllegalStateException("the TrainDeck run (" + devices + ", OMP_NUM_THREADS=" + threads + ") failed:\n" + all);
        }
        return rate;
    }
}
