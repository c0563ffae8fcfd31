package org.traindeck.engine.config.read;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.StageConfig;

/**
 * What a layer graph's inputs need from the data: every name a node reads is a layer or one of the data's inputs,
 * every input of the data is read by a node, no layer takes an input's name, and only a layer graph takes named
 * inputs (the shorthands read one input). Every stage of one network (a stage with a model of its own starts the
 * next) names the same inputs.
 */
final class InputChecks {

    private final Problems problems;

    InputChecks(Problems problems) {
        this.problems = problems;
    }

    void check(RunConfig config) {
        for (int i = 0; i < config.stages().size(); i++) {
            if (config.startsNetwork(i)) {
                checkNetwork(config, i);
            }
        }
    }

    /** The stages that train the network stage {@code start} starts: their data against its model. */
    private void checkNetwork(RunConfig config, int start) {
        List<String> names = null;
        String firstPath = null;
        SourceConfig firstSource = null;
        for (int i = start; i < config.stages().size() && config.networkStart(i) == start; i++) {
            StageConfig stage = config.stages().get(i);
            String dataPath = stage.data() != null ? "stages[" + i + "].data" : "data";
            DataConfig data = config.dataFor(stage);
            if (!sameNames(data, dataPath)) {
                return;
            }
            List<String> own = data.train().inputNames();
            if (names == null) {
                names = own;
                firstPath = dataPath;
                firstSource = data.train();
            } else if (!names.equals(own)) {
                problems.error(
                        dataPath + ".train.inputs",
                        "names the inputs " + own + ", but " + firstPath + " names " + names
                                + ": the stages of one network (up to a stage with a \"model\" of its own) read the"
                                + " same inputs");
                return;
            }
        }
        if (names == null) {
            return;
        }
        boolean named = !names.equals(List.of(NumpyInputs.SINGLE));
        ModelConfig model = config.modelAt(start);
        if (model instanceof ModelConfig.Graph g) {
            checkGraph(g.layers(), names, firstPath, firstSource, config.modelPathAt(start));
        } else if (named) {
            problems.error(
                    firstPath + ".train.inputs",
                    "names several inputs " + names + ", but the "
                            + model.type()
                            + " shorthand reads one: write the model as a \"graph\" whose nodes read each input by name");
        }
        if (named && config.devices().maybeSeveral() && !config.parallel().synchronous()) {
            problems.error(
                    "parallel.mode",
                    "is \"" + config.parallel().mode() + "\", which trains models of one input only (ParallelWrapper's"
                            + " DataSet): use \"sync\" (the default) for named inputs");
        }
    }

    /** The training, validation and test sources of one data section name the same inputs. */
    private boolean sameNames(DataConfig data, String dataPath) {
        List<String> train = data.train().inputNames();
        Map<String, SourceConfig> others = new HashMap<>();
        if (data.validation() != null) {
            others.put("validation", data.validation());
        }
        if (data.test() != null) {
            others.put("test", data.test());
        }
        boolean ok = true;
        for (Map.Entry<String, SourceConfig> e : others.entrySet()) {
            if (!e.getValue().inputNames().equals(train)) {
                problems.error(
                        dataPath + "." + e.getKey() + ".inputs",
                        "names the inputs " + e.getValue().inputNames() + ", but the training data names " + train
                                + ": the model reads the same inputs from both");
                ok = false;
            }
        }
        return ok;
    }

    private void checkGraph(
            List<LayerSpec> layers, List<String> inputs, String dataPath, SourceConfig source, String modelPath) {
        Set<String> read = new HashSet<>();
        for (int i = 0; i < layers.size(); i++) {
            read.addAll(GraphReader.allInputs(layers, i));
        }
        Set<String> derived = source instanceof NumpySource n ? n.derive().keySet() : Set.of();
        for (String input : inputs) {
            if (!read.contains(input) && DiffusionConfig.made(input)) {
                problems.error(
                        dataPath + ".train.task",
                        "a diffusion model reads the noised sample as \"noisy\" and its timestep as \"timestep\","
                                + " but no layer reads \"" + input + "\"" + of(modelPath) + ": name it in a layer's"
                                + " \"inputs\" (e.g. a \"timestepEmbedding\" with \"inputs\": \"timestep\")");
            } else if (!read.contains(input) && derived.contains(input)) {
                problems.error(
                        JsonLocations.child(dataPath + ".train.derive", input),
                        "the derived input \"" + input + "\" is read by no layer" + of(modelPath) + ": name it in a"
                                + " layer's \"inputs\" (a cascade's upper stage typically concatenates it with"
                                + " \"noisy\"), or leave it out");
            } else if (!read.contains(input)) {
                String at = inputs.equals(List.of(NumpyInputs.SINGLE))
                        ? modelPath + ".layers"
                        : JsonLocations.child(dataPath + ".train.inputs", input);
                problems.error(
                        at,
                        "the input \"" + input + "\" is read by no layer: name it in a layer's \"inputs\""
                                + " (e.g. \"inputs\": \"" + input + "\"), or leave it out of the data");
            }
        }
    }

    /** Which model, when it is a stage's own. */
    private static String of(String modelPath) {
        return modelPath.equals("model") ? "" : " of " + modelPath;
    }
}
