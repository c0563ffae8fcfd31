package org.traindeck.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * Training throughput: a TrainDeck run with every sink and a UI-like subscriber, against a bare DL4J fit loop
 * ({@link BareDl4jLoop}) on the same network, data and batch; and one CPU worker against two. Throughput is samples
 * per second over the epochs after the first (which warms up the JIT and ND4J's workspaces).
 */
final class EngineBench {

    static final int EPOCHS = 4;

    /** A benchmark model: its TrainDeck model and data JSON, and its batch size. */
    record Workload(String name, String model, String data, int samples, int batch) {
        /** The same workload on {@code n} synthetic examples. */
        Workload withSamples(int n) {
            if (!data.contains("\"synthetic\"")) {
                throw new IllegalArgumentException(name + ": only synthetic data can be resized");
            }
            return new Workload(name, model, data.replaceFirst("\"samples\": \\d+", "\"samples\": " + n), n, batch);
        }

        /** This workload as a child JVM's first arguments, followed by {@code more}; read back by {@link #fromArgs}. */
        List<String> childArgs(String... more) {
            List<String> out =
                    new ArrayList<>(List.of(name, model, data, String.valueOf(samples), String.valueOf(batch)));
            out.addAll(List.of(more));
            return out;
        }

        /** The workload of a child JVM's first five arguments ({@link #childArgs}). */
        static Workload fromArgs(String[] args) {
            return new Workload(args[0], args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        }
    }

    static final Workload MLP = new Workload(
            "MLP 784-256-128-10",
            "{\"type\": \"mlp\", \"hidden\": [256, 128]}",
            "{\"type\": \"synthetic\", \"samples\": 8192, \"features\": 784, \"numClasses\": 10, \"noise\": 1.0}",
            8192,
            128);
    /** The MLP with DL4J's DenseLayer instead of TrainDeck's dense kernel: the "before" of the kernel. */
    static final Workload MLP_DL4J = new Workload(
            "MLP 784-256-128-10, DL4J's DenseLayer",
            "{\"type\": \"mlp\", \"hidden\": [256, 128], \"kernel\": \"dl4j\"}",
            MLP.data(),
            MLP.samples(),
            MLP.batch());

    static final Workload LENET = new Workload(
            "LeNet 28×28 (8, 16 channels)",
            "{\"type\": \"lenet\", \"channels\": [8, 16], \"kernelSize\": 5, \"dense\": 64}",
            "{\"type\": \"synthetic\", \"samples\": 2048, \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}",
            2048,
            64);
    static final Workload LENET_LARGE = new Workload(
            "LeNet 28×28 (20, 50 channels, dense 500)",
            "{\"type\": \"lenet\", \"channels\": [20, 50], \"kernelSize\": 5, \"dense\": 500}",
            "{\"type\": \"synthetic\", \"samples\": 1024, \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}",
            1024,
            64);

    /** LeNet with a BatchNorm after each convolution: the synchronized BatchNorm row's model. */
    static final Workload LENET_BN = new Workload(
            "LeNet 28×28 (8, 16 channels) with batchNorm",
            "{\"type\": \"lenet\", \"channels\": [8, 16], \"kernelSize\": 5, \"dense\": 64, \"batchNorm\": true}",
            LENET.data(),
            LENET.samples(),
            32);

    static RunConfig config(Workload w, Path out, String devices) {
        return config(w, out, devices, true);
    }

    static RunConfig config(Workload w, Path out, String devices, boolean onednn) {
        return config(w, out, devices, onednn, false);
    }

    static RunConfig config(Workload w, Path out, String devices, boolean onednn, boolean syncBatchNorm) {
        return config(w, out, devices, onednn, syncBatchNorm, EPOCHS);
    }

    static RunConfig config(Workload w, Path out, String devices, boolean onednn, boolean syncBatchNorm, int epochs) {
        String json = """
                {"name": "bench", "outputDir": "%s", "seed": 1, "devices": "%s", "parallel": {"syncBatchNorm": %s},
                 "model": %s, "data": {"train": %s},
                 "stages": [{"epochs": %d, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.001},
                             "validationInterval": 0}],
                 "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}, "performance": {"onednn": %s}}
                """.formatted(
                        out.toString().replace("\\", "/"),
                        devices,
                        syncBatchNorm,
                        w.model(),
                        w.data(),
                        epochs,
                        w.batch(),
                        onednn);
        return ConfigParser.parse(json, out).orThrow();
    }

    /**
     * What a TrainDeck run gave: samples/s over the epochs after the first, the last epoch's mean training loss, and
     * its fixed costs: opening the run ({@link TrainingRun#open}: devices, the data read, the model compiled, folder and
     * files) and the time of the run outside its epochs (the network built, the final checkpoint).
     */
    record Measured(double samplesPerSecond, double finalLoss, double openSeconds, double outsideEpochsSeconds) {}

    static Measured measure(Workload w, Path out, String devices) throws Exception {
        return measure(w, out, devices, true);
    }

    static Measured measure(Workload w, Path out, String devices, boolean onednn) throws Exception {
        return measure(config(w, out, devices, onednn), w.samples());
    }

    /** A run of {@code config} (its epochs all of {@code samples} examples), as {@link #measure(Workload, Path, String)}. */
    static Measured measure(RunConfig config, int samples) throws Exception {
        int epochs = config.stages().get(0).epochs();
        long t0 = System.nanoTime();
        TrainingRun run = TrainingRun.open(RunRequest.of(config));
        long t1 = System.nanoTime();
        List<Double> epochSeconds = Collections.synchronizedList(new ArrayList<>());
        double[] lastLoss = {Double.NaN};
        AtomicLong uiEvents = new AtomicLong();
        List<ThreadTimes.Snapshot> atEpochEnds = Collections.synchronizedList(new ArrayList<>());
        boolean threadTimes = Boolean.getBoolean("traindeck.bench.threadTimes");
        run.subscribe(
                e -> {
                    uiEvents.incrementAndGet();
                    if (e instanceof MetricEvent m && m.name().equals(MetricNames.EPOCH_TIME)) {
                        epochSeconds.add(m.value());
                        if (threadTimes) {
                            atEpochEnds.add(ThreadTimes.now());
                        }
                    }
                    if (e instanceof MetricEvent m && m.name().equals(MetricNames.TRAIN_EPOCH_LOSS)) {
                        lastLoss[0] = m.value();
                    }
                },
                EventBus.Delivery.LOSSLESS);
        run.subscribe(e -> uiEvents.incrementAndGet(), EventBus.Delivery.DROP_WHEN_BEHIND);
        RunResult r = run.runHere();
        long t2 = System.nanoTime();
        if (r.status() != RunResult.Status.FINISHED) {
            throw new IllegalStateException("benchmark run failed: " + r.message());
        }
        ThreadTimes.print(atEpochEnds);
        double seconds = epochSeconds.subList(1, epochSeconds.size()).stream()
                .mapToDouble(Double::doubleValue)
                .sum();
        double allEpochs =
                epochSeconds.stream().mapToDouble(Double::doubleValue).sum();
        return new Measured(
                samples * (epochs - 1) / seconds, lastLoss[0], (t1 - t0) / 1e9, (t2 - t1) / 1e9 - allEpochs);
    }

    /**
     * TrainDeck against the bare loop, alternated (bare, TrainDeck, bare, …); the ratio is the median of the pairwise
     * ratios (min–max), and the fixed costs outside the epochs are a row of their own. Returns TrainDeck's samples/s.
     */
    static double overhead(Workload w, Path out, int pairs, Report report) throws Exception {
        double[] td = new double[pairs];
        double[] bare = new double[pairs];
        double[] ratios = new double[pairs];
        double[] open = new double[pairs];
        double[] outside = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            bare[i] = BareDl4jLoop.samplesPerSecond(w, out.resolve("bare" + i));
            Measured m = measure(w, out.resolve("td" + i), "cpu");
            td[i] = m.samplesPerSecond();
            ratios[i] = td[i] / bare[i];
            open[i] = m.openSeconds() * 1000;
            outside[i] = m.outsideEpochsSeconds() * 1000;
        }
        Stats r = Stats.of(ratios);
        report.add(
                "engine overhead",
                w.name(),
                Stats.of(td).format("samples/s", 0),
                Stats.of(bare).format("samples/s", 0) + " bare DL4J fit",
                String.format(Locale.ROOT, "%.3f× (%.3f–%.3f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                "≥ 0.98×");
        report.add(
                "engine overhead",
                w.name() + ", fixed costs per run",
                "open (data read, model compiled) " + Stats.of(open).format("ms", 0) + "; network and final checkpoint "
                        + Stats.of(outside).format("ms", 0),
                "not in the ratio above",
                "—",
                "—");
        return Stats.of(td).median();
    }

    /** TrainDeck with oneDNN's helpers against without, alternated (off, on, …); the median of the pairwise ratios. */
    static void oneDnn(Workload w, Path out, int pairs, Report report) throws Exception {
        double[] on = new double[pairs];
        double[] off = new double[pairs];
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            off[i] = measure(w, out.resolve("off" + i), "cpu", false).samplesPerSecond();
            on[i] = measure(w, out.resolve("on" + i), "cpu", true).samplesPerSecond();
            ratios[i] = on[i] / off[i];
        }
        Stats r = Stats.of(ratios);
        report.add(
                "oneDNN",
                w.name(),
                Stats.of(on).format("samples/s", 0),
                Stats.of(off).format("samples/s", 0) + " DL4J's own path",
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                "—");
    }

    /**
     * Two CPU workers against one at the same per-worker batch (so two workers train a global batch twice as large),
     * TrainDeck's synchronous all-reduce, alternated one, two, one, two…; the ratio is the median of the pairwise
     * ratios, with their min–max.
     */
    static void scaling(Workload w, Path out, int pairs, String target, Report report) throws Exception {
        double[] one = new double[pairs];
        double[] two = new double[pairs];
        double[] ratios = new double[pairs];
        double[] loss1 = new double[pairs];
        double[] loss2 = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            Measured a = measure(w, out.resolve("one" + i), "cpu");
            Measured b = measure(
                    w, out.resolve("two" + i), DeviceSelection.cpuWorkers(2).toString());
            one[i] = a.samplesPerSecond();
            two[i] = b.samplesPerSecond();
            ratios[i] = two[i] / one[i];
            loss1[i] = a.finalLoss();
            loss2[i] = b.finalLoss();
        }
        Stats r = Stats.of(ratios);
        report.add(
                "multi-worker scaling",
                w.name() + ", 2 CPU workers × batch " + w.batch() + " (sync all-reduce)",
                Stats.of(two).format("samples/s", 0)
                        + String.format(
                                Locale.ROOT,
                                ", final loss %.3g",
                                Stats.of(loss2).median()),
                Stats.of(one).format("samples/s", 0)
                        + String.format(
                                Locale.ROOT,
                                " 1 worker, final loss %.3g",
                                Stats.of(loss1).median()),
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                target);
    }

    /**
     * Synchronized BatchNorm's cost on 2 CPU workers: the same run without and with {@code parallel.syncBatchNorm},
     * alternated (without, with, with, without, …); the cost is the median of the pairwise step-time ratios (with/without), min–max.
     */
    static void syncBatchNorm(Workload w, Path out, int pairs, Report report) throws Exception {
        double[] plain = new double[pairs];
        double[] synced = new double[pairs];
        double[] ratios = new double[pairs];
        String two = DeviceSelection.cpuWorkers(2).toString();
        for (int i = 0; i < pairs; i++) {
            // each pair in the other order than the last, so that a load that rises or falls favours neither
            boolean syncFirst = i % 2 == 1;
            if (syncFirst) {
                synced[i] = measure(config(w, out.resolve("sync" + i), two, true, true), w.samples())
                        .samplesPerSecond();
            }
            plain[i] = measure(config(w, out.resolve("plain" + i), two, true, false), w.samples())
                    .samplesPerSecond();
            if (!syncFirst) {
                synced[i] = measure(config(w, out.resolve("sync" + i), two, true, true), w.samples())
                        .samplesPerSecond();
            }
            ratios[i] = plain[i] / synced[i];
        }
        Stats r = Stats.of(ratios);
        report.add(
                "multi-worker scaling",
                w.name() + ", 2 CPU workers × batch " + w.batch() + ": synchronized BatchNorm's step time",
                Stats.of(synced).format("samples/s", 0) + " with parallel.syncBatchNorm",
                Stats.of(plain).format("samples/s", 0) + " without (per-device statistics)",
                String.format(
                        Locale.ROOT, "%.3f× step time (%.3f–%.3f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                "≤ 1.10×");
    }
}
