package org.traindeck.engine.weights;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.use.export.NamedTensor;

/**
 * Reads a TrainDeck run folder or checkpoint as the tensors export would write from it. The reader of checkpoints for
 * use lives above training ({@code engine.use}), so training finds it through {@link java.util.ServiceLoader}.
 */
public interface RunWeights {

    /**
     * @param runOrCheckpoint a run folder, its {@code checkpoints/} folder or a {@code .tdckpt} file
     * @throws WeightsException naming the file and what is wrong with it
     */
    List<NamedTensor> read(Path runOrCheckpoint);
}
