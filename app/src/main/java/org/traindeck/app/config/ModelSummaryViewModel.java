package org.traindeck.app.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.ModelOverview;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.ConfigProblem;

/**
 * The model's table beside the config: the engine's summary of the document's text (nodes, shapes, parameters, the
 * fit check, each problem on its node), worked out in the background after each validation of the text (itself
 * 250 ms after the last keystroke) while the table shows. Compiling takes 100 ms and more, so only the newest text
 * counts: work for text that has changed since is skipped before it starts, and its result dropped if it finished.
 */
public final class ModelSummaryViewModel {

    private final ConfigDocument document;
    private final BiFunction<String, Path, ModelOverview> summarize;
    private final TaskExecutor tasks;
    private final ObservableList<ModelOverview.Node> nodes = FXCollections.observableArrayList();
    private final StringProperty totals = new SimpleStringProperty("");
    private final StringProperty fit = new SimpleStringProperty("");
    private final StringProperty problems = new SimpleStringProperty("");
    private final ObjectProperty<ModelOverview> overview = new SimpleObjectProperty<>();
    private final BooleanProperty showing = new SimpleBooleanProperty();
    private final BooleanProperty working = new SimpleBooleanProperty();
    private final AtomicLong latest = new AtomicLong();
    private Consumer<NcclReport> onNd4jLoaded = r -> {};
    /** The text (and folder) of the newest request: the same again needs no new work. */
    private String requestedText;

    private Path requestedBase;

    /**
     * @param summarize the engine's summary of a config's text ({@code Engine::summarize}), called on the executor
     * @param tasks     a background executor of the summary's own, so that file saves never wait behind it
     */
    public ModelSummaryViewModel(
            ConfigDocument document, BiFunction<String, Path, ModelOverview> summarize, TaskExecutor tasks) {
        this.document = document;
        this.summarize = summarize;
        this.tasks = tasks;
        document.validationProperty().addListener((o, a, b) -> {
            if (b != null && showing.get()) {
                refresh();
            }
        });
        showing.addListener((o, a, b) -> {
            if (b) {
                refresh();
            }
        });
    }

    public ObservableList<ModelOverview.Node> nodes() {
        return nodes;
    }

    /** "12,345 parameters", or why there is no total. */
    public ReadOnlyStringProperty totalsProperty() {
        return totals;
    }

    /** The fit check, a line per stage. */
    public ReadOnlyStringProperty fitProperty() {
        return fit;
    }

    /** What is wrong that is not on one node, a line each. */
    public ReadOnlyStringProperty problemsProperty() {
        return problems;
    }

    public ReadOnlyObjectProperty<ModelOverview> overviewProperty() {
        return overview;
    }

    /** Whether the table is on screen: only then is the summary worked out. */
    public BooleanProperty showingProperty() {
        return showing;
    }

    /** Whether a summary of the newest text is being worked out. */
    public ReadOnlyBooleanProperty workingProperty() {
        return working;
    }

    /** Who hears what became of the config's NCCL settings when a summary first loaded ND4J. */
    public void onNd4jLoaded(Consumer<NcclReport> handler) {
        this.onNd4jLoaded = handler;
    }

    /** Asks for the summary of the document's text as it is now, unless that is the one asked for last. */
    public void refresh() {
        String text = document.text();
        Path base = document.baseDir();
        if (text.equals(requestedText) && Objects.equals(base, requestedBase)) {
            return;
        }
        requestedText = text;
        requestedBase = base;
        long mine = latest.incrementAndGet();
        working.set(true);
        tasks.execute(
                () -> latest.get() == mine ? summary(text, base) : null,
                result -> {
                    if (result != null && latest.get() == mine) {
                        show(result.overview(), result.configValid());
                        working.set(false);
                    }
                },
                e -> {
                    if (latest.get() == mine) {
                        requestedText = null; // the same text may be asked for again
                        nodes.clear();
                        totals.set("");
                        fit.set("");
                        problems.set("The summary could not be worked out: "
                                + (e.getMessage() == null ? e : e.getMessage()));
                        working.set(false);
                    }
                });
    }

    /** A summary, and whether the config as written is valid (else its nodes' problems are its values'). */
    private record Summary(ModelOverview overview, boolean configValid) {}

    private Summary summary(String text, Path base) {
        ModelOverview o = summarize.apply(text, base);
        return new Summary(o, o.compiled() || Configs.parse(text, base).isValid());
    }

    private void show(ModelOverview o, boolean configValid) {
        overview.set(o);
        nodes.setAll(o.nodes());
        long onNodes = o.nodes().stream().filter(n -> n.problem() != null).count();
        if (o.compiled()) {
            totals.set(String.format(Locale.ROOT, "total: %,d parameters", o.parameters()));
        } else if (onNodes > 0 && configValid) {
            totals.set("The model does not build: " + onNodes + " node(s) with a problem, marked in the table.");
        } else {
            // the config's own problems (a wrong value, a typo such as "conv2xd", even when said on its node) are
            // listed below with their fix: the model is not what is wrong
            totals.set("");
        }
        fit.set(String.join("\n", o.fit()));
        // a row's cell is narrow: each node's problem is said in full below the table too
        List<String> lines = new ArrayList<>();
        o.nodes().stream()
                .filter(n -> n.problem() != null)
                .forEach(n -> lines.add("✖ " + n.name() + ": " + n.problem()));
        lines.addAll(lines(o.problems()));
        problems.set(String.join("\n", lines));
        if (o.nccl() != null) {
            onNd4jLoaded.accept(o.nccl());
        }
    }

    private static List<String> lines(List<ConfigProblem> problems) {
        return problems.stream().map(p -> (p.isError() ? "✖ " : "⚠ ") + p).toList();
    }
}
