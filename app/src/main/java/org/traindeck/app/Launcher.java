package org.traindeck.app;

import javafx.application.Application;
import org.slf4j.LoggerFactory;

/**
 * Entry point. With JavaFX on the class path (not the module path) the main class must not extend Application,
 * or the JavaFX runtime refuses to start: hence this launcher.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) {
        // initialise logging before threads race to it (SLF4J would otherwise replay their first messages with a
        // warning)
        LoggerFactory.getLogger(Launcher.class);
        Application.launch(TrainDeckApp.class, args);
    }
}
