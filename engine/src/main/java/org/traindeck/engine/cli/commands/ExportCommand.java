package org.traindeck.engine.cli.commands;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.WeightsExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code traindeck export RUN_OR_CHECKPOINT --format safetensors|npz [--ema] --out FILE [--force]}. */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        description = "Write a trained model's weights for PyTorch and "
                + "NumPy: names such as fc1.weight in PyTorch's layouts, the graph as JSON (docs/export.md).")
final class ExportCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(paramLabel = "RUN_OR_CHECKPOINT", description = "a run folder (its best checkpoint) or a .tdckpt file")
    Path source;

    @Option(
            names = "--format",
            paramLabel = "F",
            required = true,
            description = "safetensors or npz (npz: the graph in a .json beside it)")
    String format;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            required = true,
            description = "the file to write, ending in .safetensors or .npz")
    Path out;

    @Option(names = "--ema", description = "the stage's weight average instead of its last weights")
    boolean ema;

    @Option(names = "--force", description = "replace an existing file")
    boolean force;

    ExportCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        try {
            WeightsExport.Written w =
                    cli.engine().trainedModels().export(source, ExportFormat.parse(format), ema, out, force);
            cli.out()
                    .println(String.format(
                            Locale.ROOT,
                            "wrote %s: %d tensors, %,d parameters (float32)%s",
                            w.weights(),
                            w.tensors().size(),
                            w.parameterCount(),
                            ema ? ", the weight average" : ""));
            cli.out()
                    .println(
                            w.graphFile() != null
                                    ? "the graph: " + w.graphFile()
                                    : "the graph: in the file's __metadata__ under \"" + WeightsExport.GRAPH_KEY
                                            + "\"");
            return ExitCodes.OK;
        } catch (CheckpointException | ExportException e) {
            cli.err().println("error: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
    }
}
