package org.traindeck.engine.sinks;

import java.io.IOException;
import java.util.function.Predicate;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EventListener;

/**
 * One kind of file a run writes from its events: the config switch that turns it on and how it opens in a run
 * folder. Every kind is listed once in {@link SinkKinds}, and a run opens each one its config turns on.
 */
public interface SinkKind {

    /** What a failure to write names to the user: a file or folder of the run. */
    String file();

    boolean on(RunConfig config);

    /**
     * Opens the sink in {@code folder} for the run {@code config} describes; {@code restartStep} is the checkpoint's step when a run resumes (its files go
     * on from there), else -1. A {@link FlushingSink} reports its write failures to the run.
     */
    EventListener open(RunFolder folder, RunConfig config, long restartStep) throws IOException;

    /** How a sink opens in a run folder. */
    @FunctionalInterface
    interface Opener {
        EventListener open(RunFolder folder, RunConfig config, long restartStep) throws IOException;
    }

    static SinkKind of(String file, Predicate<RunConfig> on, Opener opener) {
        return new SinkKind() {
            @Override
            public String file() {
                return file;
            }

            @Override
            public boolean on(RunConfig config) {
                return on.test(config);
            }

            @Override
            public EventListener open(RunFolder folder, RunConfig config, long restartStep) throws IOException {
                return opener.open(folder, config, restartStep);
            }

            @Override
            public String toString() {
                return "sink of " + file;
            }
        };
    }
}
