package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.data.Augmenter;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.graph.GraphProblemsException;
import org.traindeck.engine.model.graph.NodeProblem;

/**
 * Checks what the config alone cannot tell: the model against the data's real shape, node by node, before anything
 * runs. The problems are located in the config's text like the reader's own.
 */
public final class ModelCheck {

    private ModelCheck() {}

    /** What the check found: the result (with the model's problems), and the compiled model's summary when it built. */
    public record Checked(
            ValidationResult result, ModelSummary summary, ComputationGraphConfiguration conf, ModelInput input) {

        public Checked(ValidationResult result, ModelSummary summary) {
            this(result, summary, null, null);
        }
    }

    public static Checked checkWithSummary(ValidationResult parsed) {
        return checkWithSummary(parsed, LayerKinds.standard());
    }

    /** As {@link #checkWithSummary(ValidationResult)}, with the layer types {@code kinds}. */
    public static Checked checkWithSummary(ValidationResult parsed, LayerKinds kinds) {
        if (!parsed.isValid()) {
            return new Checked(parsed, null);
        }
        RunConfig config = parsed.config();
        DataLoader.Loaded data;
        try {
            data = DataLoader.load(config, config.data(), "data");
        } catch (InvalidConfigException e) {
            return new Checked(parsed.with(e.problems()), null);
        }
        try (data) {
            return compile(parsed, config, data.train(), data.train().toString(), kinds);
        }
    }

    /**
     * As {@link #checkWithSummary(ValidationResult)}, against training data read before (or a stand-in of its shape,
     * described as {@code described}): reads no file, so a summary can follow every edit of the model.
     */
    public static Checked checkAgainst(ValidationResult parsed, Dataset train, String described) {
        if (!parsed.isValid()) {
            return new Checked(parsed, null);
        }
        return compile(parsed, parsed.config(), train, described, LayerKinds.standard());
    }

    private static Checked compile(
            ValidationResult parsed, RunConfig config, Dataset train, String described, LayerKinds kinds) {
        List<ConfigProblem> stages = new ArrayList<>();
        for (int i = 0; i < config.stages().size(); i++) {
            StageConfig stage = config.stages().get(i);
            String misfit = stage.data() == null ? Augmenter.misfit(stage.augmentation(), train) : null;
            if (misfit != null) {
                stages.add(new ConfigProblem(
                        ConfigProblem.Severity.ERROR, "stages[" + i + "].augmentation", misfit, 0, 0));
            }
        }
        if (!stages.isEmpty()) {
            return new Checked(parsed.with(stages), null);
        }
        ModelInput input = ModelCompiler.inputOf(config.model(), train);
        try {
            var conf = ModelCompiler.configuration(config.model(), input, config.seed(), kinds);
            SyncBatchNorms.apply(conf, config.model(), config.parallel().syncBatchNorm());
            return new Checked(parsed, ModelSummary.of(conf, input, config.model()), conf, input);
        } catch (GraphProblemsException e) {
            List<ConfigProblem> found = new ArrayList<>();
            for (NodeProblem p : e.problems()) {
                found.add(new ConfigProblem(ConfigProblem.Severity.ERROR, p.path(), p.message(), 0, 0));
            }
            return new Checked(parsed.with(found), null);
        } catch (RuntimeException e) {
            return new Checked(
                    parsed.with(List.of(new ConfigProblem(
                            ConfigProblem.Severity.ERROR,
                            "model",
                            "the " + config.model().type() + " model does not fit the data (" + described + "): "
                                    + e.getMessage(),
                            0,
                            0))),
                    null);
        }
    }
}
