package org.traindeck.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/**
 * What the UI benches share: work run on the FX thread and waited for, and the intervals between painted frames (an
 * {@link AnimationTimer} is called once per pulse, so its intervals are what the user sees).
 */
final class FxFrames {

    private final List<Double> intervals = new ArrayList<>();
    private long last;
    private final AnimationTimer timer = new AnimationTimer() {
        @Override
        public void handle(long now) {
            if (last != 0) {
                intervals.add((now - last) / 1e6);
            }
            last = now;
        }
    };

    private FxFrames() {}

    /** Runs {@code work} on the FX thread and waits up to five minutes for its result. */
    static <T> T onFx(Callable<T> work) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                f.complete(work.call());
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
        });
        return f.get(300, TimeUnit.SECONDS);
    }

    /** Starts counting painted frames. */
    static FxFrames count() throws Exception {
        FxFrames frames = new FxFrames();
        onFx(() -> {
            frames.timer.start();
            return null;
        });
        return frames;
    }

    /** Stops counting; the milliseconds between the frames painted since {@link #count()}. */
    Stats stop() throws Exception {
        return onFx(() -> {
            timer.stop();
            return Stats.of(intervals.stream().mapToDouble(Double::doubleValue).toArray());
        });
    }
}
