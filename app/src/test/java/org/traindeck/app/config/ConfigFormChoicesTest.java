package org.traindeck.app.config;

import javafx.scene.Scene;
import javafx.scene.control.ComboBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.config.ConfigSchema;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The form offers exactly the choices the schema (and so the validator) allows. */
@ExtendWith(ApplicationExtension.class)
class ConfigFormChoicesTest {

    private ConfigDocument document;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        stage.setScene(new Scene(new ConfigForm(document), 500, 700));
        stage.show();
    }

    @Test
    void everyChoiceListIsTheSchemas(FxRobot robot) {
        Map<String, String> fields = Map.of("#field-model", "model.type", "#field-activation", "model.activation",
                "#field-training-data", "data.train.type", "#field-optimizer", "stages[].optimizer.type",
                "#field-schedule", "stages[].schedule.type", "#field-precision", "stages[].precision");
        fields.forEach((id, path) -> {
            @SuppressWarnings("unchecked")
            ComboBox<String> box = robot.lookup(id).queryAs(ComboBox.class);
            assertThat(List.copyOf(box.getItems())).as(id).containsExactlyElementsOf(ConfigSchema.choices(path));
        });
        document.shutdown();
    }
}
