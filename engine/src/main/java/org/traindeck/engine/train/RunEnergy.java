package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.devices.energy.EnergyFile;
import org.traindeck.engine.devices.energy.EnergyMeter;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.callback.EnergyByStage;
import org.traindeck.engine.train.state.RunEvents;

/**
 * A run's energy: the meter started with the run (or why none could be), its split by stage, and at the end the
 * metrics, run-log lines and the run folder's energy record.
 */
final class RunEnergy {

    private static final Duration GPU_INTERVAL = Duration.ofSeconds(1);
    /** Far more often than a RAPL counter wraps (minutes at full load). */
    private static final Duration CPU_INTERVAL = Duration.ofSeconds(10);

    private final RunEvents events;
    private final EnergyMeter meter;
    /** Why the run's energy is not measured when no meter started; null while one runs, or when none was asked for. */
    private final String unavailable;

    private final EnergyByStage byStage;

    private RunEnergy(RunEvents events, EnergyMeter meter, String unavailable) {
        this.events = events;
        this.meter = meter;
        this.unavailable = unavailable;
        this.byStage = meter == null ? null : new EnergyByStage(meter);
    }

    /** @param sources where the run's energy is read from; null: not measured */
    static RunEnergy start(
            EnergyMeter.Sources sources, RunConfig config, DeviceResolver.Resolved devices, RunEvents events) {
        if (sources == null) {
            return new RunEnergy(events, null, null);
        }
        if (config.parallel().onCluster()) {
            events.logLine(
                    "energy: not measured: a cluster run trains on its executors' machines, which this process does not meter");
            return new RunEnergy(events, null, "a cluster run's executors are not metered");
        }
        try {
            List<Integer> gpus = devices.gpus().stream().map(GpuInfo::index).toList();
            return new RunEnergy(events, new EnergyMeter(sources, gpus, GPU_INTERVAL, CPU_INTERVAL), null);
        } catch (RuntimeException e) {
            events.logLine("energy: not measured (" + e + ")");
            return new RunEnergy(events, null, "the energy meter did not start: " + e.getMessage());
        }
    }

    /** The callback that marks each stage's share of the energy; null when nothing is metered. */
    EnergyByStage byStage() {
        return byStage;
    }

    /**
     * The run's energy as metrics energy/<device>_wh, lines of the run log (a device that cannot be measured says why)
     * and the run folder's energy record, by stage, that the end-of-run line and the runs table read.
     */
    void report(Path runDir) {
        if (meter == null && unavailable == null) {
            return;
        }
        EnergyReport report;
        if (meter == null) {
            report = EnergyReport.unavailable(unavailable, List.of());
        } else {
            report = meter.stop();
            report = report.withStages(report.wattHours().isEmpty() ? List.of() : byStage.stages(report.total()));
            // run-wide figures (the name says the device), so that they are among the run's last metrics
            report.wattHours().forEach((device, wh) -> events.metric(EnergyReport.metricName(device), wh, null));
            events.logLine(report.line());
        }
        if (!report.stages().isEmpty()) {
            events.logLine(report.summary());
        }
        try {
            EnergyFile.write(RunFolder.of(runDir).energy(), report);
        } catch (IOException e) {
            events.logLine("energy: the record could not be written (" + e.getMessage() + "): " + report.summary());
        }
    }
}
