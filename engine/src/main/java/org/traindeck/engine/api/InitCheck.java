package org.traindeck.engine.api;

import java.util.List;
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
 * (strict) does not fit is an error at {@code model.init}, nodes left at their initialisation (not strict) a warning.
 */
final class InitCheck {

    static final String PATH = "model.init.from";

    private InitCheck() {}

    static ModelCheck.Checked with(ModelCheck.Checked checked, RunConfig config) {
        InitConfig init = config.model().init();
        if (init == null || checked.conf() == null || !checked.result().isValid()) {
            return checked;
        }
        ConfigProblem problem;
        try {
            ComputationGraph net = ModelCompiler.instantiate(checked.conf().clone());
            InitReport report = StartingWeights.check(init, config.baseDir(), net);
            if (report.keptNodes().isEmpty()) {
                return checked;
            }
            problem = new ConfigProblem(ConfigProblem.Severity.WARNING, PATH, report.summary(), 0, 0);
        } catch (WeightsException e) {
            problem = new ConfigProblem(ConfigProblem.Severity.ERROR, PATH, e.getMessage(), 0, 0);
        }
        return checked.withResult(checked.result().with(List.of(problem)));
    }
}
