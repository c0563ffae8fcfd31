package org.traindeck.engine.train.step;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.RmsProp;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.learning.regularization.L2Regularization;
import org.nd4j.linalg.learning.regularization.Regularization;
import org.nd4j.linalg.learning.regularization.WeightDecay;
import org.nd4j.linalg.schedule.ISchedule;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.schedule.ScaledSchedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Installs a stage's optimizer in a network: DL4J updater, learning-rate schedule and weight decay. */
public final class Optimizers {

    private Optimizers() {
    }

    static IUpdater updater(OptimizerConfig c, ISchedule lr) {
        return switch (c.type()) {
            case "adam", "adamw" -> {
                Adam adam = new Adam(lr);
                adam.setBeta1(c.beta1());
                adam.setBeta2(c.beta2());
                adam.setEpsilon(c.epsilon());
                yield adam;
            }
            case "sgd" -> new Sgd(lr);
            case "nesterovs" -> new Nesterovs(lr, c.momentum());
            case "rmsprop" -> {
                RmsProp rms = new RmsProp(lr);
                rms.setEpsilon(c.epsilon());
                yield rms;
            }
            default -> throw new IllegalArgumentException("unknown optimizer " + c.type());
        };
    }

    /** AdamW's decay is decoupled from the gradient; for the others weight decay is classic L2, as in PyTorch. */
    static List<Regularization> regularization(OptimizerConfig c) {
        if (c.weightDecay() <= 0) {
            return new ArrayList<>();
        }
        List<Regularization> r = new ArrayList<>();
        r.add("adamw".equals(c.type()) ? new WeightDecay(c.weightDecay(), true) : new L2Regularization(c.weightDecay()));
        return r;
    }

    /**
     * DL4J's own per-layer L2 clipping, for ParallelWrapper tiers (their workers fit with DL4J's fit, not TrainDeck's
     * step, which clips the global norm). {@code maxNorm} 0 turns it off. The updater is rebuilt, keeping its state.
     */
    public static void configureClipping(ComputationGraph net, double maxNorm) {
        boolean changed = false;
        for (BaseLayer base : trainable(net)) {
            GradientNormalization wanted = maxNorm > 0 ? GradientNormalization.ClipL2PerLayer : GradientNormalization.None;
            if (base.getGradientNormalization() != wanted || base.getGradientNormalizationThreshold() != maxNorm) {
                base.setGradientNormalization(wanted);
                base.setGradientNormalizationThreshold(maxNorm);
                changed = true;
            }
        }
        if (changed) {
            INDArray state = net.getUpdater().getStateViewArray();
            INDArray saved = state == null ? null : state.dup();
            net.setUpdater(null);
            if (saved != null) {
                net.getUpdater().getStateViewArray().assign(saved);
            }
        }
    }

    /**
     * Gives every layer the stage's optimizer. With {@code keepState} (same optimizer as the previous stage, only
     * the learning rate differs) the moments carry over; otherwise the optimizer starts fresh.
     *
     * @param lrScales nodes whose learning rate is the stage's times their scale (the others: the stage's)
     */
    public static void install(ComputationGraph net, OptimizerConfig config, ISchedule lr, boolean keepState, Map<String, Double> lrScales) {
        if (keepState) {
            net.setLearningRate(lr);
            lrScales.forEach((node, scale) -> {
                if (net.getLayer(node) != null) {
                    net.setLearningRate(node, new ScaledSchedule(lr, scale));
                }
            });
            return;
        }
        IUpdater stage = updater(config, lr);
        for (Layer layer : net.getLayers()) {
            Double scale = lrScales.get(layer.conf().getLayer().getLayerName());
            IUpdater updater = scale == null ? stage : updater(config, new ScaledSchedule(lr, scale));
            List<BaseLayer> confs = new ArrayList<>();
            collect(layer.conf().getLayer(), confs);
            for (BaseLayer base : confs) {
                base.setIUpdater(updater.clone());
                base.setBiasUpdater(null);
                base.setRegularization(regularization(config));
                base.setRegularizationBias(new ArrayList<>());
            }
        }
        net.setUpdater(null);
        net.getUpdater();
    }

    public static void install(ComputationGraph net, OptimizerConfig config, ISchedule lr, boolean keepState) {
        install(net, config, lr, keepState, Map.of());
    }

    /**
     * The configurations that hold updaters, wrappers opened: a Bidirectional's two directions, the layer inside
     * LastTimeStep or TimeDistributed. The wrappers are no BaseLayer, so their layers would keep the placeholder optimizer.
     */
    static List<BaseLayer> trainable(ComputationGraph net) {
        List<BaseLayer> out = new ArrayList<>();
        for (Layer layer : net.getLayers()) {
            collect(layer.conf().getLayer(), out);
        }
        return out;
    }

    private static void collect(org.deeplearning4j.nn.conf.layers.Layer conf, List<BaseLayer> out) {
        if (conf instanceof BaseLayer base) {
            out.add(base);
        } else if (conf instanceof BaseWrapperLayer wrapper) {
            collect(wrapper.getUnderlying(), out);
        } else if (conf instanceof Bidirectional both) {
            collect(both.getFwd(), out);
            collect(both.getBwd(), out);
        }
    }
}
