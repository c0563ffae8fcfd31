package org.traindeck.engine.train;

import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceDiscovery;

import java.nio.file.Path;

/**
 * Trains {@code COUNT} short runs on "cpu:2" (synchronous all-reduce: two replicas of the model stepping at once in
 * this JVM) one after another, each in a new folder under {@code OUTPUT_DIR}, printing "ok STATUS STEPS" per run.
 * The process {@link ReplicaStressTest} starts, so that a native crash ends only it.
 */
public final class ShortReplicaRunsMain {

    private ShortReplicaRunsMain() {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        String config = """
                {"name": "stress", "outputDir": "%s", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [32, 32]},
                 "data": {"train": {"type": "synthetic", "samples": 512, "features": 16, "numClasses": 4}, "validationSplit": 0.1},
                 "logging": {"tensorboard": false, "csv": false},
                 "checkpoint": {"everyEpochs": 0, "keepLast": 1},
                 "stages": [{"epochs": 2, "batchSize": 16}]}
                """.formatted(out.toString().replace("\\", "\\\\"));
        RunConfig parsed = ConfigParser.parse(config, out).orThrow();
        for (int i = 0; i < count; i++) {
            RunResult r = TrainingRun.prepare(parsed, DeviceDiscovery.system()).runHere();
            System.out.println("ok " + r.status() + " " + r.steps());
            System.out.flush();
        }
        System.exit(0);
    }
}
