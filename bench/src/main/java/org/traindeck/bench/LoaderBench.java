package org.traindeck.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.train.batch.LoaderProbe;

/**
 * Whether loading keeps up with training: samples/s the NumPy loader prepares (read from a memory-mapped uint8
 * .npy, shuffled, scaled, one-hot) against samples/s the ViT sample's network trains on the same file, and the ViT's
 * step time with batches prepared ahead on the loader thread against prepared on the training thread. Alternated in
 * one run (loader, ahead, inline, loader, …); ratios are the medians of the pairwise ratios.
 */
final class LoaderBench {

    private static final int BATCH = 64;

    private LoaderBench() {}

    static void run(Path home, Path out, int samples, int pairs, Report report) throws Exception {
        Files.createDirectories(out);
        writeImages(out.resolve("x.npy"), out.resolve("y.npy"), samples);
        String vit = new ObjectMapper()
                .readTree(home.resolve("sample-configs/fashion-vit.json").toFile())
                .get("model")
                .toString();
        double[] loader = new double[pairs];
        double[] trains = new double[pairs];
        double[] headroom = new double[pairs];
        double[] aheadMs = new double[pairs];
        double[] inlineMs = new double[pairs];
        double[] stepRatio = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            loader[i] = LoaderProbe.samplesPerSecond(config(out, vit, 2), 4 * samples / BATCH);
            double[] ahead = train(config(out, vit, 2), samples);
            double[] inline = train(config(out, vit, 0), samples);
            trains[i] = ahead[0];
            headroom[i] = loader[i] / trains[i];
            aheadMs[i] = ahead[1];
            inlineMs[i] = inline[1];
            stepRatio[i] = inline[1] / ahead[1];
        }
        Stats h = Stats.of(headroom);
        report.add(
                "data loading",
                "NumPy uint8 28×28 → batches of " + BATCH + " (" + samples + " samples, memory-mapped), one thread",
                Stats.of(loader).format("samples/s", 0),
                Stats.of(trains).format("samples/s", 0) + " the ViT sample's network trains",
                String.format(Locale.ROOT, "%.1f× headroom (%.1f–%.1f, %d pairs)", h.median(), h.min(), h.max(), pairs),
                "≫ 1×");
        Stats s = Stats.of(stepRatio);
        report.add(
                "data loading",
                "ViT sample's step time, batch " + BATCH + ", batches prepared ahead (prefetch 2)",
                Stats.of(aheadMs).format("ms", 1),
                Stats.of(inlineMs).format("ms", 1) + " prepared on the training thread (prefetch 0)",
                String.format(Locale.ROOT, "%.3f× faster (%.3f–%.3f, %d pairs)", s.median(), s.min(), s.max(), pairs),
                "≥ 1×");
    }

    private static RunConfig config(Path out, String model, int prefetch) {
        String json = """
                {"name": "loader", "outputDir": "%s", "seed": 1, "devices": "cpu",
                 "model": %s,
                 "data": {"train": {"type": "numpy", "inputs": "x.npy", "targets": "y.npy", "scale": 0.00392156862745098}},
                 "stages": [{"epochs": 2, "batchSize": %d, "optimizer": {"type": "adamw", "learningRate": 0.002, "weightDecay": 0.01},
                             "gradientClipping": 1.0, "validationInterval": 0}],
                 "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}, "parallel": {"prefetch": %d}}
                """.formatted(out.toString().replace("\\", "/"), model, BATCH, prefetch);
        return ConfigParser.parse(json, out).orThrow();
    }

    /** Samples/s and ms per step of the second epoch (the first warms up the JIT and ND4J). */
    private static double[] train(RunConfig config, int samples) throws Exception {
        TrainingRun run = TrainingRun.open(RunRequest.of(config));
        List<Double> epochSeconds = Collections.synchronizedList(new ArrayList<>());
        run.subscribe(
                e -> {
                    if (e instanceof MetricEvent m && m.name().equals(MetricNames.EPOCH_TIME)) {
                        epochSeconds.add(m.value());
                    }
                },
                EventBus.Delivery.LOSSLESS);
        RunResult r = run.runHere();
        if (r.status() != RunResult.Status.FINISHED) {
            throw new IllegalStateException("benchmark run failed: " + r.message());
        }
        double seconds = epochSeconds.get(epochSeconds.size() - 1);
        int steps = (samples + BATCH - 1) / BATCH;
        return new double[] {samples / seconds, seconds / steps * 1000};
    }

    /** Fashion-MNIST-shaped uint8 images [N, 28, 28, 1] with 10 classes: a bright bar whose row is the class. */
    private static void writeImages(Path x, Path y, int samples) throws IOException {
        byte[] images = new byte[samples * 28 * 28];
        byte[] labels = new byte[samples];
        for (int i = 0; i < samples; i++) {
            int c = i % 10;
            labels[i] = (byte) c;
            for (int p = 0; p < 28 * 28; p++) {
                int row = p / 28;
                images[i * 784 + p] = (byte) (row / 3 == c ? 200 + (i * 7 + p) % 50 : (i * 13 + p * 7) % 60);
            }
        }
        Files.write(x, npy("|u1", "(" + samples + ", 28, 28, 1)", images));
        Files.write(y, npy("|u1", "(" + samples + ",)", labels));
    }

    private static byte[] npy(String descr, String shape, byte[] data) {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int padded = (dict.length() + 1 + 10 + 63) / 64 * 64 - 10;
        String header = dict + " ".repeat(padded - dict.length() - 1) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + header.length() + data.length);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
        b.put((byte) header.length()).put((byte) (header.length() >> 8));
        b.put(header.getBytes(StandardCharsets.ISO_8859_1)).put(data);
        return b.array();
    }
}
