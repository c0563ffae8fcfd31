package org.traindeck.engine.use;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.ExportFormat;
import org.traindeck.engine.use.export.ModelTensors;
import org.traindeck.engine.use.export.NamingTable;
import org.traindeck.engine.use.export.TransposedConvolutionArguments;
import org.traindeck.engine.use.export.WeightsExport;

/**
 * {@code traindeck export}: a trained model's weights (or weight average) in PyTorch's names and layouts, with its graph,
 * its model section and where the weights come from in the graph JSON.
 */
public final class ModelExport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ModelExport() {}

    /** @throws ExportException naming the node or the file that stops the export */
    public static WeightsExport.Written write(TrainedModel model, ExportFormat format, Path out, boolean force) {
        TransposedConvolutionArguments.requireExpressible(model.network());
        ModelTensors tensors;
        try {
            tensors = ModelTensors.of(
                    model.network(), NamingTable.standard(), JSON.readTree(ConfigWriter.modelJson(model.model())));
        } catch (JsonProcessingException e) {
            throw new ExportException("cannot write the model section as JSON: " + e.getMessage(), e);
        }
        tensors.graph().set("source", source(model.card()));
        return WeightsExport.write(tensors, format, out, force);
    }

    private static ObjectNode source(ModelCard card) {
        ObjectNode s = JSON.createObjectNode();
        s.put("checkpoint", card.checkpointFile().toAbsolutePath().toString());
        s.put("run", card.runName());
        s.put("stage", card.stageName());
        s.put("globalStep", card.globalStep());
        s.put("weights", card.ema() ? "ema" : "last");
        s.put("task", card.task().json);
        ArrayNode shapes = s.putArray("inputShapes");
        for (List<Long> shape : card.inputShapes()) {
            ArrayNode a = shapes.addArray();
            shape.forEach(a::add);
        }
        s.put("outputs", card.outputs());
        if (card.classNames() != null) {
            card.classNames().forEach(s.putArray("classNames")::add);
        }
        if (card.vocabulary() != null) {
            card.vocabulary().forEach(s.putArray("vocabulary")::add);
        }
        return s;
    }
}
