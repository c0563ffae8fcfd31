package org.traindeck.engine.train;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.weights.InitReport;
import org.traindeck.engine.weights.StartingWeights;
import org.traindeck.engine.weights.WeightsException;

/**
 * Loads a new run's starting weights (the model's {@code init}) into its network, every tensor a line of train.log, and
 * announces the summary as a {@link LifecycleEvent.Kind#WEIGHTS_LOADED} event; nodes left at their initialisation are also a
 * warning. A resumed run takes its weights from its checkpoint instead.
 */
final class StartingWeightsStep {

    private StartingWeightsStep() {}

    /**
     * Loads the weights and writes every tensor to train.log.
     *
     * @throws IllegalStateException saying why the weights cannot be loaded (the run fails with that reason)
     */
    static InitReport load(RunConfig config, int stage, ComputationGraph net, RunEvents events) {
        InitReport report;
        try {
            report = StartingWeights.load(config.modelAt(stage).init(), config.baseDir(), net);
        } catch (WeightsException e) {
            throw new IllegalStateException(config.modelPathAt(stage) + ".init: " + e.getMessage(), e);
        }
        report.lines().forEach(events::logLine);
        return report;
    }

    /** The report as the run's events, once the run has started. */
    static void announce(InitReport report, RunEvents events) {
        events.lifecycle(LifecycleEvent.Kind.WEIGHTS_LOADED, report.summary());
        if (!report.keptNodes().isEmpty()) {
            events.lifecycle(
                    LifecycleEvent.Kind.WARNING,
                    "model.init: " + String.join(", ", report.keptNodes())
                            + " kept their initialisation (not in the weights file, or of another shape)");
        }
    }
}
