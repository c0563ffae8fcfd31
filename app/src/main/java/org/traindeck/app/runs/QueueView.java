package org.traindeck.app.runs;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.Separator;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.app.run.RunController;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.engine.api.queue.QueueEntry;

/**
 * The queue of the open config's output folder: its runs and how each stands; Add, Run queue, Refresh, and for the
 * selected entry Up and Down (waiting runs run in list order), Remove and Open run (its dashboard, once it has a folder).
 */
public final class QueueView extends VBox {

    /** The entry Up or Down just moved: selected again once the queue is read back. */
    private Integer moving;

    /**
     * @param dialogs asks before an entry is removed
     * @param openRun shows a run folder on the dashboard
     */
    public QueueView(QueueViewModel model, RunController controller, Dialogs dialogs, Consumer<Path> openRun) {
        super(6);
        setId("queue-view");
        setPadding(new Insets(8));
        ListView<QueueEntry> list = entryList(model);
        var selected = list.getSelectionModel().selectedItemProperty();
        Button up = entryButton(
                "Up", "queue-up", selected, e -> !e.status().isDone() && e.status() != QueueEntry.Status.RUNNING, e -> {
                    moving = e.id();
                    model.move(e, -1);
                });
        Button down = entryButton(
                "Down",
                "queue-down",
                selected,
                e -> !e.status().isDone() && e.status() != QueueEntry.Status.RUNNING,
                e -> {
                    moving = e.id();
                    model.move(e, 1);
                });
        Button remove =
                entryButton("Remove", "queue-remove", selected, e -> e.status() != QueueEntry.Status.RUNNING, e -> {
                    if (dialogs.confirm(
                            "Remove #" + e.id() + " from the queue?",
                            "Remove #" + e.id() + " " + e.label() + " from the queue?"
                                    + (e.runDir() == null ? "" : "\nIts run folder stays: " + e.runDir()))) {
                        model.remove(e);
                    }
                });
        Button open = entryButton(
                "Open run", "queue-open", selected, e -> e.runDir() != null, e -> openRun.accept(e.runDir()));
        // the buttons wrap onto a second row on a narrow pane rather than being cut to "Add this …"
        FlowPane buttons = new FlowPane(6, 6);
        buttons.getChildren().addAll(queueButtons(model, controller));
        buttons.getChildren().addAll(new Separator(Orientation.VERTICAL), up, down, remove, open);
        buttons.getChildren().forEach(b -> {
            if (b instanceof Button button) {
                button.setMinWidth(Region.USE_PREF_SIZE);
            }
        });
        Label message = new Label();
        message.setId("queue-message");
        message.setWrapText(true);
        message.textProperty().bind(model.messageProperty());
        getChildren().addAll(buttons, list, message, hint());
    }

    /** Add, Run queue and Refresh: what applies to the whole queue. */
    private static List<Button> queueButtons(QueueViewModel model, RunController controller) {
        Button add = new Button("Add this config");
        add.setId("queue-add");
        add.disableProperty().bind(model.configProperty().isNull());
        add.setOnAction(e -> model.addOpenConfig());
        Button run = new Button("Run queue");
        run.setId("queue-run");
        run.disableProperty()
                .bind(Bindings.createBooleanBinding(
                        () -> controller.stateProperty().get() != RunController.State.IDLE
                                || model.entries().stream()
                                        .allMatch(en -> en.status().isDone()),
                        controller.stateProperty(),
                        model.entries()));
        run.setOnAction(e -> model.run());
        Button refresh = new Button("Refresh");
        refresh.setId("queue-refresh");
        refresh.setOnAction(e -> model.refresh());
        return List.of(add, run, refresh);
    }

    /** The entries, numbered by their place in the queue; the entry just moved stays selected. */
    private ListView<QueueEntry> entryList(QueueViewModel model) {
        ListView<QueueEntry> list = new ListView<>(model.entries());
        list.setId("queue-list");
        list.setPlaceholder(new Label("Nothing queued. Add puts the open config, as it is now, in the queue."));
        // the list is read back from the queue file as new entries, so the moved one is found again by its id
        model.entries().addListener((ListChangeListener<QueueEntry>) c -> {
            if (moving != null) {
                model.entries().stream()
                        .filter(en -> en.id() == moving)
                        .findFirst()
                        .ifPresent(en -> list.getSelectionModel().select(en));
                moving = null;
            }
        });
        list.setCellFactory(v -> new ListCell<>() {
            @Override
            protected void updateItem(QueueEntry e, boolean empty) {
                super.updateItem(e, empty);
                // the place in the queue first (it follows a move), then the entry's own number
                setText(
                        empty || e == null
                                ? null
                                : (getIndex() + 1) + ".  #" + e.id() + "  "
                                        + e.status().name().toLowerCase(Locale.ROOT) + "  " + e.label()
                                        + (e.message() == null || e.message().isBlank()
                                                ? ""
                                                : "  (" + e.message() + ")"));
            }
        });
        VBox.setVgrow(list, Priority.ALWAYS);
        return list;
    }

    private static Label hint() {
        Label hint = new Label(
                "Queued runs run one after another on the dashboard; a failed run does not stop the queue, "
                        + "and Stop stops the run in progress (with a checkpoint: Run queue continues it). The queue is a file "
                        + "in the output folder, so it outlives TrainDeck; `traindeck queue run` runs it from a terminal.");
        hint.setWrapText(true);
        hint.getStyleClass().add("device-figures");
        return hint;
    }

    private static Button entryButton(
            String text,
            String id,
            ReadOnlyObjectProperty<QueueEntry> selected,
            Predicate<QueueEntry> applies,
            Consumer<QueueEntry> action) {
        Button b = new Button(text);
        b.setId(id);
        b.disableProperty()
                .bind(Bindings.createBooleanBinding(
                        () -> selected.get() == null || !applies.test(selected.get()), selected));
        b.setOnAction(e -> action.accept(selected.get()));
        return b;
    }
}
