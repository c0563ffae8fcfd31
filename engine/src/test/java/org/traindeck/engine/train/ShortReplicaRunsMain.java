package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * {@code OUTPUT_DIR COUNT replicas}: trains {@code COUNT} short runs on "cpu:2" (synchronous all-reduce: two replicas
 * of the model stepping at once in this JVM) one after another; {@code OUTPUT_DIR COUNT pairs}: {@code COUNT} times two
 * runs on "cpu" at once (two models in one JVM, as concurrent sweep trials were). Each run in a new folder under
 * {@code OUTPUT_DIR}, "ok STATUS STEPS" printed per run. The process {@link ReplicaStressTest} starts, so that a native
 * crash ends only it.
 */
public final class ShortReplicaRunsMain {

    private ShortReplicaRunsMain() {}

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
        boolean pairs = args.length > 2 && args[2].equals("pairs");
        RunConfig one = pairs
                ? ConfigParser.revalidate(parsed.withDevices(DeviceSelection.CPU))
                        .orThrow()
                : parsed;
        for (int i = 0; i < count; i++) {
            List<TrainingRun> runs = new ArrayList<>();
            for (int r = 0; r < (pairs ? 2 : 1); r++) {
                runs.add(TrainingRun.open(RunRequest.of(one).on(DeviceDiscovery.system())));
            }
            runs.forEach(TrainingRun::start);
            for (TrainingRun run : runs) {
                RunResult r = run.await();
                System.out.println("ok " + r.status() + " " + r.steps());
            }
            System.out.flush();
        }
        System.exit(0);
    }
}
