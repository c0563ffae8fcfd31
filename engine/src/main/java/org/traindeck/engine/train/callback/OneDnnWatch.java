package org.traindeck.engine.train.callback;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Tells the user, once per layer, when oneDNN failed in a layer and DL4J went back to its own (slower, equivalent)
 * path for it: DL4J only logs that at debug level of its own logger.
 */
public final class OneDnnWatch implements TrainingCallback {

    private final RunEvents events;
    private final Supplier<ComputationGraph> net;
    private final Set<String> reported = new HashSet<>();

    public OneDnnWatch(RunEvents events, Supplier<ComputationGraph> net) {
        this.events = events;
        this.net = net;
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        List<String> fellBack = OneDnnHelpers.layersThatFellBack(net.get()).stream()
                .filter(reported::add)
                .toList();
        if (!fellBack.isEmpty()) {
            events.lifecycle(
                    LifecycleEvent.Kind.WARNING,
                    "oneDNN failed in layer(s) " + String.join(", ", fellBack)
                            + "; DL4J's own convolution path took over for them (same results, slower). The run log has DL4J's reason");
        }
    }
}
