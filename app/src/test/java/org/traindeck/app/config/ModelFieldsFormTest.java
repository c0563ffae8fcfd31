package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.scrollIntoView;
import static org.traindeck.app.FxWait.waitUntil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The Model section follows the schema's variant for the config's model type: a ViT or GPT config gets its own fields
 * (none of the MLP's or LeNet's), a graph a summary and a way to the JSON tab; edits change only the value's text.
 */
@ExtendWith(ApplicationExtension.class)
class ModelFieldsFormTest {

    private ConfigDocument document;
    private final AtomicInteger jsonAsked = new AtomicInteger();

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        ConfigForm form = new ConfigForm(document);
        form.onEditInJson(jsonAsked::incrementAndGet);
        stage.setScene(new Scene(new ScrollPane(form), 600, 700));
        stage.show();
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    private static String sample(String name) throws IOException {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.isDirectory(here.resolve("sample-configs")) ? here : here.getParent();
        return Files.readString(root.resolve("sample-configs").resolve(name));
    }

    private String open(FxRobot robot, String name) throws IOException {
        String text = sample(name);
        robot.interact(() -> document.load(text, null));
        return text;
    }

    private static String textOf(FxRobot robot, String id) {
        return onFx(() -> robot.lookup(id).queryAs(TextField.class).getText());
    }

    private static boolean shown(FxRobot robot, String id) {
        return onFx(() -> robot.lookup(id).tryQuery().map(Node::isVisible).orElse(false));
    }

    private void typeInto(FxRobot robot, String id, String text) {
        TextField field = robot.lookup(id).queryAs(TextField.class);
        robot.interact(() -> scrollIntoView(field));
        robot.clickOn(field);
        robot.interact(field::selectAll);
        robot.write(text);
    }

    /** The data fields are the source's: a text source's context and stride, a NumPy source's inputs, no empty Path. */
    @Test
    void theDataFieldsAreTheSourcesOwn(FxRobot robot) throws IOException {
        open(robot, "text-gpt.json");
        assertThat(shown(robot, "#field-context-window")).isTrue();
        assertThat(textOf(robot, "#field-context-window")).isEqualTo("64");
        assertThat(textOf(robot, "#field-stride")).isEqualTo("16");
        assertThat(shown(robot, "#field-inputs")).isFalse();

        open(robot, "shapes-unet.json");
        // a NumPy source may have a context (token windows), never a stride
        assertThat(shown(robot, "#field-stride")).isFalse();
        assertThat(shown(robot, "#field-path")).as("a NumPy source has no path").isFalse();
        assertThat(shown(robot, "#field-inputs")).isTrue();
        assertThat(textOf(robot, "#field-inputs")).isNotEmpty();
    }

    /** A choice the config leaves out and the schema gives no default for (the kernel) is not an empty box. */
    @Test
    void aLeftOutKernelSaysItIsNotSet(FxRobot robot) throws IOException {
        for (String sample : new String[] {"digits-mlp.json", "fashion-vit.json", "text-gpt.json"}) {
            open(robot, sample);
            waitUntil(
                    "the kernel field of " + sample,
                    () -> robot.lookup("#field-kernel").tryQuery().isPresent());
            @SuppressWarnings("unchecked")
            ComboBox<String> kernel = robot.lookup("#field-kernel").queryAs(ComboBox.class);
            assertThat(onFx(kernel::getValue)).as(sample).isNull();
            waitUntil(
                    "the kernel box to say it is not set",
                    () -> kernel.getButtonCell() != null
                            && BoundFields.NOT_SET.equals(kernel.getButtonCell().getText()));
        }
    }

    @Test
    void aVitConfigShowsItsOwnFieldsAndAnEditChangesOnlyThatValue(FxRobot robot) throws IOException {
        String text = open(robot, "fashion-vit.json");
        assertThat(textOf(robot, "#field-patch")).isEqualTo("4");
        assertThat(textOf(robot, "#field-width")).isEqualTo("64");
        assertThat(textOf(robot, "#field-depth")).isEqualTo("2");
        assertThat(textOf(robot, "#field-heads")).isEqualTo("4");
        assertThat(textOf(robot, "#field-mlp-ratio")).isEqualTo("2");
        assertThat(onFx(() -> robot.lookup("#field-class-token")
                        .queryAs(CheckBox.class)
                        .isSelected()))
                .isTrue();
        assertThat(onFx(() -> robot.lookup("#field-depth")
                        .queryAs(TextField.class)
                        .getTooltip()
                        .getText()))
                .contains("Transformer blocks.", "≤ 64", "Default: 4.");
        assertThat(shown(robot, "#field-hidden-layers-mlp")).isFalse();
        assertThat(shown(robot, "#field-conv-channels-lenet")).isFalse();
        assertThat(shown(robot, "#field-activation"))
                .as("a ViT has no activation setting")
                .isFalse();
        // the schedule's warmup is in epochs here: shown as set, and the steps field left to its own
        assertThat(textOf(robot, "#field-warmup-epochs")).isEqualTo("0.3");
        assertThat(textOf(robot, "#field-warmup-steps")).isEmpty();

        typeInto(robot, "#field-depth", "3");
        waitUntil("the depth in the text", () -> document.text().contains("\"depth\": 3"));
        assertThat(onFx(document::text)).isEqualTo(text.replace("\"depth\": 2", "\"depth\": 3"));

        // a value the file leaves out goes after the object's last member, on its line
        typeInto(robot, "#field-dropout", "0.1");
        waitUntil("the dropout in the text", () -> document.text().contains("\"dropout\": 0.1"));
        assertThat(onFx(document::text))
                .isEqualTo(text.replace("\"depth\": 2", "\"depth\": 3")
                        .replace("\"classToken\": true }", "\"classToken\": true, \"dropout\": 0.1 }"));

        typeInto(robot, "#field-warmup-epochs", "0.25");
        waitUntil("the warmup in the text", () -> document.text().contains("\"warmupEpochs\": 0.25"));
        assertThat(onFx(document::text))
                .isEqualTo(text.replace("\"depth\": 2", "\"depth\": 3")
                        .replace("\"classToken\": true }", "\"classToken\": true, \"dropout\": 0.1 }")
                        .replace("\"warmupEpochs\": 0.3", "\"warmupEpochs\": 0.25"));
    }

    @Test
    void aGptConfigShowsItsFieldsWithItsOwnDefaults(FxRobot robot) throws IOException {
        open(robot, "text-gpt.json");
        assertThat(textOf(robot, "#field-width")).isEqualTo("64");
        assertThat(textOf(robot, "#field-depth")).isEqualTo("2");
        assertThat(textOf(robot, "#field-heads")).isEqualTo("4");
        assertThat(textOf(robot, "#field-mlp-ratio")).isEqualTo("4");
        assertThat(textOf(robot, "#field-dropout")).isEqualTo("0.1");
        assertThat(textOf(robot, "#field-warmup-epochs")).isEqualTo("0.5");
        // a ViT's width defaults to 64, a GPT's to 128: the prompt is the GPT's
        robot.interact(
                () -> robot.lookup("#field-width").queryAs(TextField.class).clear());
        waitUntil("the width out of the text", () -> !document.text().contains("\"width\""));
        assertThat(onFx(() ->
                        robot.lookup("#field-width").queryAs(TextField.class).getPromptText()))
                .isEqualTo("128");
        assertThat(onFx(document::text)).contains("\"model\": { \"type\": \"gpt\", \"depth\": 2,");
        assertThat(shown(robot, "#field-patch")).isFalse();
        assertThat(shown(robot, "#field-hidden-layers-mlp")).isFalse();
    }

    @Test
    void aGraphShowsASummaryAndTheWayToTheJsonTab(FxRobot robot) throws IOException {
        open(robot, "digits-graph.json");
        String layers =
                onFx(() -> robot.lookup("#field-layers").queryAs(Label.class).getText());
        assertThat(layers)
                .startsWith(
                        "8 entries: conv1 (conv2d), conv2 (conv2d), skip (add), pool (maxPool2d), conv3 (conv2d), …");
        assertThat(shown(robot, "#field-activation")).isFalse();
        assertThat(shown(robot, "#field-hidden-layers-mlp")).isFalse();
        robot.interact(() -> scrollIntoView(robot.lookup("#edit-in-json").query()));
        robot.clickOn("#edit-in-json");
        waitUntil("the JSON tab asked for", () -> jsonAsked.get() == 1);
    }

    @Test
    void choosingAnotherTypeShowsThatTypesFields(FxRobot robot) throws IOException {
        open(robot, "digits-mlp.json");
        assertThat(shown(robot, "#field-hidden-layers-mlp")).isTrue();
        assertThat(shown(robot, "#field-patch")).isFalse();
        @SuppressWarnings("unchecked")
        ComboBox<String> type = robot.lookup("#field-model").queryAs(ComboBox.class);
        robot.interact(() -> type.setValue("lenet"));
        waitUntil("the LeNet's fields", () -> shown(robot, "#field-conv-channels-lenet"));
        assertThat(shown(robot, "#field-hidden-layers-mlp")).isFalse();
        assertThat(onFx(() -> robot.lookup("#field-kernel-size")
                        .queryAs(TextField.class)
                        .getPromptText()))
                .isEqualTo("5");
    }
}
