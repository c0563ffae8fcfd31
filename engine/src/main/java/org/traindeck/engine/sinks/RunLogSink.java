package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricTable;

/** {@code train.log}: a readable account of the run (lifecycle and epoch-level metrics), for people. Appends. */
public final class RunLogSink extends FlushingSink {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());
    private static final Set<String> EPOCH_METRICS =
            MetricTable.epochFigures().stream().map(Metric::name).collect(Collectors.toUnmodifiableSet());

    private final Writer out;

    public RunLogSink(Path file) throws IOException {
        this.out = Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Writes a line straight away (used for the run's header: devices, data, model). */
    public synchronized void line(String text) throws IOException {
        out.write(TIME.format(Instant.now()) + "  " + text + "\n");
        out.flush();
    }

    @Override
    protected synchronized void write(EngineEvent event) throws IOException {
        // the time is formatted only for the lines written: every step's metrics pass by here and are left out
        if (event instanceof LifecycleEvent l) {
            out.write(when(l) + "  " + l.kind() + "  [" + l.stage() + " epoch " + (l.epoch() + 1) + ", step " + l.step()
                    + "]  " + l.message() + "\n");
        } else if (event instanceof MetricEvent m && EPOCH_METRICS.contains(m.name())) {
            out.write(when(m) + "  " + m.name() + " = " + String.format(Locale.ROOT, "%.6g", m.value()) + "  ["
                    + m.stage() + " epoch " + (m.epoch() + 1) + ", step " + m.step() + "]\n");
        }
    }

    private static String when(EngineEvent event) {
        return TIME.format(Instant.ofEpochMilli(event.wallTimeMillis()));
    }

    @Override
    protected synchronized void flush() throws IOException {
        out.flush();
    }

    @Override
    protected synchronized void closeOutput() throws IOException {
        out.close();
    }
}
