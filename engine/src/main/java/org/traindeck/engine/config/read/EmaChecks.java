package org.traindeck.engine.config.read;

import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;

/** What a stage's weight average needs from the rest of the config. */
final class EmaChecks {

    static final String PREFIX = "val_ema/";

    private final Problems problems;

    EmaChecks(Problems problems) {
        this.problems = problems;
    }

    void check(RunConfig config) {
        boolean any = false;
        for (int i = 0; i < config.stages().size(); i++) {
            StageConfig stage = config.stages().get(i);
            if (stage.ema() == null) {
                continue;
            }
            any = true;
            // ParallelWrapper's devices each step on their own weights: there is no one set of weights after a step
            if (config.devices().maybeSeveral() && !config.parallel().synchronous()) {
                problems.error(
                        "stages[" + i + "].ema",
                        "needs the synchronous step, but parallel.mode is \""
                                + config.parallel().mode()
                                + "\": ParallelWrapper's devices step on weights of their own, so there is no one set of weights to average after"
                                + " a step. Use \"mode\": \"sync\" (the default) or one device");
            }
        }
        String monitor = config.checkpoint().monitor();
        if (!any && monitor != null && monitor.startsWith(PREFIX)) {
            problems.error(
                    "checkpoint.monitor",
                    "is \"" + monitor + "\", but no stage keeps a weight average: add \"ema\": {\"decay\": 0.999}"
                            + " to a stage, or monitor \"" + monitor.replace(PREFIX, "val/") + "\"");
        }
    }
}
