package org.traindeck.engine.train.health;

/**
 * One node's figures at a logged step; NaN where a figure was not taken (a node without parameters has only
 * activation figures).
 *
 * @param paramNorm   L2 norm of the node's parameters after the step
 * @param gradNorm    L2 norm of the node's share of the all-reduced mean gradient, before clipping
 * @param updateRatio ‖Δθ‖ / ‖θ‖ over the optimizer step (θ as it was before the step)
 * @param reluLike    the node's output goes through a ReLU-like activation (zero outputs are inactive units)
 */
public record LayerFigures(
        String node,
        double paramNorm,
        double gradNorm,
        double updateRatio,
        double actMean,
        double actStd,
        double actZeroFraction,
        boolean reluLike) {}
