package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

/**
 * The form side of the config editor: the common fields and the model type's own (ModelFields), each bound to its
 * JSON path. Editing a field changes that value's text in the document's JSON and nothing else; editing the JSON
 * refreshes the fields; the engine's validation marks the field its message names (path and line), and lists every
 * problem below.
 */
public final class ConfigForm extends ScrollPane {

    /** A control bound to a JSON path (which may depend on the selected stage), with the schema's word on it. */
    private record Binding(
            Supplier<String> path,
            Control control,
            Function<JsonNode, Object> toControl,
            Supplier<JsonNode> fromControl,
            Consumer<Object> setter,
            Tooltip hint) {}

    private final ConfigDocument document;
    private final List<Binding> bindings = new ArrayList<>();
    /** Each field's reason, beside it: a red border alone, with the reason in a tooltip, was easy to miss. */
    private final Map<Control, Label> reasons = new HashMap<>();

    private final Map<Control, Label> rowLabels = new HashMap<>();
    /** A row shown only while the value at {@code typePath} is one of {@code types} (a text source's context). */
    private record ShownFor(Supplier<String> typePath, Set<String> types) {}

    /** The data and schedule fields, each shown only for the variants whose schema has it. */
    private final Map<Binding, ShownFor> variantFields = new HashMap<>();
    /** The image augmentations: shown only for image data (a text model has no flips or brightness). */
    private final List<Control> imageOnly = new ArrayList<>();

    private final GridPane model = grid();
    private final ModelFields modelFields;
    private Runnable editInJson = () -> {};
    private final ComboBox<String> stageChoice = new ComboBox<>();
    private final VBox problems = new VBox(2);
    private final Label summary = new Label();
    private boolean updating;
    static final String NOT_SET = "not set (the engine's default)";

    public ConfigForm(ConfigDocument document) {
        this.document = document;
        this.modelFields = new ModelFields(this, model);
        setFitToWidth(true);
        setId("config-form");
        GridPane run = runFields();
        // the rows below the type are the chosen type's properties in the schema (ModelFields), rebuilt when it changes
        choice(model, 0, "Model", () -> "model.type");
        GridPane data = dataFields();
        GridPane stage = stageFields();
        GridPane checkpoint = checkpointFields();
        summary.setId("validation-summary");
        problems.setId("problem-list");
        VBox content = new VBox(
                6,
                section("Run", run),
                section("Model", model),
                section("Data", data),
                section("Stages", stage),
                section("Checkpoints", checkpoint),
                summary,
                problems);
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

    private GridPane runFields() {
        GridPane run = grid();
        int r = 0;
        text(run, r++, "Run name", () -> "name", false);
        text(run, r++, "Output folder", () -> "outputDir", false);
        text(run, r++, "Seed", () -> "seed", false);
        check(run, r, "Synchronized BatchNorm (across devices)", () -> "parallel.syncBatchNorm");
        return run;
    }

    private GridPane dataFields() {
        GridPane data = grid();
        int r = 0;
        choice(data, r++, "Training data", () -> "data.train.type");
        int firstSourceField = bindings.size();
        text(data, r++, "Path", () -> "data.train.path", false);
        text(data, r++, "Inputs", () -> "data.train.inputs", false);
        text(data, r++, "Targets", () -> "data.train.targets", false);
        text(data, r++, "Context (window)", () -> "data.train.context", false);
        text(data, r++, "Stride", () -> "data.train.stride", false);
        text(data, r++, "Limit (samples, 0 = all)", () -> "data.train.limit", false);
        shownForVariants(firstSourceField, "source", () -> "data.train.type");
        text(data, r, "Validation split", () -> "data.validationSplit", false);
        return data;
    }

    /** The rows bound since {@code first} show only while {@code typePath} names a variant of {@code def} with them. */
    private void shownForVariants(int first, String def, Supplier<String> typePath) {
        bindings.subList(first, bindings.size()).forEach(b -> {
            String path = b.path().get();
            variantFields.put(
                    b,
                    new ShownFor(typePath, ModelSchema.variantsWith(def, path.substring(path.lastIndexOf('.') + 1))));
        });
    }

    /** The stage chooser with its add and remove buttons, then the selected stage's fields. */
    private GridPane stageFields() {
        GridPane stage = grid();
        int r = 0;
        stage.add(new Label("Stage"), 0, r);
        stage.add(stageRow(), 1, r++);
        String s = "stages[%d].";
        text(stage, r++, "Stage name", () -> s.formatted(selectedStage()) + "name", false);
        text(stage, r++, "Epochs", () -> s.formatted(selectedStage()) + "epochs", false);
        text(stage, r++, "Batch size (per device)", () -> s.formatted(selectedStage()) + "batchSize", false);
        choice(stage, r++, "Optimizer", () -> s.formatted(selectedStage()) + "optimizer.type");
        text(stage, r++, "Learning rate", () -> s.formatted(selectedStage()) + "optimizer.learningRate", false);
        text(stage, r++, "Weight decay", () -> s.formatted(selectedStage()) + "optimizer.weightDecay", false);
        choice(stage, r++, "Schedule", () -> s.formatted(selectedStage()) + "schedule.type");
        int firstScheduleField = bindings.size();
        text(stage, r++, "Warmup steps", () -> s.formatted(selectedStage()) + "schedule.warmupSteps", false);
        text(stage, r++, "Warmup epochs", () -> s.formatted(selectedStage()) + "schedule.warmupEpochs", false);
        text(
                stage,
                r++,
                "Minimum learning rate",
                () -> s.formatted(selectedStage()) + "schedule.minLearningRate",
                false);
        text(stage, r++, "Step every (epochs)", () -> s.formatted(selectedStage()) + "schedule.everyEpochs", false);
        text(stage, r++, "Step factor (gamma)", () -> s.formatted(selectedStage()) + "schedule.gamma", false);
        shownForVariants(firstScheduleField, "schedule", () -> s.formatted(selectedStage()) + "schedule.type");
        text(
                stage,
                r++,
                "Gradient clipping (max norm)",
                () -> s.formatted(selectedStage()) + "gradientClipping",
                false);
        text(stage, r++, "Accumulation steps", () -> s.formatted(selectedStage()) + "accumulationSteps", false);
        choice(stage, r++, "Precision", () -> s.formatted(selectedStage()) + "precision");
        int firstAugmentation = bindings.size();
        check(stage, r++, "Random 90° rotations", () -> s.formatted(selectedStage()) + "augmentation.rotate90");
        check(stage, r++, "Horizontal flips", () -> s.formatted(selectedStage()) + "augmentation.flipHorizontal");
        check(stage, r++, "Vertical flips", () -> s.formatted(selectedStage()) + "augmentation.flipVertical");
        text(stage, r++, "Brightness (±)", () -> s.formatted(selectedStage()) + "augmentation.brightness", false);
        text(stage, r++, "Contrast (±)", () -> s.formatted(selectedStage()) + "augmentation.contrast", false);
        bindings.subList(firstAugmentation, bindings.size()).forEach(b -> imageOnly.add(b.control()));
        // a value in any of these turns the stage's weight average on
        text(stage, r++, "Weight average (EMA) decay", () -> s.formatted(selectedStage()) + "ema.decay", false);
        text(stage, r++, "EMA start step", () -> s.formatted(selectedStage()) + "ema.startStep", false);
        text(stage, r, "EMA every (steps)", () -> s.formatted(selectedStage()) + "ema.everySteps", false);
        return stage;
    }

    private HBox stageRow() {
        stageChoice.setId("stage-choice");
        // a stage's name is read whole ("1: a-stage-with-a-long-name")
        stageChoice.setMinWidth(Region.USE_PREF_SIZE);
        stageChoice.valueProperty().addListener((o, a, b) -> refreshFields());
        Button addStage = new Button("+");
        addStage.setId("add-stage");
        addStage.setTooltip(new Tooltip("add a stage (a copy of the selected one)"));
        addStage.setOnAction(e -> structural(
                () -> StageEdits.addCopy(document, selectedStage()),
                () -> stageChoice.getSelectionModel().selectLast()));
        Button removeStage = new Button("−");
        removeStage.setId("remove-stage");
        removeStage.setTooltip(new Tooltip("remove the selected stage"));
        removeStage.setOnAction(e -> structural(
                () -> StageEdits.remove(document, selectedStage()),
                () -> stageChoice.getSelectionModel().selectFirst()));
        return new HBox(4, stageChoice, addStage, removeStage);
    }

    private GridPane checkpointFields() {
        GridPane checkpoint = grid();
        text(checkpoint, 0, "Checkpoint every (epochs)", () -> "checkpoint.everyEpochs", false);
        text(checkpoint, 1, "Keep last", () -> "checkpoint.keepLast", false);
        return checkpoint;
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

    static String id(String label) {
        return "field-" + label.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }

    private void text(GridPane grid, int row, String label, Supplier<String> path, boolean list) {
        text(grid, row, label, id(label), path, list, Configs.defaultText(path.get()), hint(path));
    }

    /** Also the model type's fields, whose default and hint come from its own variant of the schema. */
    Control text(
            GridPane grid,
            int row,
            String label,
            String id,
            Supplier<String> path,
            boolean list,
            String fallback,
            Tooltip hint) {
        TextField field = new TextField();
        field.setId(id);
        field.setPrefColumnCount(18);
        // a field left empty takes the schema's default, shown greyed
        field.setPromptText(fallback);
        Binding b = new Binding(
                path,
                field,
                v -> JsonTree.toText(v),
                () -> list ? JsonTree.listFromText(field.getText()) : JsonTree.fromText(field.getText()),
                v -> field.setText((String) v),
                hint);
        field.textProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, field, b);
        return field;
    }

    private void choice(GridPane grid, int row, String label, Supplier<String> path) {
        choice(
                grid,
                row,
                label,
                id(label),
                path,
                Configs.choices(path.get()),
                Configs.defaultText(path.get()),
                hint(path));
    }

    Control choice(
            GridPane grid,
            int row,
            String label,
            String id,
            Supplier<String> path,
            List<String> choices,
            String fallback,
            Tooltip hint) {
        ComboBox<String> box = new ComboBox<>();
        box.getItems().addAll(choices);
        box.setId(id);
        // left out, with no default in the schema (a model's "kernel"): the box says so rather than showing nothing
        // (the skin writes the prompt text over the cell's own when the value is not among the choices)
        box.setPromptText(NOT_SET);
        box.setButtonCell(new ListCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? NOT_SET : item);
            }
        });
        Binding b = new Binding(
                path,
                box,
                v -> v == null ? fallback : v.asText(),
                () -> box.getValue() == null ? null : JsonNodeFactory.instance.textNode(box.getValue()),
                v -> box.setValue((String) v),
                hint);
        box.valueProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, box, b);
        return box;
    }

    /** A model type's switch: the value is written as the box shows it, its default when the file leaves it out. */
    Control flag(
            GridPane grid, int row, String label, String id, Supplier<String> path, boolean fallback, Tooltip hint) {
        CheckBox box = new CheckBox();
        box.setId(id);
        Binding b = new Binding(
                path,
                box,
                v -> v == null ? fallback : v.asBoolean(),
                () -> JsonNodeFactory.instance.booleanNode(box.isSelected()),
                v -> box.setSelected((Boolean) v),
                hint);
        box.selectedProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, box, b);
        return box;
    }

    /** A value the form does not edit (a graph's layers), summarised; the JSON tab edits it. */
    Control summary(
            GridPane grid, int row, String label, String id, Supplier<String> path, Function<JsonNode, String> text) {
        Label shown = new Label();
        shown.setId(id);
        shown.setWrapText(true);
        Binding b = new Binding(path, shown, text::apply, () -> null, v -> shown.setText((String) v), null);
        add(grid, row, label, shown, b);
        return shown;
    }

    /** Shows the JSON tab: how the window does it is passed in, so the form needs nothing of the window. */
    public void onEditInJson(Runnable action) {
        this.editInJson = action;
    }

    void editInJson() {
        editInJson.run();
    }

    /** Drops the given controls' bindings (the previous model type's fields). */
    void unbind(List<Control> controls) {
        bindings.removeIf(b -> controls.contains(b.control()));
        controls.forEach(reasons::remove);
        controls.forEach(rowLabels::remove);
    }

    static Tooltip tooltip(String hint) {
        if (hint == null) {
            return null;
        }
        Tooltip t = new Tooltip(hint);
        t.setWrapText(true);
        t.setMaxWidth(420);
        return t;
    }

    private void check(GridPane grid, int row, String label, Supplier<String> path) {
        CheckBox box = new CheckBox();
        box.setId(id(label));
        Binding b = new Binding(
                path,
                box,
                v -> v != null && v.asBoolean(),
                () -> box.isSelected() ? JsonNodeFactory.instance.booleanNode(true) : null,
                v -> box.setSelected((Boolean) v),
                hint(path));
        box.selectedProperty().addListener((o, a, v) -> userEdit(b));
        add(grid, row, label, box, b);
    }

    private static Tooltip hint(Supplier<String> path) {
        return tooltip(Configs.fieldHint(path.get()));
    }

    private void add(GridPane grid, int row, String label, Control control, Binding b) {
        control.setTooltip(b.hint());
        // a label is read whole; the field gives up width first (it scrolls its text)
        Label name = new Label(label);
        name.setMinWidth(Region.USE_PREF_SIZE);
        control.setMinWidth(60);
        grid.add(name, 0, row);
        grid.add(control, 1, row);
        Label reason = new Label();
        reason.setId(control.getId() == null ? null : control.getId() + "-reason");
        reason.getStyleClass().add("field-reason");
        reason.setWrapText(true);
        reason.setMaxWidth(280);
        reason.setMinHeight(Region.USE_PREF_SIZE);
        reason.setVisible(false);
        reason.setManaged(false);
        grid.add(reason, 2, row);
        reasons.put(control, reason);
        rowLabels.put(control, name);
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
        // another model, source or schedule type has other fields
        if (b.path().get().endsWith(".type")) {
            refreshFields();
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
                // a value the config sets stays in view, where it can be seen and removed
                variantFields.forEach((b, shownFor) -> showRow(
                        b.control(),
                        shownFor.types()
                                        .contains(JsonTree.toText(JsonTree.get(
                                                tree, shownFor.typePath().get())))
                                || JsonTree.get(tree, b.path().get()) != null));
                if (modelFields.show(JsonTree.toText(JsonTree.get(tree, "model.type")))) {
                    showProblems(document.validationProperty().get());
                }
                if (!names.equals(stageChoice.getItems())) {
                    stageChoice.getItems().setAll(names);
                    stageChoice.getSelectionModel().select(Math.min(keep, Math.max(0, count - 1)));
                }
                for (Binding b : bindings) {
                    b.setter()
                            .accept(b.toControl()
                                    .apply(JsonTree.get(tree, b.path().get())));
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
            showReason(b.control(), null);
        }
        if (result == null) {
            summary.setText("");
            return;
        }
        // while the config does not validate its data may be the problem: every field stays in reach
        boolean images = !result.isValid() || result.config().data().train().isImage();
        imageOnly.forEach(c -> showRow(c, images));
        for (ConfigProblem p : result.problems()) {
            Label line = new Label((p.isError() ? "✖ " : "⚠ ") + p);
            line.setWrapText(true);
            line.getStyleClass().add(p.isError() ? "problem-error" : "problem-warning");
            problems.getChildren().add(line);
            for (Binding b : bindings) {
                String path = b.path().get();
                if (p.isError()
                        && (path.equals(p.path())
                                || p.path().startsWith(path + ".")
                                || p.path().startsWith(path + "["))) {
                    if (!b.control().getStyleClass().contains("field-error")) {
                        b.control().getStyleClass().add("field-error");
                    }
                    b.control().setTooltip(new Tooltip(p.toString()));
                    showReason(b.control(), p);
                }
            }
        }
        summary.setText(
                result.isValid()
                        ? (result.warnings().isEmpty()
                                ? "✔ valid"
                                : "✔ valid, with " + result.warnings().size() + " warning(s)")
                        : "✖ " + result.errors().size() + " problem(s): Start is disabled until they are fixed");
        summary.getStyleClass().setAll("label", result.isValid() ? "summary-ok" : "summary-error");
    }

    /** The field's first error beside it ("must be ≥ 1"), or nothing. */
    private void showReason(Control control, ConfigProblem p) {
        Label reason = reasons.get(control);
        if (reason == null || (p != null && reason.isVisible())) {
            return;
        }
        reason.setText(p == null ? "" : "✖ " + p.message());
        reason.setVisible(p != null);
        reason.setManaged(p != null);
    }

    /** The JSON paths of the fields in view now, in the form's order. */
    List<String> shownPaths() {
        return bindings.stream()
                .filter(b -> b.control().isVisible())
                .map(b -> b.path().get())
                .toList();
    }

    private void showRow(Control control, boolean shown) {
        for (Node n : new Node[] {control, rowLabels.get(control)}) {
            if (n != null) {
                n.setVisible(shown);
                n.setManaged(shown);
            }
        }
    }
}
