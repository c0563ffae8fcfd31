package org.traindeck.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Locale;
import org.traindeck.engine.config.LayerHealthConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;

/**
 * What per-layer health costs: the ViT sample's network (its model section, on synthetic 28×28 images of its batch
 * and optimizer) with per-layer figures and histograms at their default intervals, against with them off, alternated
 * (off, on, off, …) in one run; the ratio of step times is the median of the pairwise ratios (min–max).
 */
final class LayerHealthBench {

    private LayerHealthBench() {}

    static void run(Path home, Path out, int pairs, int samples, Report report) throws Exception {
        // the sample's model only: its data (Fashion-MNIST) need not be installed for the bench
        String model = new ObjectMapper()
                .readTree(home.resolve("sample-configs/fashion-vit.json").toFile())
                .get("model")
                .toString();
        LayerHealthConfig defaults = LayerHealthConfig.DEFAULTS;
        double[] on = new double[pairs];
        double[] off = new double[pairs];
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            off[i] = EngineBench.measure(
                            config(
                                    out.resolve("off" + i),
                                    model,
                                    samples,
                                    "{\"everySteps\": 0, \"histogramsEverySteps\": 0}"),
                            samples)
                    .samplesPerSecond();
            on[i] = EngineBench.measure(config(out.resolve("on" + i), model, samples, "{}"), samples)
                    .samplesPerSecond();
            // step time with the figures over step time without
            ratios[i] = off[i] / on[i];
        }
        Stats r = Stats.of(ratios);
        int steps = samples / 64;
        report.add(
                "per-layer health",
                String.format(
                        Locale.ROOT,
                        "ViT sample network, batch 64, step time with figures every %d and"
                                + " histograms every %d steps (%d steps per epoch)",
                        defaults.everySteps(),
                        defaults.histogramsEverySteps(),
                        steps),
                Stats.of(on).format("samples/s", 0),
                Stats.of(off).format("samples/s", 0) + " figures off",
                String.format(Locale.ROOT, "%.3f× (%.3f–%.3f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                "≤ 1.02×");
    }

    private static RunConfig config(Path out, String model, int samples, String layers) {
        String json = """
                {"name": "bench-layers", "outputDir": "%s", "seed": 1, "devices": "cpu", "model": %s,
                 "data": {"train": {"type": "synthetic", "samples": %d, "imageShape": [28, 28, 1], "numClasses": 10, "noise": 0.5}},
                 "stages": [{"epochs": %d, "batchSize": 64, "gradientClipping": 1.0, "validationInterval": 0,
                             "optimizer": {"type": "adamw", "learningRate": 0.002, "weightDecay": 0.01}}],
                 "logging": {"layers": %s},
                 "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """.formatted(out.toString().replace("\\", "/"), model, samples, EngineBench.EPOCHS, layers);
        return ConfigParser.parse(json, out).orThrow();
    }
}
