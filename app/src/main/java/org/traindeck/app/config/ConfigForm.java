package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TitledPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;
import org.traindeck.app.config.BoundFields.Binding;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

/**
 * The form side of the config editor: the common fields and the model type's own (ModelFields), each bound to its
 * JSON path. Editing a field changes that value's text in the document's JSON and nothing else; editing the JSON
 * refreshes the fields; the engine's validation marks the field its message names (path and line), and lists every
 * problem below.
 */
public final class ConfigForm extends ScrollPane {

    private final ConfigDocument document;
    private final BoundFields fields = new BoundFields(this::userEdit);
    /** A row shown only while the value at {@code typePath} is one of {@code types} (a text source's context). */
    private record ShownFor(Supplier<String> typePath, Set<String> types) {}

    /** The data and schedule fields, each shown only for the variants whose schema has it. */
    private final Map<Binding, ShownFor> variantFields = new HashMap<>();
    /** The image augmentations: shown only for image data (a text model has no flips or brightness). */
    private final List<Control> imageOnly = new ArrayList<>();

    private final GridPane model = grid();
    private final ModelFields modelFields;
    private Runnable editInJson = () -> {};
    private final VBox problems = new VBox(2);
    private final Label summary = new Label();
    private boolean updating;
    private final StageChooser stages;

    public ConfigForm(ConfigDocument document) {
        this.document = document;
        this.stages = new StageChooser(document, this::refreshFields);
        this.modelFields = new ModelFields(fields, model, () -> editInJson.run());
        setFitToWidth(true);
        setId("config-form");
        GridPane run = runFields();
        // the rows below the type are the chosen type's properties in the schema (ModelFields), rebuilt when it changes
        fields.choice(model, 0, "Model", () -> "model.type");
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
        fields.text(run, r++, "Run name", () -> "name", false);
        fields.text(run, r++, "Output folder", () -> "outputDir", false);
        fields.text(run, r++, "Seed", () -> "seed", false);
        fields.check(run, r, "Synchronized BatchNorm (across devices)", () -> "parallel.syncBatchNorm");
        return run;
    }

    private GridPane dataFields() {
        GridPane data = grid();
        int r = 0;
        fields.choice(data, r++, "Training data", () -> "data.train.type");
        int firstSourceField = fields.count();
        fields.text(data, r++, "Path", () -> "data.train.path", false);
        fields.text(data, r++, "Inputs", () -> "data.train.inputs", false);
        fields.text(data, r++, "Targets", () -> "data.train.targets", false);
        fields.text(data, r++, "Context (window)", () -> "data.train.context", false);
        fields.text(data, r++, "Stride", () -> "data.train.stride", false);
        fields.text(data, r++, "Limit (samples, 0 = all)", () -> "data.train.limit", false);
        shownForVariants(firstSourceField, "source", () -> "data.train.type");
        fields.text(data, r, "Validation split", () -> "data.validationSplit", false);
        return data;
    }

    /** The rows bound since {@code first} show only while {@code typePath} names a variant of {@code def} with them. */
    private void shownForVariants(int first, String def, Supplier<String> typePath) {
        fields.since(first).forEach(b -> {
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
        stage.add(stages.row(), 1, r++);
        String s = "stages[%d].";
        fields.text(stage, r++, "Stage name", () -> s.formatted(stages.selected()) + "name", false);
        fields.text(stage, r++, "Epochs", () -> s.formatted(stages.selected()) + "epochs", false);
        fields.text(stage, r++, "Batch size (per device)", () -> s.formatted(stages.selected()) + "batchSize", false);
        fields.choice(stage, r++, "Optimizer", () -> s.formatted(stages.selected()) + "optimizer.type");
        fields.text(
                stage, r++, "Learning rate", () -> s.formatted(stages.selected()) + "optimizer.learningRate", false);
        fields.text(stage, r++, "Weight decay", () -> s.formatted(stages.selected()) + "optimizer.weightDecay", false);
        fields.choice(stage, r++, "Schedule", () -> s.formatted(stages.selected()) + "schedule.type");
        int firstScheduleField = fields.count();
        fields.text(stage, r++, "Warmup steps", () -> s.formatted(stages.selected()) + "schedule.warmupSteps", false);
        fields.text(stage, r++, "Warmup epochs", () -> s.formatted(stages.selected()) + "schedule.warmupEpochs", false);
        fields.text(
                stage,
                r++,
                "Minimum learning rate",
                () -> s.formatted(stages.selected()) + "schedule.minLearningRate",
                false);
        fields.text(
                stage,
                r++,
                "Step every (epochs)",
                () -> s.formatted(stages.selected()) + "schedule.everyEpochs",
                false);
        fields.text(stage, r++, "Step factor (gamma)", () -> s.formatted(stages.selected()) + "schedule.gamma", false);
        shownForVariants(firstScheduleField, "schedule", () -> s.formatted(stages.selected()) + "schedule.type");
        fields.text(
                stage,
                r++,
                "Gradient clipping (max norm)",
                () -> s.formatted(stages.selected()) + "gradientClipping",
                false);
        fields.text(
                stage, r++, "Accumulation steps", () -> s.formatted(stages.selected()) + "accumulationSteps", false);
        fields.choice(stage, r++, "Precision", () -> s.formatted(stages.selected()) + "precision");
        int firstAugmentation = fields.count();
        fields.check(
                stage, r++, "Random 90° rotations", () -> s.formatted(stages.selected()) + "augmentation.rotate90");
        fields.check(
                stage, r++, "Horizontal flips", () -> s.formatted(stages.selected()) + "augmentation.flipHorizontal");
        fields.check(stage, r++, "Vertical flips", () -> s.formatted(stages.selected()) + "augmentation.flipVertical");
        fields.text(
                stage, r++, "Brightness (±)", () -> s.formatted(stages.selected()) + "augmentation.brightness", false);
        fields.text(stage, r++, "Contrast (±)", () -> s.formatted(stages.selected()) + "augmentation.contrast", false);
        fields.since(firstAugmentation).forEach(b -> imageOnly.add(b.control()));
        // a value in any of these turns the stage's weight average on
        fields.text(
                stage, r++, "Weight average (EMA) decay", () -> s.formatted(stages.selected()) + "ema.decay", false);
        fields.text(stage, r++, "EMA start step", () -> s.formatted(stages.selected()) + "ema.startStep", false);
        fields.text(stage, r, "EMA every (steps)", () -> s.formatted(stages.selected()) + "ema.everySteps", false);
        return stage;
    }

    private GridPane checkpointFields() {
        GridPane checkpoint = grid();
        fields.text(checkpoint, 0, "Checkpoint every (epochs)", () -> "checkpoint.everyEpochs", false);
        fields.text(checkpoint, 1, "Keep last", () -> "checkpoint.keepLast", false);
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

    /** Shows the JSON tab: how the window does it is passed in, so the form needs nothing of the window. */
    public void onEditInJson(Runnable action) {
        this.editInJson = action;
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

    private void refreshFields() {
        ObjectNode tree = JsonTree.parse(document.text());
        boolean usable = tree != null;
        updating = true;
        try {
            if (usable) {
                // a value the config sets stays in view, where it can be seen and removed
                variantFields.forEach((b, shownFor) -> fields.showRow(
                        b.control(),
                        shownFor.types()
                                        .contains(JsonTree.toText(JsonTree.get(
                                                tree, shownFor.typePath().get())))
                                || JsonTree.get(tree, b.path().get()) != null));
                if (modelFields.show(JsonTree.toText(JsonTree.get(tree, "model.type")))) {
                    showProblems(document.validationProperty().get());
                }
                stages.list(tree);
                fields.fill(tree);
            }
            fields.setDisable(!usable);
        } finally {
            updating = false;
        }
    }

    private void showProblems(ValidationResult result) {
        problems.getChildren().clear();
        fields.clearProblems();
        if (result == null) {
            summary.setText("");
            return;
        }
        // while the config does not validate its data may be the problem: every field stays in reach
        boolean images = !result.isValid() || result.config().data().train().isImage();
        imageOnly.forEach(c -> fields.showRow(c, images));
        for (ConfigProblem p : result.problems()) {
            Label line = new Label((p.isError() ? "✖ " : "⚠ ") + p);
            line.setWrapText(true);
            line.getStyleClass().add(p.isError() ? "problem-error" : "problem-warning");
            problems.getChildren().add(line);
            fields.mark(p);
        }
        summary.setText(
                result.isValid()
                        ? (result.warnings().isEmpty()
                                ? "✔ valid"
                                : "✔ valid, with " + result.warnings().size() + " warning(s)")
                        : "✖ " + result.errors().size() + " problem(s): Start is disabled until they are fixed");
        summary.getStyleClass().setAll("label", result.isValid() ? "summary-ok" : "summary-error");
    }

    /** The JSON paths of the fields in view now, in the form's order. */
    List<String> shownPaths() {
        return fields.shownPaths();
    }
}
