package org.traindeck.engine.sinks;

import java.io.IOException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;

/**
 * A file sink: buffered writes, flushed at most every quarter second and at every lifecycle event, so the files
 * follow the run closely without a system call per metric. A write error is logged once, reported to the failure
 * callback (which tells the user at once), and the sink stops writing; training is not interrupted by a full disk.
 */
public abstract class FlushingSink implements EventListener {

    private static final Logger LOG = LoggerFactory.getLogger(FlushingSink.class);
    private static final long FLUSH_INTERVAL_NANOS = 250_000_000L;

    private long lastFlush = System.nanoTime();
    private volatile IOException failure;
    private volatile Consumer<IOException> onFailure = e -> {};

    /** Who to tell, once, when this sink can no longer write. */
    public void onFailure(Consumer<IOException> callback) {
        this.onFailure = callback;
    }

    @Override
    public final void onEvent(EngineEvent event) {
        if (failure != null) {
            return;
        }
        try {
            write(event);
            if (event instanceof LifecycleEvent || System.nanoTime() - lastFlush > FLUSH_INTERVAL_NANOS) {
                flushNow();
            }
        } catch (IOException e) {
            failure = e;
            LOG.error("{} stopped writing: {}", getClass().getSimpleName(), e.getMessage());
            onFailure.accept(e);
        }
    }

    protected final void flushNow() throws IOException {
        flush();
        lastFlush = System.nanoTime();
    }

    @Override
    public final void onClose() {
        try {
            if (failure == null) {
                flush();
            }
            closeOutput();
        } catch (IOException e) {
            LOG.error("{} could not close: {}", getClass().getSimpleName(), e.getMessage());
        }
    }

    protected abstract void write(EngineEvent event) throws IOException;

    protected abstract void flush() throws IOException;

    protected abstract void closeOutput() throws IOException;
}
