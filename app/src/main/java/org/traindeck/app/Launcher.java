package org.traindeck.app;

import java.util.logging.Logger;
import javafx.application.Application;
import org.slf4j.LoggerFactory;

/**
 * Entry point. With JavaFX on the class path (not the module path) the main class must not extend Application,
 * or the JavaFX runtime refuses to start: hence this launcher.
 */
public final class Launcher {

    /** What JavaFX prints on every start from the class path, which is how TrainDeck runs it (script and package). */
    static final String CLASS_PATH_WARNING = "Unsupported JavaFX configuration";

    /**
     * JavaFX's own logger, held here: java.util.logging keeps loggers weakly, and a collected one would come back
     * without the filter.
     */
    private static final Logger JAVAFX_LOGGER = Logger.getLogger("javafx");

    private Launcher() {}

    public static void main(String[] args) {
        // initialise logging before threads race to it (SLF4J would otherwise replay their first messages with a
        // warning)
        LoggerFactory.getLogger(Launcher.class);
        quietClassPathWarning();
        QuietDesktop.settingsInMemoryWithoutSessionBus();
        Application.launch(TrainDeckApp.class, args);
    }

    /**
     * Keeps the terminal clean on a normal start: the class-path warning says nothing a user can act on (the app is
     * tested as it runs); every other JavaFX message still comes through.
     */
    static void quietClassPathWarning() {
        JAVAFX_LOGGER.setFilter(r -> r.getMessage() == null || !r.getMessage().startsWith(CLASS_PATH_WARNING));
    }
}
