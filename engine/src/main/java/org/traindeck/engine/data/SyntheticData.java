package org.traindeck.engine.data;

import java.util.SplittableRandom;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;

/**
 * Generated data that a model can really learn, for demos and tests. The "shape" of the problem (class centres)
 * depends on the run's seed only, so a training and a validation source with the same settings pose the same
 * problem; {@code sampleSeed} draws different samples from it.
 */
public final class SyntheticData {

    private SyntheticData() {}

    public static Dataset generate(SyntheticSource config, long problemSeed, long sampleSeed) {
        int n = config.limit() > 0 ? Math.min(config.limit(), config.samples()) : config.samples();
        SplittableRandom random = new SplittableRandom(sampleSeed);
        if (config.imageShape() != null) {
            return images(config, n, random);
        }
        int d = config.features();
        float[] features = new float[n * d];
        if (config.task() == Task.REGRESSION) {
            float[] targets = new float[n];
            for (int i = 0; i < n; i++) {
                double y = 0;
                for (int j = 0; j < d; j++) {
                    double x = random.nextDouble(-2, 2);
                    features[i * d + j] = (float) x;
                    // a smooth non-linear target that every input contributes to
                    y += (j % 2 == 0 ? Math.sin(x) : 0.25 * x * x) / Math.sqrt(d);
                }
                targets[i] = (float) (y + 0.1 * config.noise() * gaussian(random));
            }
            return ArrayDatasets.regression(features, d, targets);
        }
        int k = config.numClasses();
        SplittableRandom problem = new SplittableRandom(problemSeed);
        double[][] centres = new double[k][d];
        for (int c = 0; c < k; c++) {
            for (int j = 0; j < d; j++) {
                centres[c][j] = 2.0 * gaussian(problem);
            }
        }
        int[] classes = new int[n];
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(k);
            classes[i] = c;
            for (int j = 0; j < d; j++) {
                features[i * d + j] = (float) (centres[c][j] + config.noise() * 2.0 * gaussian(random));
            }
        }
        return ArrayDatasets.classification(features, d, classes, k, null, null);
    }

    /** Class c is a bright bar at the c-th of k evenly spaced rows (or columns, when there are more classes than rows). */
    private static Dataset images(SyntheticSource config, int n, SplittableRandom random) {
        int h = config.imageShape().get(0);
        int w = config.imageShape().get(1);
        int ch = config.imageShape().get(2);
        SampleShape.Image shape = new SampleShape.Image(ch, h, w);
        int k = config.numClasses();
        boolean rows = k <= h;
        int lines = rows ? h : w;
        float[] features = new float[n * shape.pixels()];
        int[] classes = new int[n];
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(k);
            classes[i] = c;
            int line = (int) ((c + 0.5) * lines / k);
            int base = i * shape.pixels();
            for (int z = 0; z < ch; z++) {
                for (int y = 0; y < h; y++) {
                    for (int x = 0; x < w; x++) {
                        boolean on = rows ? y == line : x == line;
                        double v = (on ? 0.8 : 0.1) + 0.15 * config.noise() * gaussian(random);
                        features[base + z * h * w + y * w + x] = (float) Math.min(1, Math.max(0, v));
                    }
                }
            }
        }
        return ArrayDatasets.classification(features, shape.pixels(), classes, k, shape, null);
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller; SplittableRandom has no nextGaussian on Java 17
        double u = 1.0 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
