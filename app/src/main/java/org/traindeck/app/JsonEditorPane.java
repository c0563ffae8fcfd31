package org.traindeck.app;

import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.layout.BorderPane;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

/** The JSON tab: the config's raw text, two-way with the document, and below it the first problem the engine found. */
final class JsonEditorPane extends BorderPane {

    private final TextArea json = new TextArea();
    private final Label status = new Label();

    JsonEditorPane(ConfigDocument document) {
        json.setId("json-editor");
        json.getStyleClass().add("json-editor");
        json.textProperty().bindBidirectional(document.textProperty());
        status.setId("json-status");
        status.setWrapText(true);
        setCenter(json);
        setBottom(status);
        document.validationProperty().addListener((o, a, b) -> show(b));
        show(document.validationProperty().get());
    }

    private void show(ValidationResult v) {
        if (v == null) {
            status.setText("");
            return;
        }
        ConfigProblem first = v.errors().stream().findFirst().orElse(null);
        status.setText(first == null ? "✔ valid"
                : "✖ " + first + (v.errors().size() > 1 ? " (and " + (v.errors().size() - 1) + " more: see the Config tab)" : ""));
        status.getStyleClass().setAll("label", first == null ? "summary-ok" : "summary-error");
    }
}
