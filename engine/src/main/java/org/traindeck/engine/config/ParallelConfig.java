package org.traindeck.engine.config;

import java.util.List;

/**
 * Data-parallel settings, used when a run has several devices. {@code mode} is the first tier tried
 * ("shared_gradients" or "averaging"); {@code lrScaling} scales each stage's learning rate with the number of
 * devices ("none", "linear", "sqrt"); {@code baselineSamplesPerSecond} (0 = unknown) is one device's throughput,
 * for the scaling-efficiency metric.
 */
public record ParallelConfig(String mode, int averagingFrequency, int prefetch, String lrScaling, boolean fallback,
                             double baselineSamplesPerSecond) {

    public static final List<String> MODES = List.of("shared_gradients", "averaging");
    public static final ParallelConfig DEFAULT = new ParallelConfig("averaging", 1, 2, "none", true, 0);

    /** The factor the learning rate is multiplied by on {@code devices} devices. */
    public double lrFactor(int devices) {
        return switch (lrScaling) {
            case "linear" -> devices;
            case "sqrt" -> Math.sqrt(devices);
            default -> 1;
        };
    }
}
