package org.traindeck.app.config;

import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.engine.config.NcclConfig;

/**
 * The NCCL workaround toggles: one per variable with its value, what it does, and a badge saying what became of it
 * (will be applied at the next Start, mapped to a DL4J equivalent, needs a restart, or failed). A container-safe
 * preset, and custom variables: a view of {@link NcclViewModel}, which keeps them equal to the config's "nccl".
 */
public final class NcclPanel extends VBox {

    public NcclPanel(NcclViewModel model) {
        super(8);
        setId("nccl-panel");
        setPadding(new Insets(8));
        Label intro = new Label(
                "TrainDeck's all-reduce and DL4J's ParallelWrapper do not use NCCL: these are set in the process environment before "
                        + "ND4J loads (for native libraries that read them), and mapped to DL4J where an equivalent exists: "
                        + "P2P off turns off cross-device access, and the timeout becomes the step watchdog.");
        intro.setWrapText(true);
        GridPane grid = new GridPane();
        grid.setHgap(8);
        grid.setVgap(4);
        // each toggle's name and value on one line, its explanation under them, wrapping to the pane's width
        ColumnConstraints rest = new ColumnConstraints();
        rest.setHgrow(Priority.ALWAYS);
        grid.getColumnConstraints().setAll(unshrinking(), unshrinking(), rest);
        int r = 0;
        for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
            NcclViewModel.Toggle toggle = model.toggle(t.name());
            CheckBox box = new CheckBox(t.name());
            // NCCL_TIMEOUT, not "NCCLTIMEOUT": the first underscore would otherwise mark a keyboard mnemonic
            box.setMnemonicParsing(false);
            box.setId("nccl-" + t.name());
            box.selectedProperty().bindBidirectional(toggle.enabledProperty());
            TextField value = new TextField();
            value.setId("nccl-value-" + t.name());
            value.setPrefColumnCount(6);
            value.textProperty().bindBidirectional(toggle.valueProperty());
            Label explanation = new Label(t.explanation());
            explanation.getStyleClass().add("nccl-explanation");
            explanation.setWrapText(true);
            Label badge = new Label();
            badge.setId("nccl-badge-" + t.name());
            showBadge(badge, toggle.badgeProperty().get());
            toggle.badgeProperty().addListener((o, a, b) -> showBadge(badge, b));
            grid.add(box, 0, r);
            grid.add(value, 1, r);
            grid.add(badge, 2, r++);
            grid.add(explanation, 0, r++, 3, 1);
        }
        Button preset = new Button("Container-safe preset");
        preset.setId("nccl-container-preset");
        preset.setTooltip(new Tooltip(
                "turn on the toggles the guides recommend inside containers, with their recommended values"));
        preset.setOnAction(e -> model.applyContainerPreset());
        TextArea custom = new TextArea();
        custom.setId("nccl-custom");
        custom.setPromptText("custom variables, one NAME=value per line");
        custom.setPrefRowCount(3);
        custom.textProperty().bindBidirectional(model.customProperty());
        getChildren().addAll(intro, preset, grid, new Label("Custom environment variables"), custom);
    }

    private static void showBadge(Label label, NcclViewModel.Badge badge) {
        label.getStyleClass().setAll("label", "badge");
        if (badge.style() != null) {
            label.getStyleClass().add(badge.style());
        }
        label.setText(badge.text());
        label.setTooltip(badge.detail() == null ? null : new Tooltip(badge.detail()));
    }

    private static ColumnConstraints unshrinking() {
        ColumnConstraints c = new ColumnConstraints();
        c.setMinWidth(Region.USE_PREF_SIZE);
        return c;
    }
}
