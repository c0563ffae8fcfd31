package org.traindeck.app.run;

import java.nio.file.Path;
import java.util.function.Consumer;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.engine.api.runs.RunResult;

/**
 * The end-of-run summary above the charts: how the run ended and its folder in two lines, its figures per stage and
 * its folder's path under Details. Two lines, so that the charts below still fit without scrolling.
 */
public final class RunSummaryPane extends VBox {

    private final Label title = new Label();
    private final Label detail = new Label();
    private final VBox stages = new VBox(2);
    private final Label folder = new Label();
    private final Button openFolder = new Button("Open folder");
    private Consumer<Path> folderOpener = p -> {};
    private Consumer<Path> evaluator = p -> {};
    private EndOfRunSummary shown;

    public RunSummaryPane() {
        super(4);
        setId("run-summary");
        getStyleClass().add("run-summary");
        title.getStyleClass().add("run-summary-title");
        title.setId("run-summary-title");
        detail.setWrapText(true);
        detail.setId("run-summary-detail");
        stages.setId("run-summary-stages");
        folder.setId("run-summary-folder");
        folder.setMinWidth(0);
        openFolder.setId("run-summary-open-folder");
        openFolder.setMinWidth(Region.USE_PREF_SIZE);
        openFolder.setOnAction(e -> {
            if (shown != null) {
                folderOpener.accept(shown.runDir());
            }
        });
        Button close = new Button("✕");
        close.setId("run-summary-close");
        close.getStyleClass().add("flat");
        close.setOnAction(e -> hide());
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        Button evaluate = new Button("Evaluate");
        evaluate.setId("run-summary-evaluate");
        evaluate.setMinWidth(Region.USE_PREF_SIZE);
        evaluate.setOnAction(e -> {
            if (shown != null) {
                evaluator.accept(shown.runDir());
            }
        });
        ToggleButton details = new ToggleButton("Details");
        details.setId("run-summary-details");
        details.setMinWidth(Region.USE_PREF_SIZE);
        title.setMinWidth(0);
        HBox head = new HBox(8, title, spacer, openFolder, evaluate, details, close);
        head.setAlignment(Pos.CENTER_LEFT);
        HBox files = new HBox(8, new Label("Folder:"), folder);
        files.setAlignment(Pos.CENTER_LEFT);
        VBox more = new VBox(4, stages, files);
        more.setId("run-summary-more");
        more.visibleProperty().bind(details.selectedProperty());
        more.managedProperty().bind(details.selectedProperty());
        detail.setMinHeight(Region.USE_PREF_SIZE);
        getChildren().addAll(head, detail, more);
        hide();
    }

    /** Who opens a run folder in the desktop's file manager. */
    public void setFolderOpener(Consumer<Path> opener) {
        this.folderOpener = opener;
    }

    /** What Evaluate does with the run's folder: the app's evaluation window. */
    public void setEvaluator(Consumer<Path> evaluate) {
        this.evaluator = evaluate;
    }

    public void show(EndOfRunSummary summary) {
        shown = summary;
        title.setText(summary.title());
        detail.setText(summary.detail());
        stages.getChildren()
                .setAll(summary.stages().stream()
                        .map(s -> {
                            Label l = new Label(s);
                            l.setWrapText(true);
                            return l;
                        })
                        .toList());
        folder.setText(String.valueOf(summary.runDir()));
        getStyleClass().removeAll("run-summary-finished", "run-summary-failed");
        getStyleClass()
                .add(summary.status() == RunResult.Status.FAILED ? "run-summary-failed" : "run-summary-finished");
        setVisible(true);
        setManaged(true);
    }

    public void hide() {
        shown = null;
        setVisible(false);
        setManaged(false);
    }

    /** The summary on screen, or null. */
    public EndOfRunSummary shown() {
        return shown;
    }
}
