package org.traindeck.app.evaluate;

import java.nio.file.Path;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.layout.BorderPane;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.traindeck.app.tasks.FxTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;

/**
 * The Evaluate action of the Runs tab and the end-of-run summary: one window that shows the latest evaluation, worked
 * out on a thread of its own (an evaluation can take minutes; saves and listings must not wait behind it).
 */
public final class Evaluations {

    private final Window owner;
    private final TaskExecutor tasks = new FxTaskExecutor();
    private final EvaluationViewModel model;
    private Stage window;

    public Evaluations(Window owner, Engine engine) {
        this.owner = owner;
        this.model = new EvaluationViewModel(engine, tasks);
    }

    public EvaluationViewModel model() {
        return model;
    }

    /** Opens (or brings forward) the evaluation window and evaluates the run there. */
    public void evaluate(Path runDir) {
        if (window == null) {
            window = new Stage();
            window.initOwner(owner);
            window.setTitle("Evaluation — TrainDeck");
            Button close = new Button("Close");
            close.setId("evaluation-close");
            // Esc presses it, as it closes every other dialog
            close.setCancelButton(true);
            close.setOnAction(e -> window.hide());
            ButtonBar buttons = new ButtonBar();
            ButtonBar.setButtonData(close, ButtonBar.ButtonData.CANCEL_CLOSE);
            buttons.getButtons().add(close);
            buttons.setPadding(new Insets(8, 10, 10, 10));
            BorderPane root = new BorderPane(new EvaluationPane(model));
            root.setBottom(buttons);
            Scene scene = new Scene(root, 760, 720);
            if (owner.getScene() != null) {
                scene.getStylesheets().setAll(owner.getScene().getStylesheets());
            }
            window.setScene(scene);
        }
        model.evaluate(runDir);
        window.show();
        window.toFront();
    }

    /** The window, once opened (for tests); null before. */
    public Stage window() {
        return window;
    }

    public void shutdown() {
        tasks.shutdown();
    }
}
