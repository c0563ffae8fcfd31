package org.traindeck.app;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javafx.application.Platform;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.ScrollPane;
import org.testfx.util.WaitForAsyncUtils;

/** Waiting on and reading FX state from a test, always on the FX thread. */
public final class FxWait {

    private FxWait() {}

    /**
     * How long a wait may last before the test fails: only a guard against a hang. A tighter bound (they were 5 to
     * 15 s) is a timing assumption that a busy two-core machine breaks.
     */
    static final int HANG_SECONDS = 180;

    /**
     * Polls the condition on the FX thread (FX state read from the test thread can be half-updated or throw
     * ConcurrentModificationException) until it holds, or fails after {@link #HANG_SECONDS}.
     */
    public static void waitUntil(String what, BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor(HANG_SECONDS, TimeUnit.SECONDS, () -> onFx(condition::getAsBoolean));
        } catch (TimeoutException e) {
            throw new AssertionError("timed out after " + HANG_SECONDS + " s waiting for " + what);
        }
    }

    /** Reads FX state on the FX thread, so that the test never sees a half-applied update. */
    public static <T> T onFx(Callable<T> read) {
        if (Platform.isFxApplicationThread()) {
            try {
                return read.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        try {
            return WaitForAsyncUtils.asyncFx(read).get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (TimeoutException e) {
            throw new AssertionError("the FX thread did not answer within " + HANG_SECONDS + " s");
        }
    }

    /** Scrolls the scroll panes around {@code node} so that it is on screen, as a user would before clicking it. */
    public static void scrollIntoView(Node node) {
        for (Node n = node.getParent(); n != null; n = n.getParent()) {
            if (n instanceof ScrollPane pane && pane.getContent() != null) {
                Node content = pane.getContent();
                Bounds inContent = content.sceneToLocal(node.localToScene(node.getBoundsInLocal()));
                double extra = content.getBoundsInLocal().getHeight()
                        - pane.getViewportBounds().getHeight();
                if (extra > 0) {
                    double top = Math.max(
                            0, inContent.getMinY() - pane.getViewportBounds().getHeight() / 3);
                    pane.setVvalue(pane.getVmin() + Math.min(1, top / extra) * (pane.getVmax() - pane.getVmin()));
                }
                pane.layout();
            }
        }
    }
}
