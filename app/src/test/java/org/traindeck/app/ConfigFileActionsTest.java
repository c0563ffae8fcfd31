package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.tasks.QueuedTaskExecutor;
import org.traindeck.app.ui.Dialogs;

/**
 * Open and Save read and write files through the task executor, never on the FX thread: until the executor has run
 * the work, the document is as it was; afterwards it shows the outcome.
 */
@ExtendWith(ApplicationExtension.class)
class ConfigFileActionsTest {

    @TempDir
    Path configFolder;

    private final TestDialogs dialogs = new TestDialogs();
    private final QueuedTaskExecutor tasks = new QueuedTaskExecutor();
    private ConfigDocument document;
    private ConfigFileActions files;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        files = new ConfigFileActions(
                document, dialogs, new AppPreferences(configFolder.resolve(AppPreferences.FILE)), tasks);
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    @Test
    void openReadsTheFileInTheBackgroundAndShowsItAfterwards(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("mine.json");
        Files.writeString(config, "{\"name\": \"mine\"}");
        robot.interact(() -> files.openFile(config));

        assertThat(tasks.pending()).isEqualTo(1);
        assertThat(onFx(() -> document.text())).isEmpty();
        assertThat(onFx(() -> document.fileProperty().get())).isNull();

        robot.interact(tasks::runAll);
        assertThat(onFx(() -> document.text())).isEqualTo("{\"name\": \"mine\"}");
        assertThat(onFx(() -> document.fileProperty().get())).isEqualTo(config.toAbsolutePath());
        assertThat(onFx(() -> document.isDirty())).isFalse();
        assertThat(onFx(() -> List.copyOf(files.recentMenu().getItems())))
                .singleElement()
                .satisfies(i -> assertThat(i.getText())
                        .isEqualTo(config.toAbsolutePath().toString()));
    }

    @Test
    void theUnsavedMarkerFollowsTheTextNotItsHistory(FxRobot robot) {
        robot.interact(() -> document.load("{\"name\": \"a\"}", null));
        robot.interact(() -> document.textProperty().set("{\"name\": \"ab\"}"));
        assertThat(onFx(() -> document.isDirty())).isTrue();
        // an undo brings back the loaded text: nothing is unsaved
        robot.interact(() -> document.textProperty().set("{\"name\": \"a\"}"));
        assertThat(onFx(() -> document.isDirty())).isFalse();
    }

    @Test
    void openWithUnsavedEditsOffersToSaveThemFirstThenOpens(FxRobot robot, @TempDir Path dir) throws Exception {
        Path mine = dir.resolve("mine.json");
        Path other = dir.resolve("other.json");
        Files.writeString(mine, "{\"name\": \"mine\"}");
        Files.writeString(other, "{\"name\": \"other\"}");
        robot.interact(() -> files.openFile(mine));
        robot.interact(tasks::runAll);
        robot.interact(() -> document.textProperty().set("{\"name\": \"edited\"}"));

        dialogs.unsaved = Dialogs.UnsavedChoice.SAVE;
        dialogs.toOpen = other;
        robot.interact(() -> files.openConfig());
        assertThat(List.copyOf(dialogs.asked)).contains("unsaved:Open another config?");
        robot.interact(tasks::runAll); // the save, then the open it allowed
        robot.interact(tasks::runAll);
        assertThat(Files.readString(mine)).isEqualTo("{\"name\": \"edited\"}");
        assertThat(onFx(() -> document.text())).isEqualTo("{\"name\": \"other\"}");
        assertThat(onFx(() -> document.isDirty())).isFalse();
    }

    @Test
    void aFileThatIsNotAConfigIsRefusedAndTheDocumentStays(FxRobot robot, @TempDir Path dir) throws Exception {
        Path image = dir.resolve("picture.png");
        Files.write(image, new byte[] {(byte) 0x89, 'P', 'N', 'G', (byte) 0xff, (byte) 0xfe, 0});
        robot.interact(() -> document.load("{\"name\": \"kept\"}", null));
        robot.interact(() -> files.openFile(image));
        robot.interact(tasks::runAll);

        assertThat(List.copyOf(dialogs.errors))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("picture.png is not text"));
        assertThat(onFx(() -> document.text())).isEqualTo("{\"name\": \"kept\"}");
        assertThat(onFx(() -> files.recentMenu().getItems().isEmpty())).isTrue();
    }

    @Test
    void saveWritesInTheBackgroundAndOnlyThenMarksTheDocumentSaved(FxRobot robot, @TempDir Path dir) throws Exception {
        Path target = dir.resolve("saved.json");
        dialogs.toSave = target;
        robot.interact(() -> {
            document.load("{\"name\": \"a\"}", null);
            document.textProperty().set("{\"name\": \"b\"}");
        });
        robot.interact(files::saveAs);

        assertThat(target).doesNotExist();
        assertThat(onFx(() -> document.isDirty())).isTrue();

        robot.interact(tasks::runAll);
        assertThat(Files.readString(target)).isEqualTo("{\"name\": \"b\"}");
        assertThat(onFx(() -> document.isDirty())).isFalse();
        assertThat(onFx(() -> document.fileProperty().get())).isEqualTo(target.toAbsolutePath());
    }

    @Test
    void anEditMadeWhileTheFileIsWrittenStaysUnsaved(FxRobot robot, @TempDir Path dir) throws Exception {
        Path target = dir.resolve("saved.json");
        dialogs.toSave = target;
        robot.interact(() -> {
            document.load("{\"name\": \"a\"}", null);
            document.textProperty().set("{\"name\": \"b\"}");
        });
        robot.interact(files::saveAs);
        robot.interact(() -> document.textProperty().set("{\"name\": \"c\"}"));
        robot.interact(tasks::runAll);

        assertThat(Files.readString(target)).isEqualTo("{\"name\": \"b\"}");
        assertThat(onFx(() -> document.text())).isEqualTo("{\"name\": \"c\"}");
        assertThat(onFx(() -> document.isDirty())).isTrue();
    }

    @Test
    void aFailedSaveSaysSoAndKeepsTheChanges(FxRobot robot, @TempDir Path dir) throws Exception {
        Path target = dir.resolve("no-such-folder").resolve("saved.json");
        dialogs.toSave = target;
        robot.interact(() -> {
            document.load("{\"name\": \"a\"}", null);
            document.textProperty().set("{\"name\": \"b\"}");
        });
        robot.interact(files::saveAs);
        robot.interact(tasks::runAll);

        assertThat(List.copyOf(dialogs.errors))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("still open here, unsaved"));
        assertThat(onFx(() -> document.isDirty())).isTrue();
        assertThat(onFx(() -> document.fileProperty().get())).isNull();
    }
}
