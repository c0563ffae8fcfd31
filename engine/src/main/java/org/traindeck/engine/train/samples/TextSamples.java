package org.traindeck.engine.train.samples;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.events.SamplesEvent;

import java.util.List;

/** A text model's samples: each example's start as a prompt, and the continuation the model generates from it. */
@FunctionalInterface
public interface TextSamples {

    List<SamplesEvent.Sample> continuations(ComputationGraph net, SampleSet set, int interval);
}
