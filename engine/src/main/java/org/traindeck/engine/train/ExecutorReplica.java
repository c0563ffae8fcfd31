package org.traindeck.engine.train;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.model.nodes.RecomputeChains;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardReplica;
import org.traindeck.engine.parallel.ShardResult;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.ShardBatches;
import org.traindeck.engine.train.step.ShardGradient;

/**
 * The engine's {@link ShardReplica}, an executor's side of a distributed step: a replica of the run's model, built
 * once from its architecture, and the stage's training data, read from the same paths as the driver; it takes the
 * driver's parameters and computes its shard's gradient with the same {@link ShardGradient} as the local devices. A
 * cluster backend keeps one per run in each executor, and moves it from stage to stage ({@link #moveTo}). Not
 * thread-safe.
 */
public final class ExecutorReplica implements ShardReplica {

    private final boolean oneDnn;
    private final String executor;
    private String modelJson;
    private ComputationGraph net;
    private ShardGradient shard;
    private ShardBatches data;

    /**
     * Loads the data and builds the replica: a backend does it on every executor before the first step, after
     * {@link ShardData#problemHere()}, so that a machine that cannot train is said at the start.
     *
     * @param executor how this executor names itself in results and errors ("executor 1 on 10.0.0.7")
     * @throws RuntimeException when the data cannot be loaded here as on the driver (the message says why)
     */
    public ExecutorReplica(String modelJson, boolean dataLossOnly, boolean oneDnn, ShardData data, String executor) {
        Nd4jRuntime.init();
        this.oneDnn = oneDnn;
        this.executor = executor + " (pid " + ProcessHandle.current().pid() + ")";
        this.data = new ShardBatches(data);
        build(modelJson, dataLossOnly);
    }

    /**
     * Takes the replica to another stage of its run without a new executor: the stage's data is loaded only when its
     * data config differs from the ones already loaded, and the model is built again only when it changed (another
     * precision); the parameters come with each step.
     *
     * @throws RuntimeException when the stage's data cannot be loaded here as on the driver
     */
    @Override
    public void moveTo(String modelJson, boolean dataLossOnly, ShardData stage) {
        this.data = data.forStage(stage);
        if (modelJson.equals(this.modelJson)) {
            this.shard = new ShardGradient(net, dataLossOnly);
        } else {
            build(modelJson, dataLossOnly);
        }
    }

    private void build(String json, boolean dataLossOnly) {
        ComputationGraph graph = new ComputationGraph(ComputationGraphConfiguration.fromJson(json));
        graph.init();
        graph.initGradientsView();
        RecomputeChains.link(graph);
        if (oneDnn && Nd4jRuntime.oneDnnUnavailableReason() == null && OneDnnHelpers.unusableReason() == null) {
            // the driver's replicas have them: the same kernels give the same gradients
            OneDnnHelpers.install(graph);
        }
        this.net = graph;
        this.modelJson = json;
        this.shard = new ShardGradient(graph, dataLossOnly);
    }

    @Override
    public ShardResult compute(byte[] params, ShardWork work) {
        long t0 = System.nanoTime();
        net.params().assign(ShardGradient.read(params).reshape(net.params().shape()));
        List<BatchMaker.Batch> batches = new ArrayList<>(work.batches().size());
        for (ShardWork.MicroBatch b : work.batches()) {
            batches.add(data.batch(work.epoch(), b.index(), work.batchSize()));
        }
        ShardGradient.Shard s =
                shard.compute(batches, j -> work.batches().get(j).seed());
        byte[] gradient = s.examples() == 0 ? null : ShardGradient.write(net.getGradientsViewArray());
        return new ShardResult(s.lossSum(), s.examples(), s.microBatches(), gradient, System.nanoTime() - t0, executor);
    }

    /** The engine's {@link ShardReplica.Factory}, found by backends through ServiceLoader. */
    public static final class Factory implements ShardReplica.Factory {
        @Override
        public ShardReplica create(
                String modelJson, boolean dataLossOnly, boolean oneDnn, ShardData data, String executor) {
            return new ExecutorReplica(modelJson, dataLossOnly, oneDnn, data, executor);
        }
    }
}
