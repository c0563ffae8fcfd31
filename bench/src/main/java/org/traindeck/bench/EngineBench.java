package org.traindeck.bench;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.model.ModelFactory;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Training throughput: a TrainDeck run with every sink and a UI-like subscriber, against a bare DL4J fit loop on the
 * same network, data and batch; and one CPU worker against two. Throughput is samples per second over the epochs after
 * the first (which warms up the JIT and ND4J's workspaces).
 */
final class EngineBench {

    static final int EPOCHS = 4;
    static final int REPEATS = 3;

    /** A benchmark model: its TrainDeck model and data JSON, and its batch size. */
    record Workload(String name, String model, String data, int samples, int batch) {}

    static final Workload MLP = new Workload("MLP 784-256-128-10",
            "{\"type\": \"mlp\", \"hidden\": [256, 128]}",
            "{\"type\": \"synthetic\", \"samples\": 8192, \"features\": 784, \"numClasses\": 10, \"noise\": 1.0}", 8192, 128);
    static final Workload LENET = new Workload("LeNet 28×28 (8, 16 channels)",
            "{\"type\": \"lenet\", \"channels\": [8, 16], \"kernelSize\": 5, \"dense\": 64}",
            "{\"type\": \"synthetic\", \"samples\": 2048, \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}", 2048, 64);

    static RunConfig config(Workload w, Path out, String devices) {
        String json = """
                {"name": "bench", "outputDir": "%s", "seed": 1, "devices": "%s",
                 "model": %s, "data": {"train": %s},
                 "stages": [{"epochs": %d, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.001},
                             "validationInterval": 0}],
                 "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """.formatted(out.toString().replace("\\", "/"), devices, w.model(), w.data(), EPOCHS, w.batch());
        return ConfigParser.parse(json, out).orThrow();
    }

    /** Samples/s of a TrainDeck run (all sinks on, one UI subscriber), from its epoch times after the first. */
    static double trainDeck(Workload w, Path out, String devices) throws Exception {
        RunConfig config = config(w, out, devices);
        TrainingRun run = TrainingRun.prepare(config);
        List<Double> epochSeconds = Collections.synchronizedList(new ArrayList<>());
        AtomicLong uiEvents = new AtomicLong();
        run.subscribe(e -> {
            uiEvents.incrementAndGet();
            if (e instanceof MetricEvent m && m.name().equals(MetricNames.EPOCH_TIME)) {
                epochSeconds.add(m.value());
            }
        }, EventBus.Delivery.LOSSLESS);
        run.subscribe(e -> uiEvents.incrementAndGet(), EventBus.Delivery.DROP_WHEN_BEHIND);
        RunResult r = run.runHere();
        if (r.status() != RunResult.Status.FINISHED) {
            throw new IllegalStateException("benchmark run failed: " + r.message());
        }
        double seconds = epochSeconds.subList(1, epochSeconds.size()).stream().mapToDouble(Double::doubleValue).sum();
        return w.samples() * (EPOCHS - 1) / seconds;
    }

    /** Samples/s of a plain DL4J loop: the same graph, batches gathered the same way, fit(DataSet) per batch. */
    static double bareDl4j(Workload w, Path out) {
        RunConfig config = config(w, out, "cpu");
        Dataset data = DataLoader.load(config, config.data(), "data").train();
        ComputationGraph net = ModelFactory.build(config.model(), ModelFactory.Shape.of(data), 1);
        boolean images = ModelFactory.wantsImages(config.model());
        double measured = 0;
        for (int epoch = 0; epoch < EPOCHS; epoch++) {
            long start = System.nanoTime();
            int[] order = DataLoader.permutation(data.size(), new SplittableRandom(epoch));
            for (int from = 0; from < data.size(); from += w.batch()) {
                net.fit(batch(data, order, from, w.batch(), images));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (epoch > 0) {
                measured += seconds;
            }
        }
        return w.samples() * (EPOCHS - 1) / measured;
    }

    private static DataSet batch(Dataset d, int[] order, int from, int size, boolean images) {
        int n = Math.min(size, order.length - from);
        int f = d.featureCount();
        float[] x = new float[n * f];
        float[] y = new float[n * d.outputCount()];
        for (int i = 0; i < n; i++) {
            d.copyFeatures(order[from + i], x, i * f);
            y[i * d.outputCount() + d.classOf(order[from + i])] = 1;
        }
        long[] shape = images ? new long[] {n, d.imageShape().channels(), d.imageShape().height(), d.imageShape().width()} : new long[] {n, f};
        return new DataSet(Nd4j.create(x, shape, DataType.FLOAT), Nd4j.create(y, new long[] {n, d.outputCount()}, DataType.FLOAT));
    }

    /** The two figures per workload; returns TrainDeck's one-device samples/s (for the peer comparison). */
    static double overhead(Workload w, Path out, Report report) throws Exception {
        double[] td = new double[REPEATS];
        double[] bare = new double[REPEATS];
        for (int i = 0; i < REPEATS; i++) {
            // alternate, so that drift in the machine's speed hits both the same
            bare[i] = bareDl4j(w, out.resolve("bare" + i));
            td[i] = trainDeck(w, out.resolve("td" + i), "cpu");
        }
        Stats t = Stats.of(td);
        Stats b = Stats.of(bare);
        report.add("engine overhead", w.name(), t.format("samples/s", 0), b.format("samples/s", 0) + " bare DL4J fit",
                Report.ratio(t.median() / b.median()), "≥ 0.98×");
        return t.median();
    }

    static void scaling(Workload w, Path out, Report report) throws Exception {
        double[] one = new double[REPEATS];
        double[] two = new double[REPEATS];
        for (int i = 0; i < REPEATS; i++) {
            one[i] = trainDeck(w, out.resolve("one" + i), "cpu");
            two[i] = trainDeck(w, out.resolve("two" + i), DeviceSelection.cpuWorkers(2).toString());
        }
        Stats a = Stats.of(one);
        Stats b = Stats.of(two);
        report.add("multi-worker scaling", w.name() + ", 2 CPU workers", b.format("samples/s", 0), a.format("samples/s", 0) + " 1 worker",
                Report.ratio(b.median() / a.median()) + " (efficiency " + String.format(java.util.Locale.ROOT, "%.0f%%", 50 * b.median() / a.median()) + ")", "—");
    }
}
