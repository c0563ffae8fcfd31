package org.traindeck.app;

import java.util.List;
import javafx.geometry.Orientation;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextArea;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.config.ModelSummaryPane;
import org.traindeck.app.config.ModelSummaryViewModel;
import org.traindeck.engine.api.ModelOverview;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

/**
 * The JSON tab: the config's raw text, two-way with the document, with line numbers and a mark on each line a problem
 * is on; under it the model's table as it compiles, and at
 * the bottom the first problem the engine found: in the config, else in the model as the table last found it (a
 * config can be valid JSON for a model that does not build).
 */
final class JsonEditorPane extends BorderPane {

    private final TextArea json = new TextArea();
    private final JsonEditorGutter gutter = new JsonEditorGutter(json);
    private final Label status = new Label();

    private final ConfigDocument document;
    private final ModelSummaryViewModel model;

    JsonEditorPane(ConfigDocument document, ModelSummaryViewModel model) {
        this.document = document;
        this.model = model;
        ModelSummaryPane summary = new ModelSummaryPane(model);
        json.setId("json-editor");
        json.getStyleClass().add("json-editor");
        json.textProperty().bindBidirectional(document.textProperty());
        status.setId("json-status");
        status.setWrapText(true);
        HBox.setHgrow(json, Priority.ALWAYS);
        SplitPane split = new SplitPane(new HBox(gutter, json), summary);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.55);
        setCenter(split);
        setBottom(status);
        document.validationProperty().addListener((o, a, b) -> show());
        model.overviewProperty().addListener((o, a, b) -> show());
        model.problemsProperty().addListener((o, a, b) -> show());
        show();
    }

    private void show() {
        ValidationResult v = document.validationProperty().get();
        gutter.showProblems(v == null ? List.of() : v.problems());
        if (v == null) {
            status.setText("");
            return;
        }
        ConfigProblem first = v.errors().stream().findFirst().orElse(null);
        String modelProblem =
                first == null ? modelProblem(model.overviewProperty().get()) : null;
        // the model's pane lists the problems in full just above: the status line then counts them, not says them again
        boolean listedAbove = !model.problemsProperty().get().isBlank();
        int errors = v.errors().size();
        if (first != null && listedAbove) {
            status.setText("✖ " + errors + (errors == 1 ? " problem" : " problems") + " in the config, listed above");
        } else if (first != null) {
            status.setText("✖ " + first.firstLine()
                    + (errors > 1 ? " (and " + (errors - 1) + " more: see the Config tab)" : ""));
        } else if (modelProblem != null) {
            status.setText(listedAbove ? "✖ the model does not build: see the problem above" : "✖ " + modelProblem);
        } else {
            status.setText("✔ valid");
        }
        status.getStyleClass().setAll("label", first == null && modelProblem == null ? "summary-ok" : "summary-error");
    }

    /** The first thing that stops the model from running, or null (no table yet counts as nothing wrong). */
    private static String modelProblem(ModelOverview o) {
        if (o == null || o.ok()) {
            return null;
        }
        return o.nodes().stream()
                .filter(n -> n.problem() != null)
                .findFirst()
                .map(n -> "the model does not build: " + n.problem())
                .or(() -> o.problems().stream()
                        .filter(ConfigProblem::isError)
                        .findFirst()
                        .map(ConfigProblem::firstLine))
                .orElse(null);
    }
}
