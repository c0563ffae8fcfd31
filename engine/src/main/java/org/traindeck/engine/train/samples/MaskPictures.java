package org.traindeck.engine.train.samples;

import org.traindeck.engine.events.SamplesEvent;

/** A segmentation example as pictures: its input with the true and with the predicted mask laid over it. */
@FunctionalInterface
public interface MaskPictures {

    /**
     * @param x the examples' inputs, one after the other
     * @param y the network's output for them: per example (classes, positions) probabilities
     */
    SamplesEvent.Sample segmentation(SampleSet set, int i, float[] x, float[] y);
}
