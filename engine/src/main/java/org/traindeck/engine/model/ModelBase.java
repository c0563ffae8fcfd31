package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;

/** What every model TrainDeck builds shares. The updater set here is a placeholder: each stage installs its own. */
final class ModelBase {

    private ModelBase() {}

    static NeuralNetConfiguration.Builder builder(long seed, WeightInit init) {
        return new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .weightInit(init)
                .updater(new Adam(1e-3))
                .trainingWorkspaceMode(WorkspaceMode.ENABLED)
                .inferenceWorkspaceMode(WorkspaceMode.ENABLED)
                // backprop reuses the convolutions' forward results instead of computing them again: 1.6x on DL4J's own
                // path (oneDNN off, other platforms, ParallelWrapper's replicas), about even with oneDNN; same numbers
                .cacheMode(CacheMode.DEVICE);
    }
}
