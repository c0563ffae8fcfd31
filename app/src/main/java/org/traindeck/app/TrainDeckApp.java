package org.traindeck.app;

import javafx.application.Application;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.traindeck.engine.Version;

/** The TrainDeck window. For now a shell that shows which engine it runs; the dashboard comes next. */
public class TrainDeckApp extends Application {

    public static final String WINDOW_CLASS = "TrainDeck";

    @Override
    public void start(Stage stage) {
        Label title = new Label("TrainDeck");
        title.setId("title");
        title.setStyle("-fx-font-size: 22px; -fx-font-weight: bold;");
        Label version = new Label("Engine " + Version.get());
        version.setId("engine-version");
        Label hint = new Label("Headless training works today: ./traindeck train sample-configs/digits-mlp.json");
        VBox root = new VBox(8, title, version, hint);
        root.setPadding(new Insets(16));
        stage.setTitle("TrainDeck " + Version.get());
        stage.setScene(new Scene(root, 640, 240));
        stage.show();
    }
}
