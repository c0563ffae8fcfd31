package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;

/** {@code metrics.csv}: one row per metric event (lifecycle events go to the JSONL and the log). Appends. */
public final class CsvSink extends AppendingTextSink {

    public static final String HEADER = "time,elapsed,stage,stage_index,epoch,step,name,value,device";

    private boolean headerPending;

    public CsvSink(Path file) throws IOException {
        super(file);
        // the file exists now (opened for appending): a new or empty one gets the header with the first line
        headerPending = Files.size(file) == 0;
    }

    @Override
    protected void truncateAfter(Path file, long step) throws IOException {
        MetricFiles.truncateCsv(file, step);
    }

    @Override
    protected void append(EngineEvent event, Writer out) throws IOException {
        if (headerPending) {
            out.write(HEADER + "\n");
            headerPending = false;
        }
        if (!(event instanceof MetricEvent m)) {
            return;
        }
        StringBuilder row = new StringBuilder(96);
        Thousandths.append(row, m.wallTimeMillis()).append(',');
        Thousandths.append(row, Math.round(m.elapsedSeconds() * 1000))
                .append(',')
                .append(quote(m.stage()))
                .append(',')
                .append(m.stageIndex())
                .append(',')
                .append(m.epoch())
                .append(',')
                .append(m.step())
                .append(',')
                .append(quote(m.name()))
                .append(',')
                .append(m.value())
                .append(',')
                .append(m.device() == null ? "" : quote(m.device()))
                .append('\n');
        out.write(row.toString());
    }

    private static String quote(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
