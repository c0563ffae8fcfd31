package org.traindeck.engine.cli;

import java.time.Duration;
import java.util.Arrays;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.faults.FaultPlan;

/**
 * The CLI with failures injected, for tests that need a real process (signals, SIGKILL): options before the command
 * build the fault plan handed to the runs. {@code --pause-checkpoint-writes-ms M}, {@code --nan-at-step N},
 * {@code --stall-at-step N}, {@code --pause-validation-batches-ms M}; and {@code --stop-wait-s S}, the limit on the stop after a signal.
 */
public final class FaultInjectingMain {

    private FaultInjectingMain() {}

    public static void main(String[] args) {
        FaultPlan faults = FaultPlan.NONE;
        Duration stopLimit = Main.STOP_LIMIT;
        int i = 0;
        while (i + 1 < args.length && args[i].startsWith("--")) {
            long value = Long.parseLong(args[i + 1]);
            if (args[i].equals("--stop-wait-s")) {
                stopLimit = Duration.ofSeconds(value);
                i += 2;
                continue;
            }
            faults = switch (args[i]) {
                case "--pause-checkpoint-writes-ms" -> faults.pausingCheckpointWrites(value);
                case "--nan-at-step" -> faults.nanAtStep(value);
                case "--stall-at-step" -> faults.stallingAtStep(value);
                case "--pause-validation-batches-ms" -> faults.pausingValidationBatches(value);
                default -> throw new IllegalArgumentException("unknown fault option " + args[i]);
            };
            i += 2;
        }
        System.exit(new Main(
                        System.out,
                        System.err,
                        Engine.using(NvidiaSmi.system(), new OshiHostProbe(), faults),
                        stopLimit)
                .run(Arrays.copyOfRange(args, i, args.length)));
    }
}
