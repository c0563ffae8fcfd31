package org.traindeck.engine.data;

import org.deeplearning4j.nn.conf.inputs.InputType;

/**
 * One of a dataset's inputs: the name graph nodes read it by, its samples, their shape, for token ids the
 * vocabulary an embedding reading them needs (0 for features), and the standard deviation of Gaussian noise training
 * batches add to it (a cascade's conditioning augmentation; 0 for none).
 */
public record InputArray(String name, SampleArray samples, SampleShape shape, int vocabulary, double noise) {

    /** An input the batches take as it is. */
    public InputArray(String name, SampleArray samples, SampleShape shape, int vocabulary) {
        this(name, samples, shape, vocabulary, 0);
    }

    public InputArray {
        if (samples.length() != shape.values()) {
            throw new IllegalArgumentException(
                    "input " + name + ": samples of " + samples.length() + " values do not have the shape " + shape);
        }
    }

    /** Whether the input is token ids (read through an embedding). */
    public boolean tokens() {
        return shape instanceof SampleShape.Tokens;
    }

    /** One sample as DL4J takes it. */
    public InputType inputType() {
        return shape.inputType(vocabulary);
    }

    InputArray select(int[] indices) {
        return new InputArray(name, samples.select(indices), shape, vocabulary, noise);
    }

    InputArray withSamples(SampleArray replaced, SampleShape newShape) {
        return new InputArray(name, replaced, newShape, vocabulary, noise);
    }
}
