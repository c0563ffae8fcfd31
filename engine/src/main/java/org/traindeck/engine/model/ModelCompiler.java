package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.nodes.RecomputeChains;

/**
 * Turns any model section into one DL4J computation graph (one graph type for all, so the training step has one code
 * path): the classic shorthands as they always were, a layer graph through {@link GraphCompiler}, and the vit and gpt
 * shorthands by expanding them into the layer graph a user could have written ({@link Expansions}), and DL4J's zoo
 * architectures with the task's head ({@link ZooModels}).
 */
public final class ModelCompiler {

    public static final String INPUT = Heads.INPUT;
    public static final String OUTPUT = Heads.OUTPUT;

    private ModelCompiler() {}

    /** Whether a model takes the data's own shape (images, volumes, sequences) or flat rows (the mlp shorthand). */
    public static boolean wantsImages(ModelConfig model) {
        return !(model instanceof ModelConfig.Mlp);
    }

    /** What the network sees of the data. */
    public static ModelInput inputOf(ModelConfig model, Dataset data) {
        if (data.namedInputs()) {
            return ModelInput.named(
                    InputSignature.of(data.inputs()), data.task(), data.outputCount(), data.perStepValues());
        }
        boolean tokens = data.shape() instanceof SampleShape.Tokens;
        return new ModelInput(
                wantsImages(model) ? data.inputType() : data.flatInputType(),
                data.task(),
                data.outputCount(),
                tokens && wantsImages(model));
    }

    /** The network, with TrainDeck's kernels where the ND4J backend allows them. */
    public static ComputationGraph build(ModelConfig model, ModelInput input, long seed) {
        return build(model, input, seed, KernelUse.forCurrentBackend());
    }

    /** @param kernels REFERENCE on the CUDA backend: the kernels read host memory */
    public static ComputationGraph build(ModelConfig model, ModelInput input, long seed, KernelUse kernels) {
        return build(model, input, seed, kernels, false);
    }

    /** @param syncBatchNorm the run's {@code parallel.syncBatchNorm} ({@link SyncBatchNorms}) */
    public static ComputationGraph build(
            ModelConfig model, ModelInput input, long seed, KernelUse kernels, boolean syncBatchNorm) {
        ComputationGraphConfiguration conf = configuration(model, input, seed, LayerKinds.standard(), kernels);
        SyncBatchNorms.apply(conf, model, syncBatchNorm);
        return instantiate(conf);
    }

    /** The network of a configuration compiled before ({@link ModelCheck}), its parameters initialised. */
    public static ComputationGraph instantiate(ComputationGraphConfiguration conf) {
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        RecomputeChains.link(graph);
        return graph;
    }

    /**
     * @throws org.traindeck.engine.model.graph.GraphProblemsException when a layer graph does not fit the data
     */
    public static ComputationGraphConfiguration configuration(ModelConfig model, ModelInput input, long seed) {
        return configuration(model, input, seed, LayerKinds.standard());
    }

    /** As {@link #configuration(ModelConfig, ModelInput, long)}, with the layer types {@code kinds} (a test's or a plug-in's). */
    public static ComputationGraphConfiguration configuration(
            ModelConfig model, ModelInput input, long seed, LayerKinds kinds) {
        return configuration(model, input, seed, kinds, KernelUse.forCurrentBackend());
    }

    /** As {@link #configuration(ModelConfig, ModelInput, long, LayerKinds)}, with or without TrainDeck's kernels. */
    public static ComputationGraphConfiguration configuration(
            ModelConfig model, ModelInput input, long seed, LayerKinds kinds, KernelUse kernels) {
        ComputationGraphConfiguration conf = configurationAsWritten(model, input, seed, kinds, kernels);
        InputGradients.skipWhereUnused(conf);
        return conf;
    }

    private static ComputationGraphConfiguration configurationAsWritten(
            ModelConfig model, ModelInput input, long seed, LayerKinds kinds, KernelUse kernels) {
        return model.accept(new ModelConfig.Visitor<>() {
            @Override
            public ComputationGraphConfiguration mlp(ModelConfig.Mlp m) {
                return ClassicModels.mlp(m, input, seed, kernels);
            }

            @Override
            public ComputationGraphConfiguration lenet(ModelConfig.LeNet m) {
                return ClassicModels.lenet(m, input, seed, kernels);
            }

            @Override
            public ComputationGraphConfiguration resnet(ModelConfig.ResNet m) {
                return ClassicModels.resnet(m, input, seed, kernels);
            }

            @Override
            public ComputationGraphConfiguration graph(ModelConfig.Graph m) {
                return compileGraph(m.layers(), m.head(), input, seed, kinds, kernels, true);
            }

            @Override
            public ComputationGraphConfiguration vit(ModelConfig.Vit m) {
                return compileGraph(
                        Expansions.vit(m), null, input, seed, kinds, kernels, !ReferenceBlock.DL4J.equals(m.kernel()));
            }

            @Override
            public ComputationGraphConfiguration gpt(ModelConfig.Gpt m) {
                return compileGraph(
                        Expansions.gpt(m), null, input, seed, kinds, kernels, !ReferenceBlock.DL4J.equals(m.kernel()));
            }

            @Override
            public ComputationGraphConfiguration zoo(ModelConfig.Zoo m) {
                return ZooModels.configuration(m, input, seed);
            }
        });
    }

    /**
     * The DL4J layers a graph node's parameters may live in: the node's own, and those of its reference spelling (a
     * transformerBlock on DL4J's layers or a CUDA backend is several layers, {@code <name>_norm1} ...).
     */
    public static List<String> layerNames(LayerSpec spec) {
        List<String> out = new ArrayList<>(List.of(spec.name()));
        out.addAll(ReferenceBlock.spelledNames(spec));
        return out;
    }

    /** The layer graph a shorthand stands for (the graph itself for a graph), or null for the classic shorthands. */
    public static ModelConfig.Graph expanded(ModelConfig model) {
        if (model instanceof ModelConfig.Graph g) {
            return g;
        }
        if (model instanceof ModelConfig.Vit v) {
            return new ModelConfig.Graph(Expansions.vit(v), new ModelConfig.Head("auto", "auto"), v.init());
        }
        if (model instanceof ModelConfig.Gpt g) {
            return new ModelConfig.Graph(Expansions.gpt(g), new ModelConfig.Head("auto", "auto"), g.init());
        }
        return null;
    }

    private static ComputationGraphConfiguration compileGraph(
            List<LayerSpec> layers,
            ModelConfig.Head head,
            ModelInput input,
            long seed,
            LayerKinds kinds,
            KernelUse kernels,
            boolean ownHead) {
        ComputationGraphConfiguration.GraphBuilder g =
                ModelBase.builder(seed, WeightInit.XAVIER).graphBuilder().addInputs(input.names());
        // a shorthand with "kernel": "dl4j" keeps DL4J's head as well
        return new GraphCompiler(kinds, kernels).compile(g, layers, head, input, ownHead);
    }
}
