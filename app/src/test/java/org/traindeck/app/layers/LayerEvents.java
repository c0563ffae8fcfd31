package org.traindeck.app.layers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LayerMetrics.Figure;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/**
 * The per-layer events a deep network's run publishes, as the engine's contract describes them (metric names
 * {@code layer/<node>/<figure>}, histograms in TensorBoard's shape), with the shapes real runs have: update ratios
 * near 1e-3 that fall as the learning rate decays, gradient norms that shrink along the depth, ReLU layers with a
 * third of their outputs zero, weight histograms as wide as He initialisation makes them. One layer learns far too
 * fast (a bad learning rate), one is dead.
 */
final class LayerEvents {

    static final String RUN = "deep";

    private final List<String> names = new ArrayList<>();
    private final Random random;
    private final int tooFast;
    private final int dead;

    /** {@code layers} nodes named like a U-Net's or a ViT's ("enc/block03/conv"), the {@code tooFast}-th and {@code dead}-th sick. */
    LayerEvents(int layers, long seed) {
        random = new Random(seed);
        for (int i = 0; i < layers; i++) {
            String part = i < layers / 2 ? "enc" : "dec";
            names.add(String.format(Locale.ROOT, "%s/block%02d/%s", part, i / 2, i % 2 == 0 ? "conv" : "norm"));
        }
        tooFast = layers * 2 / 3;
        dead = layers / 3;
    }

    List<String> names() {
        return names;
    }

    String tooFast() {
        return names.get(tooFast);
    }

    String dead() {
        return names.get(dead);
    }

    static MetricEvent metric(String node, Figure figure, long step, double value) {
        return new MetricEvent(
                RUN,
                "main",
                0,
                0,
                step,
                1_700_000_000_000L + step * 50,
                step * 0.05,
                LayerMetrics.name(node, figure),
                value,
                null);
    }

    static LifecycleEvent lifecycle(LifecycleEvent.Kind kind, long step, String message) {
        return new LifecycleEvent(RUN, "main", 0, 0, step, 1_700_000_000_000L + step * 50, step * 0.05, kind, message);
    }

    /** The update ratio of layer {@code i} at {@code step} of a run of {@code steps}. */
    double updateRatio(int i, long step, long steps) {
        double decay = 0.5 * (1 + Math.cos(Math.PI * Math.min(1, step / (double) steps)));
        double base = 1e-3 * Math.pow(10, 0.6 * Math.sin(i * 0.7)) * (0.05 + decay);
        if (i == tooFast) {
            base = 0.3;
        }
        if (i == dead) {
            base = 2e-7;
        }
        return base * Math.exp(0.3 * random.nextGaussian());
    }

    /** Every figure of every layer at {@code step}. */
    List<EngineEvent> figures(long step, long steps) {
        List<EngineEvent> events = new ArrayList<>(names.size() * 6);
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            double depth = i / (double) names.size();
            events.add(metric(n, Figure.PARAM_NORM, step, 8 + 4 * depth + step * 1e-4));
            events.add(
                    metric(n, Figure.GRAD_NORM, step, 0.5 * Math.pow(0.97, i) * Math.exp(0.2 * random.nextGaussian())));
            events.add(metric(n, Figure.UPDATE_RATIO, step, updateRatio(i, step, steps)));
            events.add(metric(n, Figure.ACT_MEAN, step, 0.4 + 0.05 * random.nextGaussian()));
            events.add(metric(n, Figure.ACT_STD, step, 0.9 + 0.05 * random.nextGaussian()));
            events.add(
                    metric(n, Figure.ACT_ZERO_FRACTION, step, i == dead ? 0.99 : 0.33 + 0.02 * random.nextGaussian()));
        }
        return events;
    }

    /** The weights and gradients histograms of every layer at {@code step}, in TensorBoard's default buckets. */
    List<EngineEvent> histograms(long step) {
        List<EngineEvent> events = new ArrayList<>(names.size() * 2);
        for (int i = 0; i < names.size(); i++) {
            double std = Math.sqrt(2.0 / (64 + 8 * i));
            events.add(histogram(names.get(i), HistogramEvent.WEIGHTS, step, sample(4096, std, 0)));
            events.add(
                    histogram(names.get(i), HistogramEvent.GRADIENTS, step, sample(4096, 1e-3 * Math.pow(0.97, i), 0)));
        }
        return events;
    }

    private double[] sample(int n, double std, double mean) {
        double[] v = new double[n];
        for (int k = 0; k < n; k++) {
            v[k] = mean + std * random.nextGaussian();
        }
        return v;
    }

    /** A histogram of {@code values} as TensorBoard's summary writer makes one. */
    static HistogramEvent histogram(String node, String quantity, long step, double[] values) {
        double[] limits = tensorBoardLimits();
        double[] counts = new double[limits.length];
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double squares = 0;
        for (double v : values) {
            int at = Arrays.binarySearch(limits, v);
            counts[at >= 0 ? at : -at - 1]++;
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
            squares += v * v;
        }
        return new HistogramEvent(
                RUN,
                "main",
                0,
                0,
                step,
                1_700_000_000_000L + step * 50,
                step * 0.05,
                node,
                quantity,
                min,
                max,
                values.length,
                sum,
                squares,
                limits,
                counts);
    }

    /** TensorBoard's default bucket limits: ±1e-12 growing by 10 % to 1e20, then the largest double. */
    static double[] tensorBoardLimits() {
        List<Double> positive = new ArrayList<>();
        for (double v = 1e-12; v < 1e20; v *= 1.1) {
            positive.add(v);
        }
        double[] limits = new double[2 * positive.size() + 2];
        int k = 0;
        for (int i = positive.size() - 1; i >= 0; i--) {
            limits[k++] = -positive.get(i);
        }
        limits[k++] = 0;
        for (double v : positive) {
            limits[k++] = v;
        }
        limits[k] = Double.MAX_VALUE;
        return limits;
    }
}
