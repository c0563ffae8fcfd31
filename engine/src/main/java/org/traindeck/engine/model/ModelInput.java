package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.Task;

/**
 * What the data looks like to a network: one sample's input as DL4J's input type, the task, and how many outputs
 * the head has (classes, target values, the input's channels, the vocabulary).
 */
public record ModelInput(InputType input, Task task, int outputs) {
}
