package org.traindeck.engine.api.sweeps;

import java.nio.file.Path;
import java.util.Map;
import org.traindeck.engine.api.queue.QueueEntry;

/**
 * One trial of a sweep: its values (parameter → value as written), how it stands, and the metric's best and last
 * (NaN: none).
 */
public record Trial(
        String label, Map<String, String> values, QueueEntry.Status status, double best, double last, Path runDir) {}
