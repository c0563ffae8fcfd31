package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
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
import org.traindeck.engine.model.Frozen;
import org.traindeck.engine.schedule.ScaledSchedule;

/** Installs a stage's optimizer in a network: DL4J updater, learning-rate schedule and weight decay. */
public final class Optimizers {

    private Optimizers() {}

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
        r.add(
                "adamw".equals(c.type())
                        ? new WeightDecay(c.weightDecay(), true)
                        : new L2Regularization(c.weightDecay()));
        return r;
    }

    /**
     * DL4J's own per-layer L2 clipping, for ParallelWrapper tiers (their workers fit with DL4J's fit, not TrainDeck's
     * step, which clips the global norm). {@code maxNorm} 0 turns it off. The updater is rebuilt, keeping its state.
     */
    public static void configureClipping(ComputationGraph net, double maxNorm) {
        boolean changed = false;
        for (Layer layer : net.getLayers()) {
            for (LayerOptimizer conf : LayerOptimizer.of(layer)) {
                changed |= conf.clipPerLayer(maxNorm);
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
     * Gives every layer the stage's optimizer, SameDiff layers (layer norm, attention, positions, patches) included. With
     * {@code keepState} (same optimizer as the previous stage, only the learning rate differs) the moments carry over,
     * moved wherever the new learning rates regroup DL4J's updater blocks; otherwise the optimizer starts fresh.
     *
     * @param lrScales nodes whose learning rate is the stage's times their scale (the others: the stage's); a scale of
     *                 {@link LrScales#FROZEN}: no update, no optimizer state, no weight decay
     */
    public static void install(
            ComputationGraph net,
            OptimizerConfig config,
            ISchedule lr,
            boolean keepState,
            Map<String, Double> lrScales) {
        if (keepState) {
            UpdaterStateLayout before = UpdaterStateLayout.of(net);
            INDArray state = net.getUpdater().getStateViewArray();
            float[] saved = state == null ? null : state.dup().data().asFloat();
            for (Layer layer : net.getLayers()) {
                Double scale = lrScales.get(layer.conf().getLayer().getLayerName());
                if (scale != null && scale == LrScales.FROZEN) {
                    continue; // it keeps its frozen updater
                }
                ISchedule schedule = scale == null ? lr : new ScaledSchedule(lr, scale);
                for (LayerOptimizer conf : LayerOptimizer.of(layer)) {
                    conf.setLearningRate(schedule);
                }
            }
            net.setUpdater(null);
            INDArray fresh = net.getUpdater().getStateViewArray();
            if (saved != null && fresh != null) {
                float[] moved = before.moveTo(saved, UpdaterStateLayout.of(net));
                fresh.assign(Nd4j.createFromArray(moved).castTo(fresh.dataType()));
            }
            return;
        }
        IUpdater stage = updater(config, lr);
        for (Layer layer : net.getLayers()) {
            Double scale = lrScales.get(layer.conf().getLayer().getLayerName());
            boolean frozen = scale != null && scale == LrScales.FROZEN;
            IUpdater updater =
                    frozen ? Frozen.updater() : scale == null ? stage : updater(config, new ScaledSchedule(lr, scale));
            for (LayerOptimizer conf : LayerOptimizer.of(layer)) {
                conf.set(updater.clone(), frozen ? new ArrayList<>() : regularization(config));
            }
        }
        net.setUpdater(null);
        net.getUpdater();
    }

    public static void install(ComputationGraph net, OptimizerConfig config, ISchedule lr, boolean keepState) {
        install(net, config, lr, keepState, Map.of());
    }

    /** The DL4J layer configurations among {@link LayerOptimizer}'s (wrappers opened), for tests. */
    static List<BaseLayer> trainable(ComputationGraph net) {
        List<BaseLayer> out = new ArrayList<>();
        for (Layer layer : net.getLayers()) {
            for (LayerOptimizer conf : LayerOptimizer.of(layer)) {
                if (conf.conf() instanceof BaseLayer base) {
                    out.add(base);
                }
            }
        }
        return out;
    }
}
