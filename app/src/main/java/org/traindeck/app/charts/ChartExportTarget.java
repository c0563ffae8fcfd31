package org.traindeck.app.charts;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;

/**
 * Where a chart's export goes. The window sets who answers (a file chooser), where the writing happens and who hears
 * of a failure; until then the export menu writes nothing.
 */
final class ChartExportTarget {

    private Function<String, Path> chooser = suggested -> null;
    private TaskExecutor tasks = new CurrentThreadTaskExecutor();
    private Consumer<String> onFailure = m -> {};

    void set(Function<String, Path> chooser, TaskExecutor tasks, Consumer<String> onFailure) {
        this.chooser = chooser;
        this.tasks = tasks;
        this.onFailure = onFailure;
    }

    /**
     * Asks where to write a file named like {@code suggested}; the file is made here (a PNG is drawn on the FX thread)
     * and written by the tasks. A failure names {@code chartTitle}.
     */
    void export(String suggested, String chartTitle, Supplier<ChartFile> file) {
        Path target = chooser.apply(suggested);
        if (target == null) {
            return;
        }
        ChartFile made = file.get();
        tasks.execute(
                () -> made.writeTo(target),
                () -> {},
                e -> onFailure.accept("Could not export " + chartTitle + " to " + target + ": " + e.getMessage()));
    }
}
