package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.Task;

/**
 * What the data looks like to a network: one sample's input as DL4J's input type, the task, how many outputs the head
 * has (classes, target values, the input's channels, the vocabulary), and whether the input is token ids (then
 * {@code input} is {@code InputType.recurrent(vocabulary, steps)} and the arrays hold ids, [batch, 1, steps]).
 */
public record ModelInput(InputType input, Task task, int outputs, boolean tokens) {

    /** Features, not token ids, except for next-token data, which is always ids. */
    public ModelInput(InputType input, Task task, int outputs) {
        this(input, task, outputs, task == Task.SEQUENCE && input.getType() == InputType.Type.RNN);
    }

    /** Token ids: a sequence of {@code steps} ids below {@code vocabulary}. */
    public static ModelInput tokens(int vocabulary, int steps, Task task, int outputs) {
        return new ModelInput(InputType.recurrent(vocabulary, steps), task, outputs, true);
    }
}
