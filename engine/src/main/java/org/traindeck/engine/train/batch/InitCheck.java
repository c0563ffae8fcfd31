package org.traindeck.engine.train.batch;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.weights.InitReport;
import org.traindeck.engine.weights.StartingWeights;
import org.traindeck.engine.weights.WeightsException;

/**
 * A model's starting weights checked against the compiled model before anything runs: a file that cannot be read or
 * (strict) does not fit is an error at {@code model.init} (or a stage's own model's), nodes left at their
 * initialisation (not strict) a warning.
 */
public final class InitCheck {

    private InitCheck() {}

    public static ModelCheck.Checked with(ModelCheck.Checked checked, RunConfig config) {
        if (checked.conf() == null || !checked.result().isValid()) {
            return checked;
        }
        List<ConfigProblem> problems = new ArrayList<>();
        ConfigProblem first =
                problem(config.modelAt(0).init(), checked.conf(), config, config.modelPathAt(0) + ".init.from");
        if (first != null) {
            problems.add(first);
        }
        // a stage's own model starts from its own weights, checked against its own network
        for (ModelCheck.StageNetwork n : checked.stageNetworks()) {
            String at = config.modelPathAt(n.stage()) + ".init.from";
            ConfigProblem own = problem(config.modelAt(n.stage()).init(), n.conf(), config, at);
            if (own != null) {
                problems.add(own);
            }
        }
        return problems.isEmpty()
                ? checked
                : checked.withResult(checked.result().with(problems));
    }

    /** What the starting weights {@code init} say against the network {@code conf} builds; null when all fit. */
    private static ConfigProblem problem(
            InitConfig init, ComputationGraphConfiguration conf, RunConfig config, String at) {
        if (init == null) {
            return null;
        }
        try {
            ComputationGraph net = ModelCompiler.instantiate(conf.clone());
            InitReport report = StartingWeights.check(init, config.baseDir(), net);
            return report.keptNodes().isEmpty()
                    ? null
                    : new ConfigProblem(ConfigProblem.Severity.WARNING, at, report.summary(), 0, 0);
        } catch (WeightsException e) {
            return new ConfigProblem(ConfigProblem.Severity.ERROR, at, e.getMessage(), 0, 0);
        }
    }
}
