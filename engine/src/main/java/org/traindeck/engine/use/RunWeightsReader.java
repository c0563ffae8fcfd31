package org.traindeck.engine.use;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ModelTensors;
import org.traindeck.engine.use.export.NamedTensor;
import org.traindeck.engine.use.export.NamingTable;
import org.traindeck.engine.weights.RunWeights;
import org.traindeck.engine.weights.WeightsException;

/** A run's or checkpoint's weights (its best checkpoint, else its newest valid one), named as export names them. */
public final class RunWeightsReader implements RunWeights {

    @Override
    public List<NamedTensor> read(Path runOrCheckpoint) {
        try {
            TrainedModel model = TrainedModel.open(runOrCheckpoint, false);
            return ModelTensors.of(model.network(), NamingTable.standard(), null)
                    .tensors();
        } catch (CheckpointException | ExportException e) {
            throw new WeightsException(e.getMessage(), e);
        }
    }
}
