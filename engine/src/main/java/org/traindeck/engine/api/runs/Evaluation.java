package org.traindeck.engine.api.runs;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.Task;

/**
 * A trained model's figures on a data set, as {@code traindeck evaluate} prints them and {@code evaluation.json}
 * holds them.
 *
 * @param data            which data was used, worded for the user ("data.test", "the validation split (the config
 *                        has no data.test)", "--data …")
 * @param samples         samples evaluated (images, rows, windows of text)
 * @param figures         the figures under the validation metrics' names (val/loss, val/accuracy, …), in print order
 * @param confusionMatrix rows the true class, columns the predicted one (pixels for masks); null for other tasks
 * @param perClass        each class's figures (classification and segmentation), else empty
 * @param file            where the evaluation was written
 */
public record Evaluation(
        Path checkpointFile,
        Path runDir,
        String runName,
        boolean ema,
        Task task,
        String data,
        long samples,
        Map<String, Double> figures,
        List<String> classNames,
        List<List<Long>> confusionMatrix,
        List<ClassFigures> perClass,
        double seconds,
        Path file) {

    public Evaluation {
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        classNames = classNames == null ? null : List.copyOf(classNames);
        confusionMatrix = confusionMatrix == null
                ? null
                : confusionMatrix.stream().map(List::copyOf).toList();
        perClass = List.copyOf(perClass);
    }

    /** The same evaluation, said to be written to {@code written}. */
    public Evaluation writtenTo(Path written) {
        return new Evaluation(
                checkpointFile,
                runDir,
                runName,
                ema,
                task,
                data,
                samples,
                figures,
                classNames,
                confusionMatrix,
                perClass,
                seconds,
                written);
    }
}
