package org.traindeck.engine.model;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.InputSignature;

/**
 * What the data looks like to a network: one sample's input as DL4J's input type, the task, how many outputs the head
 * has (classes, target values, the input's channels, the vocabulary), and whether the input is token ids (then
 * {@code input} is {@code InputType.recurrent(vocabulary, steps)} and the arrays hold ids, [batch, 1, steps]). For
 * data of several named inputs, {@code named} lists them in the order the network takes them ({@code input} is then
 * the first's type); it is empty for the single input, named "input". {@code perStep}: a regression predicts its values at
 * every step of the sequences, as a sequence task predicts a class.
 */
public record ModelInput(
        InputType input, Task task, int outputs, boolean tokens, List<InputSignature> named, boolean perStep) {

    public ModelInput {
        named = List.copyOf(named);
    }

    public ModelInput(InputType input, Task task, int outputs, boolean tokens) {
        this(input, task, outputs, tokens, List.of(), false);
    }

    /** Features, not token ids, except for next-token data, which is always ids. */
    public ModelInput(InputType input, Task task, int outputs) {
        this(input, task, outputs, task == Task.SEQUENCE && input.getType() == InputType.Type.RNN);
    }

    /** Token ids: a sequence of {@code steps} ids below {@code vocabulary}. */
    public static ModelInput tokens(int vocabulary, int steps, Task task, int outputs) {
        return new ModelInput(InputType.recurrent(vocabulary, steps), task, outputs, true);
    }

    /**
     * Several named inputs (a layer graph reads each by name).
     *
     * @param perStep whether a regression's {@code outputs} values are predicted at every step of the sequences
     */
    public static ModelInput named(List<InputSignature> inputs, Task task, int outputs, boolean perStep) {
        InputSignature first = inputs.get(0);
        return new ModelInput(first.inputType(), task, outputs, first.tokens(), inputs, perStep);
    }

    /** The graph's input names, in the order the network takes their arrays. */
    public List<String> names() {
        return named.isEmpty()
                ? List.of(Heads.INPUT)
                : named.stream().map(InputSignature::name).toList();
    }

    /** Every input's type, in the order the network takes them. */
    public InputType[] types() {
        return named.isEmpty()
                ? new InputType[] {input}
                : named.stream().map(InputSignature::inputType).toArray(InputType[]::new);
    }

    /** The steps of a per-step task's sequences: the first sequence input's length, or -1. */
    public long steps() {
        if (named.isEmpty()) {
            return input instanceof InputType.InputTypeRecurrent r ? r.getTimeSeriesLength() : -1;
        }
        for (InputSignature in : named) {
            if (in.inputType() instanceof InputType.InputTypeRecurrent r) {
                return r.getTimeSeriesLength();
            }
        }
        return -1;
    }
}
