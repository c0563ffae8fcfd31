package org.traindeck.app.run;

import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/** Stage, epoch, step, elapsed time and ETA of the run, with its progress: a view of {@link StatusViewModel}. */
public final class StatusBar extends HBox {

    public StatusBar(StatusViewModel model) {
        super(14);
        setId("status-bar");
        setAlignment(Pos.CENTER_LEFT);
        setPadding(new Insets(3, 6, 3, 6));
        Label run = label("status-run", model.runProperty());
        run.getStyleClass().add("status-run");
        ProgressBar progress = new ProgressBar(0);
        progress.setId("status-progress");
        progress.setPrefWidth(180);
        progress.progressProperty().bind(model.progressProperty());
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        getChildren()
                .addAll(
                        run,
                        label("status-stage", model.stageProperty()),
                        label("status-epoch", model.epochProperty()),
                        label("status-step", model.stepProperty()),
                        label("status-elapsed", model.elapsedProperty()),
                        label("status-eta", model.etaProperty()),
                        spacer,
                        progress);
    }

    private static Label label(String id, ObservableValue<String> text) {
        Label l = new Label();
        l.setId(id);
        l.textProperty().bind(text);
        return l;
    }
}
