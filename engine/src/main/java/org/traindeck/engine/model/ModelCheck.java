package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ModelConfig;
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

    /**
     * What the check found: the result (with the model's problems), the compiled model's summary when it built, and
     * the networks of stages with models of their own (a cascade's), each compiled against its stage's data.
     */
    public record Checked(
            ValidationResult result,
            ModelSummary summary,
            ComputationGraphConfiguration conf,
            ModelInput input,
            List<StageNetwork> stageNetworks) {

        public Checked {
            stageNetworks = stageNetworks == null ? List.of() : List.copyOf(stageNetworks);
        }

        public Checked(
                ValidationResult result, ModelSummary summary, ComputationGraphConfiguration conf, ModelInput input) {
            this(result, summary, conf, input, List.of());
        }

        public Checked(ValidationResult result, ModelSummary summary) {
            this(result, summary, null, null);
        }

        /** The same check with another result (a problem added). */
        public Checked withResult(ValidationResult other) {
            return new Checked(other, summary, conf, input, stageNetworks);
        }

        /** The network stage {@code index} trains: its start's own, or null for the run's first network. */
        public StageNetwork networkOf(int index) {
            StageNetwork found = null;
            for (StageNetwork n : stageNetworks) {
                if (n.stage() <= index) {
                    found = n;
                }
            }
            return found;
        }
    }

    /** The network a stage with a model of its own starts, compiled against that stage's training data. */
    public record StageNetwork(int stage, ModelSummary summary, ComputationGraphConfiguration conf, ModelInput input) {}

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
            return compile(parsed, config, data.train(), data.train().toString(), kinds, ModelCheck::read);
        }
    }

    /**
     * As {@link #checkWithSummary(ValidationResult)}, against training data read before (or a stand-in of its shape,
     * described as {@code described}): reads no file, so a summary can follow every edit of the model.
     */
    public static Checked checkAgainst(ValidationResult parsed, Dataset train, String described) {
        return checkAgainst(parsed, train, described, ModelCheck::read);
    }

    /** As {@link #checkAgainst(ValidationResult, Dataset, String)}, with the data of stages of their own models from {@code stages}. */
    public static Checked checkAgainst(ValidationResult parsed, Dataset train, String described, StageData stages) {
        if (!parsed.isValid()) {
            return new Checked(parsed, null);
        }
        return compile(parsed, parsed.config(), train, described, LayerKinds.standard(), stages);
    }

    /** A stage's training data (or a stand-in of its shape), and how to describe it. */
    public record Data(Dataset train, String described) {}

    /** Where a stage with a model of its own gets its data's shape (a cache, so that a summary reads no file again). */
    @FunctionalInterface
    public interface StageData {
        /** @throws InvalidConfigException at {@code at} when the data cannot be read */
        Data of(RunConfig config, DataConfig data, String at);
    }

    private static Data read(RunConfig config, DataConfig data, String at) {
        try (DataLoader.Loaded loaded = DataLoader.load(config, data, at)) {
            return new Data(loaded.train().standIn(), loaded.train().toString());
        }
    }

    private static Checked compile(
            ValidationResult parsed,
            RunConfig config,
            Dataset train,
            String described,
            LayerKinds kinds,
            StageData stageData) {
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
        Compiled first = network(config, 0, train, described, kinds);
        if (first.network() == null) {
            return new Checked(parsed.with(first.problems()), null);
        }
        StageNetwork run = first.network();
        List<StageNetwork> own = new ArrayList<>();
        List<ConfigProblem> found = new ArrayList<>();
        for (int i = 1; i < config.stages().size(); i++) {
            if (!config.startsNetwork(i)) {
                continue;
            }
            StageConfig stage = config.stages().get(i);
            Compiled built;
            if (stage.data() == null) {
                built = network(config, i, train, described, kinds);
            } else {
                try {
                    Data data = stageData.of(config, stage.data(), "stages[" + i + "].data");
                    built = network(config, i, data.train(), data.described(), kinds);
                } catch (InvalidConfigException e) {
                    built = new Compiled(null, e.problems());
                }
            }
            if (built.network() == null) {
                found.addAll(built.problems());
            } else {
                own.add(built.network());
            }
        }
        if (!found.isEmpty()) {
            return new Checked(parsed.with(found), null);
        }
        return new Checked(parsed, run.summary(), run.conf(), run.input(), own);
    }

    /** A compiler's path ("model.layers[2]") under the model's own place in the config ("stages[1].model.layers[2]"). */
    private static String under(String modelPath, String path) {
        return path.equals("model") || path.startsWith("model.") ? modelPath + path.substring("model".length()) : path;
    }

    /** A network compiled, or the problems that stopped it. */
    private record Compiled(StageNetwork network, List<ConfigProblem> problems) {}

    /** The network stage {@code index} starts, compiled against {@code train}. */
    private static Compiled network(RunConfig config, int index, Dataset train, String described, LayerKinds kinds) {
        ModelConfig model = config.modelAt(index);
        ModelInput input = ModelCompiler.inputOf(model, train);
        try {
            var conf = ModelCompiler.configuration(model, input, config.seed(), kinds);
            SyncBatchNorms.apply(conf, model, config.parallel().syncBatchNorm());
            return new Compiled(new StageNetwork(index, ModelSummary.of(conf, input, model), conf, input), List.of());
        } catch (GraphProblemsException e) {
            List<ConfigProblem> found = new ArrayList<>();
            for (NodeProblem p : e.problems()) {
                found.add(new ConfigProblem(
                        ConfigProblem.Severity.ERROR, under(config.modelPathAt(index), p.path()), p.message(), 0, 0));
            }
            return new Compiled(null, found);
        } catch (RuntimeException e) {
            return new Compiled(
                    null,
                    List.of(new ConfigProblem(
                            ConfigProblem.Severity.ERROR,
                            config.modelPathAt(index),
                            "the " + model.type() + " model does not fit the data (" + described + "): "
                                    + e.getMessage(),
                            0,
                            0)));
        }
    }
}
