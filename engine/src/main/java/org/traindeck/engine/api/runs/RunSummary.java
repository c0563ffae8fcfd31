package org.traindeck.engine.api.runs;

import java.nio.file.Path;

/**
 * One run of a run library, read from its own folder.
 *
 * @param status       running, finished, incomplete, stopped, failed, or interrupted (said running, but no process
 *                     holds its folder)
 * @param monitor      the metric its checkpoints are judged by (val/loss unless the config says otherwise)
 * @param best         that metric's best value (NaN when never measured)
 * @param last         its last value (NaN when never measured)
 * @param energyWh     the energy its devices used, all together (the energy/<device>_wh metrics; NaN when not measured)
 * @param energyNote   why there is no energy figure ("no RAPL counters or GPU power readings"); null when there is
 */
public record RunSummary(
        String name,
        Path folder,
        String status,
        long steps,
        String monitor,
        double best,
        double last,
        double elapsedSeconds,
        long startedMillis,
        double energyWh,
        String energyNote) {

    /** The energy as a table says it: "1.23 Wh", or "n/a (why)". */
    public String energyText() {
        return Double.isNaN(energyWh)
                ? "n/a (" + (energyNote == null ? EnergyReport.NOT_RECORDED : energyNote) + ")"
                : EnergyReport.format(energyWh);
    }
}
