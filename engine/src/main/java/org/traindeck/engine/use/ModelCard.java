package org.traindeck.engine.use;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.Task;

/**
 * What a user of a trained model needs to know about it, as plain values (for the command line and the app).
 *
 * @param checkpointFile the checkpoint the weights come from
 * @param runDir         the run folder it belongs to, or null for a checkpoint outside one
 * @param stageName      the stage that wrote it
 * @param globalStep     the optimizer steps it was trained for
 * @param reason         why it was written ("best", "stage-end", ...)
 * @param ema            whether the weights are the stage's weight average (ema.bin) rather than its last weights
 * @param hasEma         whether the checkpoint holds a weight average at all
 * @param task           what the model outputs
 * @param inputShapes    the shape of each network input, -1 for the batch: [-1, features], [-1, channels, height,
 *                       width], [-1, channels, depth, height, width], or [-1, 1, length] of token ids
 * @param outputs        the head's outputs: classes, target values, channels or the vocabulary's size
 * @param classNames     the class names in id order where the data names them (image folders, text labels), else null
 * @param vocabulary     a text model's tokens in id order, else null
 */
public record ModelCard(
        Path checkpointFile,
        Path runDir,
        String runName,
        String stageName,
        long globalStep,
        String reason,
        boolean ema,
        boolean hasEma,
        Task task,
        List<List<Long>> inputShapes,
        int outputs,
        List<String> classNames,
        List<String> vocabulary,
        long parameterCount) {

    public ModelCard {
        inputShapes = inputShapes.stream().map(List::copyOf).toList();
        classNames = classNames == null ? null : List.copyOf(classNames);
        vocabulary = vocabulary == null ? null : List.copyOf(vocabulary);
    }

    /** Class {@code id}'s name, or the id itself where the data gives no names. */
    public String className(int id) {
        return classNames != null && id >= 0 && id < classNames.size() ? classNames.get(id) : String.valueOf(id);
    }
}
