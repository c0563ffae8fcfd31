package org.traindeck.engine.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.use.predict.ArrayLayout;
import org.traindeck.engine.use.predict.ArrayOptions;
import org.traindeck.engine.use.predict.Generation;
import org.traindeck.engine.use.predict.PredictionReport;
import org.traindeck.engine.use.predict.PredictionRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck predict RUN_OR_CHECKPOINT INPUT... --out PATH}, or {@code --prompt TEXT} for a text model: the
 * predictions written (all files or none), a classifier's first few shown; a continuation printed as it is drawn.
 */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        description = "A trained model's predictions on new inputs "
                + "(.npy/.npz, image files or folders) to a .npy, a .csv of classes or a folder of PNG masks; for a text model, "
                + "a continuation of --prompt. See docs/cli.md.")
final class PredictCommand implements Callable<Integer> {
    private final CliContext cli;

    @Parameters(index = "0", paramLabel = "RUN_DIR|CHECKPOINT")
    Path model;

    @Parameters(
            index = "1..*",
            paramLabel = "INPUT",
            arity = "0..*",
            description = "x.npy, data.npz[:name], images or folders of images")
    List<Path> inputs = List.of();

    @Option(
            names = "--out",
            paramLabel = "PATH",
            description = "predictions.npy (and .classes.npy), classes.csv, or a folder for PNG masks")
    Path out;

    @Option(names = "--ema", description = "use the stage's weight average instead of its last weights")
    boolean ema;

    @Option(names = "--force", description = "replace an existing --out")
    boolean force;

    @Option(
            names = "--overlay",
            description = "with a folder of masks: also each input with its mask over it (<name>.overlay.png)")
    boolean overlay;

    @Option(names = "--prompt", paramLabel = "TEXT", description = "a text model: continue this text")
    String prompt;

    @Option(
            names = "--tokens",
            paramLabel = "N",
            defaultValue = "200",
            description = "characters to generate (default: ${DEFAULT-VALUE})")
    int tokens;

    @Option(
            names = "--temperature",
            paramLabel = "T",
            defaultValue = "1.0",
            description = "0: always the most likely; 1: the model's distribution (default: ${DEFAULT-VALUE})")
    double temperature;

    @Option(
            names = "--top-k",
            paramLabel = "K",
            defaultValue = "0",
            description = "draw among the K most likely characters; 0: all (default: ${DEFAULT-VALUE})")
    int topK;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "0",
            description =
                    "the same seed gives the same text, or the same generated samples (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--layout",
            paramLabel = "LAYOUT",
            description = "NumPy images and volumes, in and out: channelsLast [N, H, W, C] or channelsFirst "
                    + "[N, C, H, W] (default: as each file's shape says; outputs as the inputs)")
    String layout;

    @Option(
            names = "--scale",
            paramLabel = "S",
            defaultValue = "1",
            description =
                    "divide every NumPy input value by S first, e.g. 255 for 0–255 values (default: ${DEFAULT-VALUE})")
    double scale;

    @Option(
            names = "--count",
            paramLabel = "N",
            defaultValue = "0",
            description = "an unconditional diffusion model: the samples to generate")
    int count;

    @Option(
            names = "--steps",
            paramLabel = "S",
            defaultValue = "50",
            description = "a diffusion model: the denoising steps (default: ${DEFAULT-VALUE})")
    int steps;

    @Option(
            names = "--sampler",
            paramLabel = "NAME",
            defaultValue = "ddim",
            description = "a diffusion model: ddim (deterministic, η = 0) or ddpm (default: ${DEFAULT-VALUE})")
    String sampler;

    @Option(
            names = "--all-stages",
            description = "a diffusion cascade: also write each lower stage's samples beside --out (OUT-<stage>.npy)")
    boolean allStages;

    PredictCommand(CliContext cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        try {
            PredictionRequest request = request();
            if (prompt != null && !inputs.isEmpty()) {
                throw new PredictionInputException("give either --prompt or inputs, not both");
            }
            PredictionReport report = predict(request);
            report.warnings().forEach(w -> cli.err().println("warning: " + w));
            report.lines().forEach(cli.out()::println);
            for (Path file : report.written()) {
                cli.out().println("wrote " + file);
            }
            return ExitCodes.OK;
        } catch (PredictionInputException | CheckpointException e) {
            cli.err().println("error: " + e.getMessage());
            return ExitCodes.INVALID_INPUT;
        } catch (IOException e) {
            cli.err().println("error: " + e.getMessage() + " (nothing was written)");
            return ExitCodes.RUN_FAILED;
        }
    }

    private PredictionRequest request() {
        return prompt != null
                ? PredictionRequest.continuing(
                        model, ema, prompt, new Sampling(tokens, temperature, topK, seed), out, force)
                : PredictionRequest.onInputs(model, ema, inputs, out, force, overlay)
                        .generating(new Generation(count, steps, sampler, seed, allStages))
                        .withArrays(arrays());
    }

    /** The predictions, a text model's continuation printed as it is drawn. */
    private PredictionReport predict(PredictionRequest request) throws CheckpointException, IOException {
        PrintStream stdout = cli.out();
        // the prompt is printed with the first character drawn, so that a refused prompt prints nothing on stdout
        boolean[] started = {false};
        PredictionReport report = cli.engine().trainedModels().predict(request, piece -> {
            if (!started[0]) {
                stdout.print(prompt);
                started[0] = true;
            }
            stdout.print(piece);
            stdout.flush();
        });
        if (prompt != null) {
            stdout.println(started[0] ? "" : prompt);
        }
        return report;
    }

    /** --layout and --scale, checked: an unknown layout or a scale that is not a positive number is refused. */
    private ArrayOptions arrays() {
        ArrayLayout arrayLayout = layout == null ? null : ArrayLayout.parse(layout);
        if (layout != null && arrayLayout == null) {
            throw new PredictionInputException("--layout takes " + ArrayLayout.choices() + ", not \"" + layout + "\"");
        }
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw new PredictionInputException(
                    "--scale divides every input value: a positive number, as 255 for 0–255 values, not " + scale);
        }
        return new ArrayOptions(arrayLayout, scale);
    }
}
