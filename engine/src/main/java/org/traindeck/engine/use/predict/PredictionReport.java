package org.traindeck.engine.use.predict;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.Task;

/**
 * What a prediction did: the model's task, how many inputs it predicted on, the files it wrote (all or none), a
 * few lines for the user (a classifier's first predictions), and a text model's continuation (else null).
 */
public record PredictionReport(Task task, int count, List<Path> written, List<String> lines, String continuation) {

    public PredictionReport {
        written = List.copyOf(written);
        lines = List.copyOf(lines);
    }
}
