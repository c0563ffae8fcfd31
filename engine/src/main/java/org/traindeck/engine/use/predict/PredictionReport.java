package org.traindeck.engine.use.predict;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.Task;

/**
 * What a prediction did: the model's task, how many inputs it predicted on, the files it wrote (all or none), a
 * few lines for the user (a classifier's first predictions), a text model's continuation (else null), and warnings
 * (inputs far outside the range the model was trained on, with the fix).
 */
public record PredictionReport(
        Task task, int count, List<Path> written, List<String> lines, String continuation, List<String> warnings) {

    public PredictionReport {
        written = List.copyOf(written);
        lines = List.copyOf(lines);
        warnings = List.copyOf(warnings);
    }

    /** A report without warnings. */
    public PredictionReport(Task task, int count, List<Path> written, List<String> lines, String continuation) {
        this(task, count, written, lines, continuation, List.of());
    }
}
