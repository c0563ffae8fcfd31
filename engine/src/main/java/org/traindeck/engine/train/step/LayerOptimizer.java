package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.regularization.Regularization;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * One layer configuration that holds an optimizer: a DL4J {@link BaseLayer} or a SameDiff layer (layer norm,
 * attention, positions, patches), which keep their updater, regularization and clipping in fields of their own
 * (the two share no type that has them).
 */
record LayerOptimizer(org.deeplearning4j.nn.conf.layers.Layer conf) {

    /**
     * The configurations of a layer that hold updaters, wrappers opened: a Bidirectional's two directions, the layer
     * inside LastTimeStep or TimeDistributed. The wrappers are neither kind, so their layers would keep the
     * placeholder optimizer.
     */
    static List<LayerOptimizer> of(Layer layer) {
        List<LayerOptimizer> out = new ArrayList<>();
        collect(layer.conf().getLayer(), out);
        return out;
    }

    private static void collect(org.deeplearning4j.nn.conf.layers.Layer conf, List<LayerOptimizer> out) {
        if (conf instanceof BaseLayer || conf instanceof AbstractSameDiffLayer) {
            out.add(new LayerOptimizer(conf));
        } else if (conf instanceof BaseWrapperLayer wrapper) {
            collect(wrapper.getUnderlying(), out);
        } else if (conf instanceof Bidirectional both) {
            collect(both.getFwd(), out);
            collect(both.getBwd(), out);
        }
    }

    /** The stage's updater for every parameter, its weight decay on the weights, none on the biases. */
    void set(IUpdater updater, List<Regularization> weights) {
        if (conf instanceof BaseLayer base) {
            base.setIUpdater(updater);
            base.setBiasUpdater(null);
            base.setRegularization(weights);
            base.setRegularizationBias(new ArrayList<>());
        } else if (conf instanceof AbstractSameDiffLayer sameDiff) {
            sameDiff.setUpdater(updater);
            sameDiff.setBiasUpdater(null);
            sameDiff.setRegularization(weights);
            sameDiff.setRegularizationBias(new ArrayList<>());
        }
    }

    /** A new learning rate (schedule) for the updater it has, everything else kept. */
    void setLearningRate(ISchedule schedule) {
        IUpdater current =
                conf instanceof BaseLayer base ? base.getIUpdater() : ((AbstractSameDiffLayer) conf).getUpdater();
        if (current == null || !current.hasLearningRate()) {
            return;
        }
        // a copy: DL4J hands its global placeholder to several SameDiff layers as one instance
        IUpdater updater = current.clone();
        updater.setLrAndSchedule(Double.NaN, schedule);
        if (conf instanceof BaseLayer base) {
            base.setIUpdater(updater);
        } else {
            ((AbstractSameDiffLayer) conf).setUpdater(updater);
        }
    }

    /** DL4J's per-layer L2 clipping at {@code maxNorm} (0: none); whether that changed anything. */
    boolean clipPerLayer(double maxNorm) {
        GradientNormalization wanted = maxNorm > 0 ? GradientNormalization.ClipL2PerLayer : GradientNormalization.None;
        if (conf instanceof BaseLayer base) {
            if (base.getGradientNormalization() == wanted && base.getGradientNormalizationThreshold() == maxNorm) {
                return false;
            }
            base.setGradientNormalization(wanted);
            base.setGradientNormalizationThreshold(maxNorm);
        } else {
            AbstractSameDiffLayer sameDiff = (AbstractSameDiffLayer) conf;
            GradientNormalization now = sameDiff.getGradientNormalization() == null
                    ? GradientNormalization.None
                    : sameDiff.getGradientNormalization();
            if (now == wanted
                    && (sameDiff.getGradientNormalizationThreshold() == maxNorm
                            || wanted == GradientNormalization.None
                                    && Double.isNaN(sameDiff.getGradientNormalizationThreshold()))) {
                return false;
            }
            sameDiff.setGradientNormalization(wanted);
            sameDiff.setGradientNormalizationThreshold(maxNorm);
        }
        return true;
    }
}
