package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;

/**
 * The Stages section's chooser: one entry per stage of the document ("1: warmup"), with buttons that add a copy of
 * the selected stage or remove it. The stage fields' paths name the selected stage.
 */
final class StageChooser {

    private final ConfigDocument document;
    private final ComboBox<String> choice = new ComboBox<>();

    /** {@code onSelect} runs when another stage is chosen (its fields are shown). */
    StageChooser(ConfigDocument document, Runnable onSelect) {
        this.document = document;
        choice.setId("stage-choice");
        // a stage's name is read whole ("1: a-stage-with-a-long-name")
        choice.setMinWidth(Region.USE_PREF_SIZE);
        choice.valueProperty().addListener((o, a, b) -> onSelect.run());
    }

    /** The chooser with its add and remove buttons. */
    HBox row() {
        Button addStage = new Button("+");
        addStage.setId("add-stage");
        addStage.setTooltip(new Tooltip("add a stage (a copy of the selected one)"));
        addStage.setOnAction(e -> structural(
                () -> StageEdits.addCopy(document, selected()),
                () -> choice.getSelectionModel().selectLast()));
        Button removeStage = new Button("−");
        removeStage.setId("remove-stage");
        removeStage.setTooltip(new Tooltip("remove the selected stage"));
        removeStage.setOnAction(e -> structural(
                () -> StageEdits.remove(document, selected()),
                () -> choice.getSelectionModel().selectFirst()));
        return new HBox(4, choice, addStage, removeStage);
    }

    int selected() {
        int i = choice.getSelectionModel().getSelectedIndex();
        return Math.max(0, i);
    }

    /** Lists {@code tree}'s stages when they changed, keeping the selected index where the list still has it. */
    void list(ObjectNode tree) {
        JsonNode stages = tree.get("stages");
        int count = stages != null && stages.isArray() ? stages.size() : 0;
        int keep = selected();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            JsonNode name = stages.get(i).get("name");
            names.add((i + 1) + ": " + (name == null ? "stage" + (i + 1) : name.asText()));
        }
        if (!names.equals(choice.getItems())) {
            choice.getItems().setAll(names);
            choice.getSelectionModel().select(Math.min(keep, Math.max(0, count - 1)));
        }
    }

    /** Applies a structural edit (a stage added or removed), then selects the stage {@code after} names. */
    private void structural(Runnable change, Runnable after) {
        if (JsonTree.parse(document.text()) == null) {
            return;
        }
        change.run();
        after.run();
    }
}
