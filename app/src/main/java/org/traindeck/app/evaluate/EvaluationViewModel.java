package org.traindeck.app.evaluate;

import java.nio.file.Path;
import java.util.Locale;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.Evaluation;

/**
 * The Evaluate action's state: which run is being evaluated, its figures once the task executor has worked them out
 * (never on the FX thread: a test set can take minutes), or why it could not be.
 */
public final class EvaluationViewModel {

    private final Engine engine;
    private final TaskExecutor tasks;
    private final ReadOnlyObjectWrapper<Evaluation> evaluation = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(0);
    private long request;

    public EvaluationViewModel(Engine engine, TaskExecutor tasks) {
        this.engine = engine;
        this.tasks = tasks;
    }

    /** Evaluates a run folder (its best checkpoint, else its newest) on its test data, else its validation data. */
    public void evaluate(Path runDir) {
        long mine = ++request;
        busy.set(true);
        evaluation.set(null);
        message.set("Evaluating " + runDir.getFileName() + "…");
        progress.set(0);
        // whole percents only: a large test set has thousands of batches, and the FX thread needs to hear of few
        int[] shown = {0};
        tasks.execute(
                () -> engine.trainedModels().evaluate(runDir, null, false, done -> {
                    int percent = (int) (done * 100);
                    if (percent > shown[0]) {
                        shown[0] = percent;
                        Platform.runLater(() -> {
                            if (mine == request) {
                                progress.set(percent / 100.0);
                            }
                        });
                    }
                }),
                e -> {
                    if (mine != request) {
                        return; // another run was asked for meanwhile
                    }
                    busy.set(false);
                    evaluation.set(e);
                    message.set(String.format(
                            Locale.ROOT,
                            "%s on %s: %,d samples in %.1f s; written to %s",
                            e.checkpointFile().getFileName(),
                            e.data(),
                            e.samples(),
                            e.seconds(),
                            e.file()));
                },
                ex -> {
                    if (mine != request) {
                        return;
                    }
                    busy.set(false);
                    message.set("Could not evaluate " + runDir.getFileName() + ": " + describe(ex));
                });
    }

    /** The engine's message (a data problem's message has one located problem per line). */
    private static String describe(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().strip().replace("\n", "; ");
    }

    /** The last evaluation's figures, or null while none is shown. */
    public ReadOnlyObjectProperty<Evaluation> evaluationProperty() {
        return evaluation.getReadOnlyProperty();
    }

    /** What is happening, what was written, or what went wrong. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The fraction of the data evaluated so far. */
    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }
}
