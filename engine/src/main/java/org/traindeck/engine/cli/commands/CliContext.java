package org.traindeck.engine.cli.commands;

import java.io.PrintStream;
import java.time.Duration;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;

/**
 * What every command is handed: where its output and its errors go, the engine it goes through (a test's has fake
 * devices or faults), and how long Ctrl-C or SIGTERM waits for a stop checkpoint.
 */
public record CliContext(PrintStream out, PrintStream err, Engine engine, Duration stopLimit) {

    /** Prints a config's errors and warnings; returns its config when it has no error, else null. */
    RunConfig report(ValidationResult result) {
        for (ConfigProblem p : result.problems()) {
            // detail lines (a list of choices) indented under the problem they belong to
            err.println((p.isError() ? "error: " : "warning: ") + p.toString().replace("\n", "\n    "));
        }
        return result.isValid() ? result.config() : null;
    }
}
