package org.traindeck.engine.api;

import java.io.IOException;
import java.util.List;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.sweep.SweepLaunch;
import org.traindeck.engine.sweep.SweepResults;

/**
 * How a sweep's trials stand, read from its queue.
 *
 * @param table       the results table, best first, as {@code traindeck sweep} prints it at the end
 * @param notes       a line on each trial that failed or has not run
 * @param allFinished whether every trial trained to its end
 */
public record SweepReport(String table, List<String> notes, boolean allFinished) {

    public SweepReport {
        notes = List.copyOf(notes);
    }

    static SweepReport of(SweepLaunch sweep) throws IOException {
        List<QueueEntry> entries = RunQueue.open(sweep.queueFile()).entries();
        List<SweepResults.Row> rows = SweepResults.rows(sweep.spec(), sweep.trials(), entries);
        return new SweepReport(
                SweepResults.table(sweep.spec(), rows),
                SweepResults.notes(rows, entries),
                rows.stream().allMatch(r -> r.status() == QueueEntry.Status.FINISHED));
    }
}
