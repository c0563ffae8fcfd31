package org.traindeck.bench;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.traindeck.app.StartupProbe;

/** The start-up baseline: an empty JavaFX window, measured by the same probe as TrainDeck's. */
public class MinimalFxApp extends Application {

    @Override
    public void start(Stage stage) {
        stage.setScene(new Scene(new StackPane(new Label("hello")), 1360, 860));
        stage.show();
        StartupProbe.reportAfterFirstFrame();
    }

    /** Not an Application subclass, so it starts with JavaFX on the class path. */
    public static final class Main {
        public static void main(String[] args) {
            Application.launch(MinimalFxApp.class, args);
        }
    }
}
