package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The form side of the config editor: the common fields, each bound to its JSON path. Editing a field rewrites the
 * document's JSON; editing the JSON refreshes the fields; the engine's validation marks the field its message names
 * (path and line), and lists every problem below.
 */
public final class ConfigForm extends ScrollPane {

    /** A control bound to a JSON path (which may depend on the selected stage), with the schema's word on it. */
    private record Binding(Supplier<String> path, Control control, Function<JsonNode, Object> toControl,
                           Supplier<JsonNode> fromControl, Consumer<Object> setter, Tooltip hint) {}

    private final ConfigDocument document;
    private final List<Binding> bindings = new ArrayList<>();
    private final ComboBox<String> stageChoice = new ComboBox<>();
    private final VBox problems = new VBox(2);
    private final Label summary = new Label();
    private boolean updating;

    public ConfigForm(ConfigDocument document) {
        this.document = document;
        setFitToWidth(true);
        setId("config-form");
        GridPane run = grid();
        int r = 0;
        text(run, r++, "Run name", () -> "name", false);
        text(run, r++, "Output folder", () -> "outputDir", false);
        text(run, r++, "Seed", () -> "seed", false);
        GridPane model = grid();
        r = 0;
        choice(model, r++, "Model", () -> "model.type");
        text(model, r++, "Hidden layers (mlp)", () -> "model.hidden", true);
        text(model, r++, "Conv channels (lenet)", () -> "model.channels", true);
        choice(model, r++, "Activation", () -> "model.activation");
        text(model, r++, "Dropout", () -> "model.dropout", false);
        check(model, r++, "Synchronized BatchNorm (across devices)", () -> "parallel.syncBatchNorm");
        GridPane data = grid();
        r = 0;
        choice(data, r++, "Training data", () -> "data.train.type");
        text(data, r++, "Path", () -> "data.train.path", false);
        text(data, r++, "Validation split", () -> "data.validationSplit", false);
        GridPane stage = grid();
        r = 0;
        stageChoice.setId("stage-choice");
        stageChoice.valueProperty().addListener((o, a, b) -> refreshFields());
        Button addStage = new Button("+");
        addStage.setId("add-stage");
        addStage.setTooltip(new Tooltip("add a stage (a copy of the selected one)"));
        addStage.setOnAction(e -> edit(tree -> {
            ArrayNode stages = (ArrayNode) tree.withArray("stages");
            JsonNode copy = stages.size() > 0 ? stages.get(selectedStage()).deepCopy() : JsonNodeFactory.instance.objectNode().put("epochs", 1);
            if (copy instanceof ObjectNode o) {
                o.put("name", "stage" + (stages.size() + 1));
            }
            stages.add(copy);
        }, () -> stageChoice.getSelectionModel().selectLast()));
        Button removeStage = new Button("−");
        removeStage.setId("remove-stage");
        removeStage.setTooltip(new Tooltip("remove the selected stage"));
        removeStage.setOnAction(e -> edit(tree -> {
            ArrayNode stages = (ArrayNode) tree.withArray("stages");
            if (stages.size() > 1) {
                stages.remove(selectedStage());
            }
        }, () -> stageChoice.getSelectionModel().selectFirst()));
        HBox stageRow = new HBox(4, stageChoice, addStage, removeStage);
        stage.add(new Label("Stage"), 0, r);
        stage.add(stageRow, 1, r++);
        String s = "stages[%d].";
        text(stage, r++, "Stage name", () -> s.formatted(selectedStage()) + "name", false);
        text(stage, r++, "Epochs", () -> s.formatted(selectedStage()) + "epochs", false);
        text(stage, r++, "Batch size (per device)", () -> s.formatted(selectedStage()) + "batchSize", false);
        choice(stage, r++, "Optimizer", () -> s.formatted(selectedStage()) + "optimizer.type");
        text(stage, r++, "Learning rate", () -> s.formatted(selectedStage()) + "optimizer.learningRate", false);
        choice(stage, r++, "Schedule", () -> s.formatted(selectedStage()) + "schedule.type");
        text(stage, r++, "Warmup steps", () -> s.formatted(selectedStage()) + "schedule.warmupSteps", false);
        text(stage, r++, "Gradient clipping (max norm)", () -> s.formatted(selectedStage()) + "gradientClipping", false);
        text(stage, r++, "Accumulation steps", () -> s.formatted(selectedStage()) + "accumulationSteps", false);
        choice(stage, r++, "Precision", () -> s.formatted(selectedStage()) + "precision");
        check(stage, r++, "Random 90° rotations", () -> s.formatted(selectedStage()) + "augmentation.rotate90");
        check(stage, r++, "Horizontal flips", () -> s.formatted(selectedStage()) + "augmentation.flipHorizontal");
        check(stage, r++, "Vertical flips", () -> s.formatted(selectedStage()) + "augmentation.flipVertical");
        text(stage, r++, "Brightness (±)", () -> s.formatted(selectedStage()) + "augmentation.brightness", false);
        text(stage, r++, "Contrast (±)", () -> s.formatted(selectedStage()) + "augmentation.contrast", false);
        // a value in any of these turns the stage's weight average on
        text(stage, r++, "Weight average (EMA) decay", () -> s.formatted(selectedStage()) + "ema.decay", false);
        text(stage, r++, "EMA start step", () -> s.formatted(selectedStage()) + "ema.startStep", false);
        text(stage, r++, "EMA every (steps)", () -> s.formatted(selectedStage()) + "ema.everySteps", false);
        GridPane checkpoint = grid();
        r = 0;
        text(checkpoint, r++, "Checkpoint every (epochs)", () -> "checkpoint.everyEpochs", false);
        text(checkpoint, r++, "Keep last", () -> "checkpoint.keepLast", false);
        summary.setId("validation-summary");
        problems.setId("problem-list");
        VBox content = new VBox(6,
                section("Run", run), section("Model", model), section("Data", data), section("Stages", stage),
                section("Checkpoints", checkpoint), summary, problems);
        content.setPadding(new Insets(8));
        setContent(content);
        document.textProperty().addListener((o, a, b) -> {
            if (!updating) {
                refreshFields();
            }
        });
        document.validationProperty().addListener((o, a, b) -> showProblems(b));
        refreshFields();
    }

    private static GridPane grid() {
        GridPane g = new GridPane();
        g.setHgap(8);
        g.setVgap(4);
        return g;
    }

    private static TitledPane section(String title, Node content) {
        TitledPane p = new TitledPane(title, content);
        p.setCollapsible(true);
        return p;
    }

    private int selectedStage() {
        int i = stageChoice.getSelectionModel().getSelectedIndex();
        return Math.max(0, i);
    }

    private static String id(String label) {
        return "field-" + label.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }

    private void text(GridPane grid, int row, String label, Supplier<String> path, boolean list) {
        TextField field = new TextField();
        field.setId(id(label));
        field.setPrefColumnCount(18);
        // a field left empty takes the schema's default, shown greyed
        field.setPromptText(Configs.defaultText(path.get()));
        Binding b = new Binding(path, field, v -> JsonTree.toText(v),
                () -> list ? JsonTree.listFromText(field.getText()) : JsonTree.fromText(field.getText()),
                v -> field.setText((String) v), hint(path));
        field.textProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, field, b);
    }

    private void choice(GridPane grid, int row, String label, Supplier<String> path) {
        String fallback = Configs.defaultText(path.get());
        ComboBox<String> box = new ComboBox<>();
        box.getItems().addAll(Configs.choices(path.get()));
        box.setId(id(label));
        Binding b = new Binding(path, box, v -> v == null ? fallback : v.asText(),
                () -> box.getValue() == null ? null : JsonNodeFactory.instance.textNode(box.getValue()),
                v -> box.setValue((String) v), hint(path));
        box.valueProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, box, b);
    }

    private void check(GridPane grid, int row, String label, Supplier<String> path) {
        CheckBox box = new CheckBox();
        box.setId(id(label));
        Binding b = new Binding(path, box, v -> v != null && v.asBoolean(),
                () -> box.isSelected() ? JsonNodeFactory.instance.booleanNode(true) : null,
                v -> box.setSelected((Boolean) v), hint(path));
        box.selectedProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, box, b);
    }

    private static Tooltip hint(Supplier<String> path) {
        String hint = Configs.fieldHint(path.get());
        if (hint == null) {
            return null;
        }
        Tooltip t = new Tooltip(hint);
        t.setWrapText(true);
        t.setMaxWidth(420);
        return t;
    }

    private void add(GridPane grid, int row, String label, Control control, Binding b) {
        control.setTooltip(b.hint());
        // a label is read whole; the field gives up width first (it scrolls its text)
        Label name = new Label(label);
        name.setMinWidth(Region.USE_PREF_SIZE);
        control.setMinWidth(60);
        grid.add(name, 0, row);
        grid.add(control, 1, row);
        bindings.add(b);
    }

    private void userEdit(Binding b) {
        if (updating) {
            return;
        }
        if (JsonTree.parse(document.text()) == null) {
            summary.setText("The JSON tab has a syntax error: fix it there, then the form follows.");
            return;
        }
        updating = true;
        try {
            JsonNode value = b.fromControl().get();
            DocumentEdits.set(document, b.path().get(), value);
            if (value == null) {
                SwitchingSections.dropIfEmpty(document, b.path().get());
            }
        } finally {
            updating = false;
        }
    }

    /** Applies a structural edit to the JSON, then refreshes the form. */
    private void edit(Consumer<ObjectNode> change, Runnable after) {
        ObjectNode tree = JsonTree.parse(document.text());
        if (tree == null) {
            return;
        }
        change.accept(tree);
        document.textProperty().set(JsonTree.write(tree));
        after.run();
    }

    private void refreshFields() {
        ObjectNode tree = JsonTree.parse(document.text());
        boolean usable = tree != null;
        updating = true;
        try {
            if (usable) {
                JsonNode stages = tree.get("stages");
                int count = stages != null && stages.isArray() ? stages.size() : 0;
                int keep = selectedStage();
                List<String> names = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    JsonNode name = stages.get(i).get("name");
                    names.add((i + 1) + ": " + (name == null ? "stage" + (i + 1) : name.asText()));
                }
                if (!names.equals(stageChoice.getItems())) {
                    stageChoice.getItems().setAll(names);
                    stageChoice.getSelectionModel().select(Math.min(keep, Math.max(0, count - 1)));
                }
                for (Binding b : bindings) {
                    b.setter().accept(b.toControl().apply(JsonTree.get(tree, b.path().get())));
                }
            }
            for (Binding b : bindings) {
                b.control().setDisable(!usable);
            }
        } finally {
            updating = false;
        }
    }

    private void showProblems(ValidationResult result) {
        problems.getChildren().clear();
        for (Binding b : bindings) {
            b.control().getStyleClass().remove("field-error");
            b.control().setTooltip(b.hint());
        }
        if (result == null) {
            summary.setText("");
            return;
        }
        for (ConfigProblem p : result.problems()) {
            Label line = new Label((p.isError() ? "✖ " : "⚠ ") + p);
            line.setWrapText(true);
            line.getStyleClass().add(p.isError() ? "problem-error" : "problem-warning");
            problems.getChildren().add(line);
            for (Binding b : bindings) {
                String path = b.path().get();
                if (p.isError() && (path.equals(p.path()) || p.path().startsWith(path + ".") || p.path().startsWith(path + "["))) {
                    if (!b.control().getStyleClass().contains("field-error")) {
                        b.control().getStyleClass().add("field-error");
                    }
                    b.control().setTooltip(new Tooltip(p.toString()));
                }
            }
        }
        summary.setText(result.isValid()
                ? (result.warnings().isEmpty() ? "✔ valid" : "✔ valid, with " + result.warnings().size() + " warning(s)")
                : "✖ " + result.errors().size() + " problem(s): Start is disabled until they are fixed");
        summary.getStyleClass().setAll("label", result.isValid() ? "summary-ok" : "summary-error");
    }
}
