package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.sinks.FlushingSink;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.SinkKind;
import org.traindeck.engine.sinks.SinkKinds;

/** A new kind of run file is one sink class and one line in the sink list; the run opens it and feeds it its events. */
class ExtraSinkTest {

    /** The one class: keeps what it is given, in memory. */
    static final class RecordingSink extends FlushingSink {
        final List<EngineEvent> seen = new CopyOnWriteArrayList<>();
        final Path folder;
        final long restartStep;

        RecordingSink(RunFolder folder, long restartStep) {
            this.folder = folder.dir();
            this.restartStep = restartStep;
        }

        @Override
        protected void write(EngineEvent event) {
            seen.add(event);
        }

        @Override
        protected void flush() {}

        @Override
        protected void closeOutput() {}
    }

    @Test
    void aSinkAddedToTheListReceivesTheRunsEvents(@TempDir Path dir) throws IOException {
        RunConfig config = ConfigParser.parse("""
                {"name": "extra", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 50, "features": 3}}, "stages": [{"epochs": 2}]}
                """, dir).orThrow();
        RecordingSink[] opened = new RecordingSink[1];
        // the one registry line
        List<SinkKind> kinds = SinkKinds.with(
                SinkKind.of("recording", c -> true, (f, c, restart) -> opened[0] = new RecordingSink(f, restart)));

        RunResult result = TrainingRun.open(RunRequest.of(config)
                        .on(DeviceDiscovery.system())
                        .withFaults(RunFaults.NONE)
                        .opening(kinds))
                .runHere();

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        RecordingSink sink = opened[0];
        assertThat(sink.folder).isEqualTo(result.runDir());
        assertThat(sink.restartStep).isEqualTo(-1);
        assertThat(sink.seen)
                .filteredOn(e -> e instanceof MetricEvent m && m.name().equals("train/loss"))
                .isNotEmpty();
        assertThat(sink.seen)
                .filteredOn(e -> e instanceof LifecycleEvent)
                .extracting(e -> ((LifecycleEvent) e).kind())
                .startsWith(LifecycleEvent.Kind.RUN_STARTED)
                .endsWith(LifecycleEvent.Kind.RUN_FINISHED);
        // the standard sinks are still there
        assertThat(RunFolder.of(result.runDir()).metricsJsonl()).isRegularFile();
        assertThat(Files.readString(RunFolder.of(result.runDir()).status())).contains("\"extra\"");
    }

    @Test
    void aSinkTheConfigLeavesOffIsNotOpened(@TempDir Path dir) throws IOException {
        RunConfig config = ConfigParser.parse("""
                {"name": "off", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 50, "features": 3}}, "stages": [{"epochs": 1}]}
                """, dir).orThrow();
        List<SinkKind> kinds = SinkKinds.with(SinkKind.of("never", c -> false, (f, c, restart) -> {
            throw new IOException("a sink that is off must not be opened");
        }));

        assertThat(TrainingRun.open(RunRequest.of(config)
                                .on(DeviceDiscovery.system())
                                .withFaults(RunFaults.NONE)
                                .opening(kinds))
                        .runHere()
                        .status())
                .isEqualTo(RunResult.Status.FINISHED);
    }
}
