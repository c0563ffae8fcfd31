package org.traindeck.engine.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.faults.FaultPlan;

/** Runs the CLI in-process with given devices, for tests in other packages. */
public final class MainAccess {

    public record Result(int exitCode, String stdout, String stderr) {}

    /** A valid config whose graph does not build: node "b" (line 6) cannot take node "a"'s output. */
    public static final String GRAPH_WITH_A_SHAPE_ERROR = """
            {
              "name": "shape",
              "outputDir": "runs",
              "model": { "type": "graph", "layers": [
                { "name": "a", "type": "dense", "units": 8 },
                { "name": "b", "type": "attention", "heads": 2 }
              ] },
              "data": { "train": { "type": "synthetic" } },
              "stages": [ { "epochs": 1 } ]
            }
            """;

    private MainAccess() {}

    /** The CLI as a user runs it, on this machine's devices. */
    public static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public static Result run(NvidiaSmi smi, HostProbe probe, String... args) {
        return run(Engine.using(smi, probe, FaultPlan.NONE), args);
    }

    /** The CLI on {@code engine} (a test's devices, with CUDA_VISIBLE_DEVICES given at the discovery's seam). */
    public static Result run(Engine engine, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        engine)
                .run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
