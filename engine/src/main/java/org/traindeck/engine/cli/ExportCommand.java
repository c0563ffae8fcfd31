package org.traindeck.engine.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.WeightsExport;

/** {@code traindeck export RUN_OR_CHECKPOINT --format safetensors|npz [--ema] --out FILE [--force]}. */
final class ExportCommand {

    private ExportCommand() {}

    static int run(
            Engine engine,
            Path source,
            String formatName,
            boolean ema,
            Path out,
            boolean force,
            PrintStream stdout,
            PrintStream err) {
        try {
            ExportFormat format = ExportFormat.parse(formatName);
            WeightsExport.Written w = engine.trainedModels().export(source, format, ema, out, force);
            stdout.println(String.format(
                    Locale.ROOT,
                    "wrote %s: %d tensors, %,d parameters (float32)%s",
                    w.weights(),
                    w.tensors().size(),
                    w.parameterCount(),
                    ema ? ", the weight average" : ""));
            stdout.println(
                    w.graphFile() != null
                            ? "the graph: " + w.graphFile()
                            : "the graph: in the file's __metadata__ under \"" + WeightsExport.GRAPH_KEY + "\"");
            return Main.OK;
        } catch (CheckpointException | ExportException e) {
            err.println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
    }
}
