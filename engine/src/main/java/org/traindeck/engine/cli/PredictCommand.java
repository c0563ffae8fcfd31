package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.use.predict.ArrayLayout;
import org.traindeck.engine.use.predict.ArrayOptions;
import org.traindeck.engine.use.predict.Generation;
import org.traindeck.engine.use.predict.PredictionReport;
import org.traindeck.engine.use.predict.PredictionRequest;

/**
 * {@code traindeck predict RUN_OR_CHECKPOINT INPUT... --out PATH}, or {@code --prompt TEXT} for a text model: the
 * predictions written (all files or none), a classifier's first few shown; a continuation printed as it is drawn.
 */
final class PredictCommand {

    private PredictCommand() {}

    record Options(
            Path model,
            List<Path> inputs,
            Path out,
            boolean ema,
            boolean force,
            boolean overlay,
            String prompt,
            int tokens,
            double temperature,
            int topK,
            long seed,
            Generation generation,
            String layout,
            double scale) {}

    /** --layout and --scale, checked: an unknown layout or a scale that is not a positive number is refused. */
    private static ArrayOptions arrays(Options o) {
        ArrayLayout layout = o.layout() == null ? null : ArrayLayout.parse(o.layout());
        if (o.layout() != null && layout == null) {
            throw new PredictionInputException(
                    "--layout takes " + ArrayLayout.choices() + ", not \"" + o.layout() + "\"");
        }
        if (!(o.scale() > 0) || Double.isInfinite(o.scale())) {
            throw new PredictionInputException(
                    "--scale divides every input value: a positive number, as 255 for 0–255 values, not " + o.scale());
        }
        return new ArrayOptions(layout, o.scale());
    }

    static int predict(Engine engine, Options o, PrintStream out, PrintStream err) {
        PredictionRequest request;
        try {
            request = o.prompt() != null
                    ? PredictionRequest.continuing(
                            o.model(),
                            o.ema(),
                            o.prompt(),
                            new Sampling(o.tokens(), o.temperature(), o.topK(), o.seed()),
                            o.out(),
                            o.force())
                    : PredictionRequest.onInputs(o.model(), o.ema(), o.inputs(), o.out(), o.force(), o.overlay())
                            .generating(o.generation())
                            .withArrays(arrays(o));
            if (o.prompt() != null && !o.inputs().isEmpty()) {
                throw new PredictionInputException("give either --prompt or inputs, not both");
            }
            boolean prompting = o.prompt() != null;
            // the prompt is printed with the first character drawn, so that a refused prompt prints nothing on stdout
            boolean[] started = {false};
            PredictionReport report = engine.trainedModels().predict(request, piece -> {
                if (!started[0]) {
                    out.print(o.prompt());
                    started[0] = true;
                }
                out.print(piece);
                out.flush();
            });
            if (prompting) {
                out.println(started[0] ? "" : o.prompt());
            }
            report.warnings().forEach(w -> err.println("warning: " + w));
            report.lines().forEach(out::println);
            for (Path file : report.written()) {
                out.println("wrote " + file);
            }
            return Main.OK;
        } catch (PredictionInputException | CheckpointException e) {
            err.println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        } catch (IOException e) {
            err.println("error: " + e.getMessage() + " (nothing was written)");
            return Main.RUN_FAILED;
        }
    }
}
