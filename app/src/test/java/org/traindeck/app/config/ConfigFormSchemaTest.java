package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.traindeck.engine.config.ConfigSchema;

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
            Map.entry("#field-warmup-steps", "stages[0].schedule.warmupSteps"),
            Map.entry("#field-warmup-epochs", "stages[0].schedule.warmupEpochs"),
            Map.entry("#field-gradient-clipping-max-norm", "stages[0].gradientClipping"),
            Map.entry("#field-accumulation-steps", "stages[0].accumulationSteps"),
            Map.entry("#field-brightness", "stages[0].augmentation.brightness"),
            Map.entry("#field-contrast", "stages[0].augmentation.contrast"),
            Map.entry("#field-weight-average-ema-decay", "stages[0].ema.decay"),
            Map.entry("#field-ema-start-step", "stages[0].ema.startStep"),
            Map.entry("#field-ema-every-steps", "stages[0].ema.everySteps"),
            Map.entry("#field-checkpoint-every-epochs", "checkpoint.everyEpochs"),
            Map.entry("#field-keep-last", "checkpoint.keepLast"));
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
        assertThat(ids).as("every text field of the form is checked here").isEqualTo(covered);
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
