package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;

/**
 * A metric file written line by line and appended to (a resumed run continues it). On a REWIND event the lines past
 * the event's step are dropped from the file before writing goes on, so every step appears once.
 */
abstract class AppendingTextSink extends FlushingSink {

    private final Path file;
    private Writer out;

    AppendingTextSink(Path file) throws IOException {
        this.file = file;
        this.out = open();
    }

    private Writer open() throws IOException {
        return Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Keeps the file's lines whose step is at most {@code step}. */
    protected abstract void truncateAfter(Path file, long step) throws IOException;

    /** Writes the event's line(s), if it has any. */
    protected abstract void append(EngineEvent event, Writer out) throws IOException;

    @Override
    protected final void write(EngineEvent event) throws IOException {
        if (event instanceof LifecycleEvent l && l.kind() == LifecycleEvent.Kind.REWIND) {
            out.close();
            truncateAfter(file, l.step());
            out = open();
        }
        append(event, out);
    }

    @Override
    protected final void flush() throws IOException {
        out.flush();
    }

    @Override
    protected final void closeOutput() throws IOException {
        out.close();
    }
}
