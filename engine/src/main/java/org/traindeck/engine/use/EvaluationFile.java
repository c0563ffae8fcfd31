package org.traindeck.engine.use;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.api.runs.Evaluation;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.sinks.RunFolder;

/**
 * {@code evaluation.json} (or {@code evaluation-ema.json} for the weight average): the figures under the validation
 * metrics' names, the confusion matrix (rows true, columns predicted) and the per-class figures, written to a
 * temporary file in the same folder and moved into place, so a reader never sees half a file.
 */
final class EvaluationFile {

    static final String NAME = RunFolder.EVALUATION;
    static final String EMA_NAME = RunFolder.EVALUATION_EMA;
    private static final ObjectMapper JSON = new ObjectMapper();

    private EvaluationFile() {}

    /** Where an evaluation of this checkpoint goes: its run folder, else beside the checkpoint file. */
    static Path target(Path runDir, Path checkpointFile, boolean ema) {
        Path folder = runDir != null ? runDir : checkpointFile.toAbsolutePath().getParent();
        return folder.resolve(ema ? EMA_NAME : NAME);
    }

    static void write(Evaluation e, Path target) throws IOException {
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(toJson(e));
        Path dir = target.toAbsolutePath().getParent();
        Path temp = dir.resolve(".tmp-" + UUID.randomUUID() + "-" + target.getFileName());
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.wrap(bytes));
                out.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException ex) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    static ObjectNode toJson(Evaluation e) {
        ObjectNode root = JSON.createObjectNode();
        root.put("run", e.runName());
        root.put("checkpoint", e.checkpointFile().toString());
        root.put("ema", e.ema());
        root.put("task", e.task().json);
        root.put("data", e.data());
        root.put("samples", e.samples());
        root.put("seconds", e.seconds());
        ObjectNode figures = root.putObject("figures");
        for (Map.Entry<String, Double> f : e.figures().entrySet()) {
            number(figures, f.getKey(), f.getValue());
        }
        if (e.classNames() != null) {
            ArrayNode names = root.putArray("classes");
            e.classNames().forEach(names::add);
        }
        if (e.confusionMatrix() != null) {
            ArrayNode rows = root.putArray("confusionMatrix");
            for (List<Long> row : e.confusionMatrix()) {
                ArrayNode r = rows.addArray();
                row.forEach(r::add);
            }
        }
        if (!e.perClass().isEmpty()) {
            boolean masks = e.task() == Task.SEGMENTATION;
            if (masks) {
                ObjectNode iou = root.putObject("perClassIoU");
                e.perClass().forEach(c -> number(iou, c.name(), c.iou()));
            }
            ArrayNode classes = root.putArray("perClass");
            for (ClassFigures c : e.perClass()) {
                ObjectNode o = classes.addObject();
                o.put("class", c.name());
                o.put("support", c.support());
                o.put("predicted", c.predicted());
                number(o, "precision", c.precision());
                number(o, "recall", c.recall());
                number(o, "f1", c.f1());
                if (masks) {
                    number(o, "iou", c.iou());
                }
            }
        }
        return root;
    }

    /** NaN (an undefined figure) as JSON null. */
    private static void number(ObjectNode o, String key, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }
}
