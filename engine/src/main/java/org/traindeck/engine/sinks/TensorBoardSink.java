package org.traindeck.engine.sinks;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.SamplesEvent;

/**
 * Writes metric events as TensorBoard scalars, histogram events as TensorBoard histograms and sample predictions as
 * images and text into a new {@code events.out.tfevents.*} file in {@code folder}
 * (a resumed run adds another file to the same folder). Per-device metrics get the device as the last tag part.
 */
public final class TensorBoardSink extends FlushingSink {

    private final Path file;
    private final OutputStream out;
    private final TfRecordWriter records;

    public TensorBoardSink(Path folder) throws IOException {
        Files.createDirectories(folder);
        long now = System.currentTimeMillis();
        String host = hostName();
        long pid = ProcessHandle.current().pid();
        Path candidate;
        int n = 0;
        do {
            candidate = folder.resolve("events.out.tfevents." + now / 1000 + "." + host + "." + pid + "." + n++);
        } while (Files.exists(candidate));
        this.file = candidate;
        this.out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.CREATE_NEW), 1 << 16);
        this.records = new TfRecordWriter(out);
        records.write(TfEventEncoder.fileVersion(now / 1000.0));
        out.flush();
    }

    /** Opens a new event file in the run's tensorboard/ folder, marking a restart when the run resumes at {@code restartStep} >= 0. */
    static TensorBoardSink openIn(RunFolder folder, RunConfig config, long restartStep) throws IOException {
        TensorBoardSink sink = new TensorBoardSink(folder.tensorboard());
        if (restartStep >= 0) {
            sink.markRestart(restartStep);
        }
        return sink;
    }

    /** Marks a restart at {@code step} (a resumed run) so that TensorBoard discards later points of the last attempt. */
    public void markRestart(long step) throws IOException {
        records.write(TfEventEncoder.sessionStart(System.currentTimeMillis() / 1000.0, step));
        out.flush();
    }

    public Path file() {
        return file;
    }

    @Override
    protected void write(EngineEvent event) throws IOException {
        if (event instanceof MetricEvent m && Double.isFinite(m.value())) {
            String tag = m.device() == null ? m.name() : m.name() + "/" + m.device();
            records.write(TfEventEncoder.scalar(m.wallTimeMillis() / 1000.0, m.step(), tag, (float) m.value()));
        } else if (event instanceof HistogramEvent h) {
            records.write(TfEventEncoder.histogram(
                    h.wallTimeMillis() / 1000.0,
                    h.step(),
                    h.tag(),
                    h.min(),
                    h.max(),
                    h.count(),
                    h.sum(),
                    h.sumSquares(),
                    h.bucketLimits(),
                    h.bucketCounts()));
        } else if (event instanceof SamplesEvent s) {
            writeSamples(s);
        } else if (event instanceof LifecycleEvent l) {
            if (l.kind() == LifecycleEvent.Kind.REWIND) {
                records.write(TfEventEncoder.sessionStart(l.wallTimeMillis() / 1000.0, l.step()));
            }
            flushNow();
        }
    }

    /** Each example's pictures on the Images tab and its labels or text on the Text tab, at the interval's step. */
    private void writeSamples(SamplesEvent s) throws IOException {
        double wall = s.wallTimeMillis() / 1000.0;
        for (SamplesEvent.Sample sample : s.samples()) {
            for (SamplesEvent.Picture p : sample.pictures()) {
                records.write(TfEventEncoder.image(
                        wall,
                        s.step(),
                        SamplesEvent.pictureTag(sample, p),
                        p.height(),
                        p.width(),
                        p.channels(),
                        p.png()));
            }
            String text = sample.markdown();
            if (!text.isEmpty()) {
                records.write(TfEventEncoder.text(wall, s.step(), SamplesEvent.textTag(sample), text));
            }
        }
        flushNow();
    }

    @Override
    protected void flush() throws IOException {
        out.flush();
    }

    @Override
    protected void closeOutput() throws IOException {
        out.close();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (IOException | UncheckedIOException e) {
            return "localhost";
        }
    }
}
