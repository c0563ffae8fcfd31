package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.ops.transforms.Transforms;

/** As TrainDeck trains: replicas sharing the master's parameters, its workspace and cache settings, setParam. */
class SharedReplicaTest {

    @Test
    void shardGradientsOnParallelReplicasSumToTheFullBatchGradient() throws Exception {
        ComputationGraph master =
                new ComputationGraph(TinyVit.configuration(DataType.DOUBLE, new NoOp(), 8, 1, 4, 8, 2, 1, 3));
        master.init();
        ComputationGraph replica =
                new ComputationGraph(master.getConfiguration().clone());
        replica.init(master.params(), false);
        replica.initGradientsView();

        INDArray x = Nd4j.rand(DataType.DOUBLE, 6, 1, 8, 8);
        INDArray y = Nd4j.eye(3).repeat(0, 2).castTo(DataType.DOUBLE);
        INDArray full = gradient(master, x, y);

        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<INDArray> second = other.submit(() -> gradient(replica, rows(x, 3, 6), rows(y, 3, 6)));
            INDArray first = gradient(master, rows(x, 0, 3), rows(y, 0, 3));
            INDArray summed = first.add(second.get());
            assertThat(Transforms.abs(summed.sub(full)).maxNumber().doubleValue())
                    .isLessThan(1e-10);
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void trainDecksGraphSettingsGiveTheSameGradients() {
        INDArray x = Nd4j.rand(DataType.DOUBLE, 4, 1, 8, 8);
        INDArray y = Nd4j.eye(3)
                .repeat(0, 2)
                .get(NDArrayIndex.interval(0, 4), NDArrayIndex.all())
                .castTo(DataType.DOUBLE);
        INDArray[] gradients = new INDArray[2];
        for (int variant = 0; variant < 2; variant++) {
            ComputationGraphConfiguration conf =
                    TinyVit.configuration(DataType.DOUBLE, new NoOp(), 8, 1, 4, 8, 2, 1, 3);
            // as ModelFactory builds TrainDeck's graphs, against no caching and no workspaces
            conf.setCacheMode(variant == 0 ? CacheMode.DEVICE : CacheMode.NONE);
            conf.setTrainingWorkspaceMode(variant == 0 ? WorkspaceMode.ENABLED : WorkspaceMode.NONE);
            conf.setInferenceWorkspaceMode(variant == 0 ? WorkspaceMode.ENABLED : WorkspaceMode.NONE);
            ComputationGraph graph = new ComputationGraph(conf);
            graph.init();
            gradients[variant] = gradient(graph, x, y);
            gradients[variant] = gradient(graph, x, y); // a second step reuses the workspaces
        }
        assertThat(Transforms.abs(gradients[0].sub(gradients[1])).maxNumber().doubleValue())
                .isLessThan(1e-12);
    }

    @Test
    void setParamChangesTheLayer() {
        ComputationGraph graph =
                new ComputationGraph(TinyVit.configuration(DataType.DOUBLE, new NoOp(), 8, 1, 4, 8, 2, 1, 3));
        graph.init();
        INDArray x = Nd4j.rand(DataType.DOUBLE, 2, 1, 8, 8);
        INDArray before = graph.outputSingle(x);
        graph.setParam("norm_gain", Nd4j.valueArrayOf(new long[] {1, 8}, 3.0, DataType.DOUBLE));
        assertThat(graph.getParam("norm_gain").getDouble(0, 5)).isEqualTo(3.0);
        assertThat(graph.outputSingle(x)).isNotEqualTo(before);
    }

    private static INDArray gradient(ComputationGraph graph, INDArray x, INDArray y) {
        graph.setInputs(x);
        graph.setLabels(y);
        graph.computeGradientAndScore();
        return graph.gradient().gradient().dup();
    }

    private static INDArray rows(INDArray a, int from, int to) {
        INDArrayIndex[] index = new INDArrayIndex[a.rank()];
        index[0] = NDArrayIndex.interval(from, to);
        for (int i = 1; i < index.length; i++) {
            index[i] = NDArrayIndex.all();
        }
        return a.get(index).dup();
    }
}
