package org.traindeck.engine.train.samples;

import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.events.SamplesEvent;

/** A text model's samples: each example's start as a prompt, and the continuation the model generates from it. */
@FunctionalInterface
public interface TextSamples {

    List<SamplesEvent.Sample> continuations(ComputationGraph net, SampleSet set, int interval);
}
