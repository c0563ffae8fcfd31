package org.traindeck.engine.sweep;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;

/**
 * Before a sweep queues anything, the checks a run makes before its first step (the model against the data, each
 * stage's fit in the devices' memory), on one trial of each distinct model, data, devices and batch: a trial that
 * could not start is refused now, not when the sweep reaches it, and values that leave those alone (a learning rate)
 * cost no second check.
 */
final class TrialStartChecks {

    private TrialStartChecks() {}

    /** @throws InvalidConfigException every trial's problem, a line each, naming the trial */
    static void refuseWhatCannotStart(List<SweepTrials.Trial> trials, Function<RunConfig, List<ConfigProblem>> check) {
        Set<List<Object>> checked = new HashSet<>();
        List<ConfigProblem> refused = new ArrayList<>();
        for (SweepTrials.Trial trial : trials) {
            RunConfig c = trial.config();
            if (!checked.add(whatACheckReads(c))) {
                continue;
            }
            String values = trial.values().entrySet().stream()
                    .map(v -> v.getKey() + " = " + v.getValue())
                    .collect(Collectors.joining(", "));
            for (ConfigProblem p : check.apply(c)) {
                refused.add(new ConfigProblem(
                        p.severity(),
                        p.path(),
                        "trial " + trial.label() + " (" + values + "): " + p.message(),
                        p.line(),
                        p.column()));
            }
        }
        if (!refused.isEmpty()) {
            throw new InvalidConfigException(refused);
        }
    }

    private static List<Object> whatACheckReads(RunConfig c) {
        List<Object> stages = c.stages().stream()
                .map(s -> (Object) Arrays.asList(s.batchSize(), s.accumulationSteps(), s.precision(), s.data()))
                .toList();
        return Arrays.asList(c.model(), c.data(), c.devices(), c.parallel(), c.seed(), stages);
    }
}
