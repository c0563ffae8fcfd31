package org.traindeck.engine.config;

/**
 * Per-layer health: how often each layer's figures and histograms are taken, and when a layer earns a warning.
 *
 * @param everySteps           per-layer figures every N optimizer steps; 0 = off (nothing is computed)
 * @param histogramsEverySteps histograms of each layer's weights and gradients every N steps; 0 = off
 * @param minUpdateRatio       an update-to-parameter ratio below this, for {@code patience} logged steps in a row, warns
 * @param maxUpdateRatio       one above this, for {@code patience} logged steps in a row, warns
 * @param deadFraction         a ReLU-like layer with at least this fraction of exactly-zero outputs warns (dead units)
 * @param depthGradientRatio   the first layer's gradient norm over the last's beyond this (or below its inverse) warns
 * @param patience             logged steps in a row a condition must hold before its warning
 */
public record LayerHealthConfig(
        int everySteps,
        int histogramsEverySteps,
        double minUpdateRatio,
        double maxUpdateRatio,
        double deadFraction,
        double depthGradientRatio,
        int patience) {

    /** The schema's defaults. */
    public static final LayerHealthConfig DEFAULTS = new LayerHealthConfig(50, 500, 1e-5, 1e-1, 0.95, 1000, 3);

    public static final LayerHealthConfig OFF = new LayerHealthConfig(0, 0, 1e-5, 1e-1, 0.95, 1000, 3);

    public boolean figuresOn() {
        return everySteps > 0;
    }

    public boolean histogramsOn() {
        return histogramsEverySteps > 0;
    }

    /** Whether the step after which the global step is {@code step} takes the figures. */
    public boolean figuresAt(long step) {
        return everySteps > 0 && step % everySteps == 0;
    }

    public boolean histogramsAt(long step) {
        return histogramsEverySteps > 0 && step % histogramsEverySteps == 0;
    }
}
