package org.traindeck.engine.api.sweeps;

import java.nio.file.Path;
import java.util.List;

/**
 * A sweep as its queue and its trials' folders record it: its name, metric and goal, its parameters in order, and its
 * trials, best first.
 */
public record Sweep(
        String name, String metric, boolean maximize, List<String> parameters, List<Trial> trials, Path queueFile) {}
