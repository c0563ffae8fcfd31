package org.traindeck.app;

import java.util.concurrent.CompletableFuture;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.util.Duration;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ValidationResult;

/**
 * The --start and --smoke-test options: a run starts as soon as the config is valid and the devices are known,
 * looked at again every 100 ms on the FX thread until then.
 */
final class StartWhenReady {

    private StartWhenReady() {}

    /** Completes with the run's result, or exceptionally when the config is invalid. */
    static CompletableFuture<RunResult> start(TabContext c, DeviceFeeds deviceFeeds) {
        CompletableFuture<RunResult> done = new CompletableFuture<>();
        Runnable attempt = new Runnable() {
            @Override
            public void run() {
                ValidationResult v = c.document().validationProperty().get();
                boolean ready = v != null
                        && !c.document().validatingProperty().get()
                        && deviceFeeds.inventory().isDone();
                if (!ready) {
                    PauseTransition wait = new PauseTransition(Duration.millis(100));
                    wait.setOnFinished(e -> run());
                    wait.play();
                    return;
                }
                if (!v.isValid()) {
                    done.completeExceptionally(new IllegalStateException("the config is invalid: " + v.errors()));
                    return;
                }
                c.controller().lastResultProperty().addListener((o, a, r) -> {
                    if (r != null) {
                        done.complete(r);
                    }
                });
                c.runActions().start();
            }
        };
        Platform.runLater(attempt);
        return done;
    }
}
