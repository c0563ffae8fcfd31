package org.traindeck.engine.sinks;

import java.util.ArrayList;
import java.util.List;

/** Every file a run writes from its events, in the order they are opened: a new sink is one line here. */
public final class SinkKinds {

    public static final List<SinkKind> ALL = List.of(
            SinkKind.of(RunFolder.STATUS, c -> true, (f, c, restart) -> new RunStatusSink(f.dir(), c.name())),
            SinkKind.of(
                    RunFolder.METRICS_JSONL,
                    c -> c.logging().jsonl(),
                    (f, c, restart) -> new JsonlSink(f.metricsJsonl())),
            SinkKind.of(RunFolder.METRICS_CSV, c -> c.logging().csv(), (f, c, restart) -> new CsvSink(f.metricsCsv())),
            SinkKind.of(
                    RunFolder.HISTOGRAMS,
                    c -> c.logging().layers().histogramsOn(),
                    (f, c, restart) -> new HistogramsJsonlSink(f.histograms())),
            SinkKind.of(
                    RunFolder.SAMPLES + "/",
                    c -> c.logging().samples().on(),
                    (f, c, restart) -> new SamplesFileSink(f.dir(), restart)),
            SinkKind.of("the TensorBoard file", c -> c.logging().tensorboard(), TensorBoardSink::openIn));

    private SinkKinds() {}

    /** The standard kinds and {@code more} after them (a test's own sink). */
    public static List<SinkKind> with(SinkKind... more) {
        List<SinkKind> kinds = new ArrayList<>(ALL);
        kinds.addAll(List.of(more));
        return List.copyOf(kinds);
    }
}
