package org.traindeck.engine.parallel;

import java.io.Serializable;
import java.util.List;

/**
 * Where the executors read their shards: every node reads the run's data itself, from the same paths as the driver
 * (storage every node reaches), so that a step sends the executors sample positions instead of samples.
 *
 * @param configJson     the run's config with absolute paths: executors load the stage's data exactly as the driver
 * @param stage          the stage (0-based) whose data a step's positions refer to
 * @param trainSamples   the training samples the driver loaded, which an executor's own loading must match
 * @param files          the files the stage's training data reads, as the driver saw them (validation runs on the
 *                       driver: executors never read a validation source)
 */
public record ShardData(String configJson, int stage, int trainSamples, List<DataFile> files) implements Serializable {

    public ShardData {
        files = List.copyOf(files);
    }

    /** How this machine's view of the files differs from the driver's ("cannot read /data/x.csv (…)"), or null. */
    public String problemHere() {
        for (DataFile f : files) {
            String problem = f.problemHere();
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }
}
