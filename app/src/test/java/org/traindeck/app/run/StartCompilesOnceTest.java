package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.scene.Scene;
import javafx.scene.layout.Pane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.train.state.StartWork;

/** Start in the app, after the summary has followed the config: the run compiles its model once and reads its data once. */
@ExtendWith(ApplicationExtension.class)
class StartCompilesOnceTest {

    @TempDir
    Path dir;

    private final AtomicInteger compiles = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();

    @Start
    void start(Stage stage) {
        stage.setScene(new Scene(new Pane(), 100, 100));
        stage.show();
    }

    @Test
    void aStartCompilesTheModelOnceAndReadsTheDataOnce(FxRobot robot) throws Exception {
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 48; i++) {
            rows.append(i % 7)
                    .append(',')
                    .append((i * 3) % 5)
                    .append(',')
                    .append(i % 2)
                    .append('\n');
        }
        Files.writeString(dir.resolve("rows.csv"), rows);
        String text = """
                {"name": "once", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "csv", "path": "rows.csv"}, "validationSplit": 0.25},
                 "stages": [{"name": "only", "epochs": 2, "batchSize": 8}]}
                """;
        Engine engine = Engine.local().telling(new StartWork() {
            @Override
            public void modelCompiled() {
                compiles.incrementAndGet();
            }

            @Override
            public void dataRead() {
                reads.incrementAndGet();
            }
        });
        RunController controller = new RunController(new Dashboard(), engine, new CurrentThreadTaskExecutor());
        engine.summarize(text, dir); // the model summary beside the editor, as the config was written
        int compilesBefore = compiles.get();
        int readsBefore = reads.get();
        ValidationResult parsed = Configs.parse(text, dir);

        robot.interact(() -> controller.start(parsed));
        waitUntil("the run to end", () -> controller.lastResultProperty().get() != null);

        RunResult result = onFx(() -> controller.lastResultProperty().get());
        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(compiles.get() - compilesBefore)
                .as("model compilations of the Start")
                .isEqualTo(1);
        assertThat(reads.get() - readsBefore).as("data reads of the Start").isEqualTo(1);
    }
}
