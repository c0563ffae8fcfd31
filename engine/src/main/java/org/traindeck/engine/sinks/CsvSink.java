package org.traindeck.engine.sinks;

import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** {@code metrics.csv}: one row per metric event (lifecycle events go to the JSONL and the log). Appends. */
public final class CsvSink extends FlushingSink {

    public static final String HEADER = "time,elapsed,stage,stage_index,epoch,step,name,value,device";

    private final Path file;
    private Writer out;

    public CsvSink(Path file) throws IOException {
        this.file = file;
        boolean fresh = !Files.exists(file) || Files.size(file) == 0;
        this.out = open(file);
        if (fresh) {
            out.write(HEADER + "\n");
        }
    }

    private static Writer open(Path file) throws IOException {
        return Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Override
    protected void write(EngineEvent event) throws IOException {
        if (event instanceof org.traindeck.engine.events.LifecycleEvent l && l.kind() == org.traindeck.engine.events.LifecycleEvent.Kind.REWIND) {
            out.close();
            MetricFiles.truncateCsv(file, l.step());
            out = open(file);
            return;
        }
        if (!(event instanceof MetricEvent m)) {
            return;
        }
        StringBuilder row = new StringBuilder(96);
        row.append(java.math.BigDecimal.valueOf(m.wallTimeMillis(), 3).toPlainString()).append(',')
                .append(java.math.BigDecimal.valueOf(Math.round(m.elapsedSeconds() * 1000), 3).toPlainString()).append(',')
                .append(quote(m.stage())).append(',')
                .append(m.stageIndex()).append(',')
                .append(m.epoch()).append(',')
                .append(m.step()).append(',')
                .append(quote(m.name())).append(',')
                .append(m.value()).append(',')
                .append(m.device() == null ? "" : quote(m.device())).append('\n');
        out.write(row.toString());
    }

    private static String quote(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    @Override
    protected void flush() throws IOException {
        out.flush();
    }

    @Override
    protected void closeOutput() throws IOException {
        out.close();
    }
}
