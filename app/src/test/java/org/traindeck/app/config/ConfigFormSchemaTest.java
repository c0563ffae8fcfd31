package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javafx.scene.Scene;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.config.read.ConfigSchema;

/**
 * The form and the schema agree: the form offers exactly the schema's choices, shows its defaults where the config
 * leaves a value out, and marks a value just outside a bound the schema sets, never one just inside.
 */
@ExtendWith(ApplicationExtension.class)
class ConfigFormSchemaTest {

    /** The form's fields that hold numbers, by id, with the schema property each edits. */
    private static final Map<String, String> NUMBERS = Map.ofEntries(
            Map.entry("#field-seed", "seed"),
            Map.entry("#field-dropout", "model.dropout"),
            Map.entry("#field-validation-split", "data.validationSplit"),
            Map.entry("#field-epochs", "stages[0].epochs"),
            Map.entry("#field-batch-size-per-device", "stages[0].batchSize"),
            Map.entry("#field-learning-rate", "stages[0].optimizer.learningRate"),
            Map.entry("#field-weight-decay", "stages[0].optimizer.weightDecay"),
            Map.entry("#field-warmup-steps", "stages[0].schedule.warmupSteps"),
            Map.entry("#field-warmup-epochs", "stages[0].schedule.warmupEpochs"),
            Map.entry("#field-minimum-learning-rate", "stages[0].schedule.minLearningRate"),
            Map.entry("#field-limit-samples-0-all", "data.train.limit"),
            Map.entry("#field-gradient-clipping-max-norm", "stages[0].gradientClipping"),
            Map.entry("#field-accumulation-steps", "stages[0].accumulationSteps"),
            Map.entry("#field-brightness", "stages[0].augmentation.brightness"),
            Map.entry("#field-contrast", "stages[0].augmentation.contrast"),
            Map.entry("#field-weight-average-ema-decay", "stages[0].ema.decay"),
            Map.entry("#field-ema-start-step", "stages[0].ema.startStep"),
            Map.entry("#field-ema-every-steps", "stages[0].ema.everySteps"),
            Map.entry("#field-checkpoint-every-epochs", "checkpoint.everyEpochs"),
            Map.entry("#field-keep-last", "checkpoint.keepLast"));
    /** A step schedule's own fields: out of view for the warmupCosine schedule the config below has. */
    private static final Map<String, String> STEP_SCHEDULE = Map.of(
            "#field-step-every-epochs", "stages[0].schedule.everyEpochs",
            "#field-step-factor-gamma", "stages[0].schedule.gamma");
    /**
     * The config below is an MLP's: the Model section shows the MLP's fields only. The Data section holds every
     * source type's fields (a text source's context and stride, a numpy source's inputs and targets), each shown only
     * for the types whose schema has it.
     */
    private static final Set<String> TEXTS = Set.of(
            "#field-run-name",
            "#field-output-folder",
            "#field-hidden-layers-mlp",
            "#field-path",
            "#field-inputs",
            "#field-targets",
            "#field-context-window",
            "#field-stride",
            "#field-stage-name");

    private static final Map<String, String> CHOICES = Map.of(
            "#field-model",
            "model.type",
            "#field-activation",
            "model.activation",
            "#field-training-data",
            "data.train.type",
            "#field-optimizer",
            "stages[0].optimizer.type",
            "#field-schedule",
            "stages[0].schedule.type",
            "#field-precision",
            "stages[0].precision");

    private static final String CONFIG = """
            {"name": "agree", "model": {"type": "mlp", "hidden": [8]},
             "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}},
             "stages": [{"epochs": 1, "schedule": {"type": "warmupCosine"}}]}
            """;

    private ConfigDocument document;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        document.load(CONFIG, null);
        stage.setScene(new Scene(new ConfigForm(document), 500, 700));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    @Test
    void everyChoiceListIsTheSchemasAndALeftOutChoiceShowsItsDefault(FxRobot robot) {
        CHOICES.forEach((id, path) -> {
            @SuppressWarnings("unchecked")
            ComboBox<String> box = robot.lookup(id).queryAs(ComboBox.class);
            assertThat(onFx(() -> List.copyOf(box.getItems())))
                    .as(id)
                    .containsExactlyElementsOf(ConfigSchema.choices(path));
        });
        // the config above leaves these out: the form shows what the engine will use
        assertThat(onFx(() -> robot.lookup("#field-activation")
                        .queryAs(ComboBox.class)
                        .getValue()))
                .isEqualTo("relu");
        assertThat(onFx(() ->
                        robot.lookup("#field-optimizer").queryAs(ComboBox.class).getValue()))
                .isEqualTo("adam");
        assertThat(onFx(() ->
                        robot.lookup("#field-precision").queryAs(ComboBox.class).getValue()))
                .isEqualTo("float32");
    }

    @Test
    void everyEmptyFieldShowsTheSchemasDefaultAndEveryFieldIsCovered(FxRobot robot) {
        Set<String> ids = new TreeSet<>();
        robot.lookup(n ->
                        n instanceof TextField && n.getId() != null && n.getId().startsWith("field-"))
                .queryAll()
                .forEach(n -> ids.add("#" + n.getId()));
        Set<String> covered = new TreeSet<>(NUMBERS.keySet());
        covered.addAll(TEXTS);
        covered.addAll(STEP_SCHEDULE.keySet());
        assertThat(ids).as("every text field of the form is checked here").isEqualTo(covered);
        STEP_SCHEDULE.forEach((id, path) -> assertThat(
                        onFx(() -> robot.lookup(id).queryAs(TextField.class).getPromptText()))
                .as(id)
                .isEqualTo(ConfigSchema.defaultText(path)));
        NUMBERS.forEach((id, path) -> assertThat(
                        onFx(() -> robot.lookup(id).queryAs(TextField.class).getPromptText()))
                .as(id)
                .isEqualTo(ConfigSchema.defaultText(path)));
        assertThat(onFx(() -> robot.lookup("#field-batch-size-per-device")
                        .queryAs(TextField.class)
                        .getPromptText()))
                .isEqualTo("32");
        assertThat(onFx(() -> robot.lookup("#field-dropout")
                        .queryAs(TextField.class)
                        .getTooltip()
                        .getText()))
                .contains("≤ 0.95", "Default: 0");
    }

    /** For every bound of every number field, a value just inside is accepted and one just outside is marked. */
    @Test
    void everyBoundIsJudgedByTheFormAsTheSchemaSetsIt(FxRobot robot) {
        List<String> disagreements = new ArrayList<>();
        int tried = 0;
        for (Map.Entry<String, String> f : NUMBERS.entrySet()) {
            JsonNode p = ConfigSchema.property(f.getValue());
            boolean integer = p.path("type").asText().equals("integer");
            for (String bound : List.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")) {
                if (!p.has(bound)) {
                    continue;
                }
                double b = p.get(bound).asDouble();
                boolean lower = bound.endsWith("inimum");
                boolean exclusive = bound.startsWith("exclusive");
                double step = integer ? 1 : 0;
                double inside =
                        exclusive ? (integer ? b + (lower ? 1 : -1) : lower ? Math.nextUp(b) : Math.nextDown(b)) : b;
                double outside = exclusive
                        ? b
                        : lower ? (integer ? b - step : Math.nextDown(b)) : (integer ? b + step : Math.nextUp(b));
                for (double v : new double[] {inside, outside}) {
                    String text = integer ? Long.toString((long) v) : Double.toString(v);
                    boolean marked = typeAndValidate(robot, f.getKey(), text);
                    tried++;
                    if (marked != (v == outside)) {
                        disagreements.add(f.getKey() + " = " + text + " (" + bound + " " + p.get(bound) + "): the form "
                                + (marked ? "marks it" : "accepts it"));
                    }
                }
            }
            typeAndValidate(robot, f.getKey(), "");
        }
        assertThat(tried).as("bounds tried").isGreaterThan(20);
        assertThat(disagreements).isEmpty();
    }

    /** A bad value's reason is shown beside its field, not only in a tooltip, and goes once the value is fixed. */
    @Test
    void theReasonIsShownBesideTheField(FxRobot robot) {
        assertThat(typeAndValidate(robot, "#field-epochs", "0")).isTrue();
        Label reason = robot.lookup("#field-epochs-reason").queryAs(Label.class);
        assertThat(onFx(reason::isVisible)).isTrue();
        assertThat(onFx(reason::getText)).startsWith("✖ ").contains("1");
        TextField epochs = robot.lookup("#field-epochs").queryAs(TextField.class);
        // beside it: on the field's row, to its right
        waitUntil(
                "the reason beside the field",
                () -> reason.localToScene(reason.getLayoutBounds()).getMinX()
                        >= epochs.localToScene(epochs.getLayoutBounds()).getMaxX());

        assertThat(typeAndValidate(robot, "#field-epochs", "2")).isFalse();
        assertThat(onFx(reason::isVisible)).isFalse();
    }

    /** Only the options that apply: a text model's form has no image augmentations, an image model's has them. */
    @Test
    void imageAugmentationsShowOnlyForImageData(FxRobot robot) throws Exception {
        List<String> augmentations = List.of(
                "#field-random-90-rotations",
                "#field-horizontal-flips",
                "#field-vertical-flips",
                "#field-brightness",
                "#field-contrast");
        Path samples =
                Path.of("").toAbsolutePath().resolve("sample-configs").toFile().isDirectory()
                        ? Path.of("sample-configs").toAbsolutePath()
                        : Path.of("../sample-configs").toAbsolutePath();
        for (String sample : new String[] {"text-gpt.json", "digits-lenet-two-stages.json"}) {
            Path file = samples.resolve(sample);
            robot.interact(() -> document.load(readString(file), file));
            waitUntil(
                    "validation of " + sample,
                    () -> !document.validatingProperty().get()
                            && document.validationProperty().get() != null
                            && document.validationProperty().get().isValid());
            boolean image = sample.startsWith("digits");
            for (String id : augmentations) {
                assertThat(onFx(() -> robot.lookup(id).query().isVisible()))
                        .as("%s on %s", id, sample)
                        .isEqualTo(image);
            }
        }
    }

    /**
     * Every option of the gpt shorthand and of its text source has a field in view, and so has every value the
     * text-gpt sample sets (its weight decay, its schedule's minimum rate); what applies to other data (a numpy
     * source's inputs, image augmentations) is out of view.
     */
    @Test
    void everyOptionOfTheGptModelAndItsTextSourceHasAFieldAndOnlyThoseThatApplyShow(FxRobot robot) throws Exception {
        Path file = samples().resolve("text-gpt.json");
        robot.interact(() -> document.load(readString(file), file));
        waitUntil(
                "validation of text-gpt.json",
                () -> !document.validatingProperty().get()
                        && document.validationProperty().get() != null
                        && document.validationProperty().get().isValid());
        ConfigForm form = robot.lookup("#config-form").queryAs(ConfigForm.class);
        List<String> shown = onFx(form::shownPaths);

        Set<String> expected = new TreeSet<>();
        JsonNode schema = new ObjectMapper()
                .readTree(
                        ConfigSchema.class.getResourceAsStream("/org/traindeck/engine/config/run-config.schema.json"));
        variant(schema, "model", "gpt")
                .path("properties")
                .fieldNames()
                .forEachRemaining(k -> expected.add("model." + k));
        variant(schema, "source", "text")
                .path("properties")
                .fieldNames()
                .forEachRemaining(k -> expected.add("data.train." + k));
        leaves("", new ObjectMapper().readTree(file.toFile())).stream()
                .filter(p -> !p.startsWith("logging.") && !p.startsWith("checkpoint.monitor"))
                .forEach(expected::add);
        assertThat(shown).as("fields in view on text-gpt").containsAll(expected);
        assertThat(shown)
                .as("fields that do not apply to a text model")
                .doesNotContain(
                        "data.train.inputs",
                        "data.train.targets",
                        "stages[0].augmentation.rotate90",
                        "stages[0].augmentation.flipHorizontal",
                        "stages[0].augmentation.brightness");
        assertThat(onFx(() -> robot.lookup("#field-weight-decay")
                        .queryAs(TextField.class)
                        .getText()))
                .isEqualTo("0.01");
    }

    /** A schedule's own fields show for that schedule only: a constant rate has no warmup and no minimum rate. */
    @Test
    void aScheduleShowsOnlyItsOwnFields(FxRobot robot) {
        ConfigForm form = robot.lookup("#config-form").queryAs(ConfigForm.class);
        assertThat(onFx(form::shownPaths))
                .contains("stages[0].schedule.warmupSteps", "stages[0].schedule.minLearningRate");
        @SuppressWarnings("unchecked")
        ComboBox<String> schedule = robot.lookup("#field-schedule").queryAs(ComboBox.class);
        robot.interact(() -> schedule.setValue("constant"));
        waitUntil(
                "the warmup fields out of view",
                () -> onFx(form::shownPaths).stream().noneMatch(p -> p.contains("schedule.warmup")));
        assertThat(onFx(form::shownPaths))
                .doesNotContain(
                        "stages[0].schedule.minLearningRate",
                        "stages[0].schedule.warmupEpochs",
                        "stages[0].schedule.everyEpochs")
                .contains("stages[0].optimizer.weightDecay");
        assertThat(document.text()).contains("\"constant\"");

        // a step schedule: its step and factor, and nothing of the warmup
        robot.interact(() -> schedule.setValue("step"));
        waitUntil(
                "the step schedule's fields in view",
                () -> onFx(form::shownPaths)
                        .containsAll(List.of("stages[0].schedule.everyEpochs", "stages[0].schedule.gamma")));
        assertThat(onFx(form::shownPaths)).noneMatch(p -> p.contains("warmup") || p.contains("minLearningRate"));
    }

    private static JsonNode variant(JsonNode schema, String def, String type) {
        for (JsonNode v : schema.path("$defs").path(def).path("oneOf")) {
            if (v.path("properties").path("type").path("const").asText().equals(type)) {
                return v;
            }
        }
        throw new AssertionError("no " + type + " in the schema's " + def);
    }

    /** The paths of a config's values ("stages[0].optimizer.weightDecay"), each leaf once. */
    private static List<String> leaves(String prefix, JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node.isObject()) {
            node.fields()
                    .forEachRemaining(e -> out.addAll(
                            leaves(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue())));
        } else if (node.isArray() && node.size() > 0 && node.get(0).isObject()) {
            for (int i = 0; i < node.size(); i++) {
                out.addAll(leaves(prefix + "[" + i + "]", node.get(i)));
            }
        } else {
            out.add(prefix);
        }
        return out;
    }

    private static Path samples() {
        return Path.of("sample-configs").toFile().isDirectory()
                ? Path.of("sample-configs").toAbsolutePath()
                : Path.of("../sample-configs").toAbsolutePath();
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets a field's text as typing does, waits for the engine's verdict, and says whether the field is marked. */
    private boolean typeAndValidate(FxRobot robot, String id, String text) {
        TextField field = robot.lookup(id).queryAs(TextField.class);
        robot.interact(() -> field.setText(text));
        waitUntil(
                "validation of " + id + " = " + text,
                () -> !document.validatingProperty().get()
                        && document.validationProperty().get() != null);
        return onFx(() -> field.getStyleClass().contains("field-error"));
    }
}
