package org.traindeck.engine.model;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * How a frozen node ({@code "trainable": false}) is marked in its DL4J configuration, so that it survives DL4J's JSON
 * (replicas, checkpoints): its updater is SGD at a learning rate of exactly 0, with no schedule. That updater keeps no
 * state and its update is 0 × the gradient, in DL4J's updater, TrainDeck's fused step and ParallelWrapper's workers
 * alike; the training step also zeroes the node's gradient, so it stays out of the norm and of clipping.
 */
public final class Frozen {

    private Frozen() {}

    /** A new frozen updater. */
    public static IUpdater updater() {
        return new Sgd(0.0);
    }

    /** Whether {@code updater} is the frozen one. */
    public static boolean is(IUpdater updater) {
        return updater instanceof Sgd s && s.getLearningRate() == 0.0 && s.getLearningRateSchedule() == null;
    }

    /** Whether every configuration in the layer that holds an updater holds the frozen one (false for none). */
    public static boolean is(Layer layer) {
        return is(layer.conf().getLayer());
    }

    private static boolean is(org.deeplearning4j.nn.conf.layers.Layer conf) {
        if (conf instanceof BaseLayer base) {
            return is(base.getIUpdater());
        }
        if (conf instanceof AbstractSameDiffLayer sameDiff) {
            return is(sameDiff.getUpdater());
        }
        if (conf instanceof BaseWrapperLayer wrapper) {
            return is(wrapper.getUnderlying());
        }
        if (conf instanceof Bidirectional both) {
            return is(both.getFwd()) && is(both.getBwd());
        }
        return false;
    }
}
