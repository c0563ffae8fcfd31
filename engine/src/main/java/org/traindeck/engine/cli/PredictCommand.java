package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.outputs.Sampling;
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
            Generation generation) {}

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
                            .generating(o.generation());
            if (o.prompt() != null && !o.inputs().isEmpty()) {
                throw new PredictionInputException("give either --prompt or inputs, not both");
            }
            boolean prompting = o.prompt() != null;
            // the prompt is printed with the first character drawn, so that a refused prompt prints nothing on stdout
            boolean[] started = {false};
            PredictionReport report = engine.predict(request, piece -> {
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
