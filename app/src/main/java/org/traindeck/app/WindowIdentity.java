package org.traindeck.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import javafx.beans.binding.Bindings;
import javafx.scene.image.Image;
import javafx.stage.Stage;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.engine.api.Engine;

/** What the window shows of itself: its icon, and a title that names the file, marked while it has unsaved changes. */
final class WindowIdentity {

    private WindowIdentity() {}

    static void dress(Stage stage, ConfigDocument document) {
        try (InputStream icon = MainWindow.class.getResourceAsStream("assets/traindeck.png")) {
            if (icon != null) {
                stage.getIcons().add(new Image(icon));
            }
        } catch (IOException e) {
            // no icon is not worth failing over
        }
        stage.titleProperty()
                .bind(Bindings.createStringBinding(
                        () -> {
                            Path f = document.fileProperty().get();
                            return (document.isDirty() ? "• " : "") + (f == null ? "untitled" : f.getFileName())
                                    + " — TrainDeck " + Engine.version();
                        },
                        document.fileProperty(),
                        document.dirtyProperty()));
    }
}
