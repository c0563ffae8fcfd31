package org.traindeck.engine.use.predict;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.NamedInputFiles;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * Predictions of a model of named inputs: one {@code .npz} holding an array per input name, or one {@code NAME.npy}
 * per input, read as the training source read its arrays and held to the trained shapes; then the network in
 * batches, every input's rows together.
 */
final class NamedInputsPrediction {

    private NamedInputsPrediction() {}

    static Predictions predict(PredictionModel model, List<Path> inputs) {
        if (!(model.source() instanceof NumpySource numpy)) {
            throw new IllegalStateException("named inputs come from a numpy source");
        }
        Map<String, String> specs = specs(model.named(), inputs);
        try (NamedInputFiles files = NamedInputFiles.open(Path.of("").toAbsolutePath(), numpy, specs, model.named())) {
            return run(model, files.inputs(), files.size());
        } catch (InvalidConfigException e) {
            throw new PredictionInputException(e.getMessage(), e);
        }
    }

    /** Each input's array: the one .npz's member of its name, or the .npy file of its name. */
    static Map<String, String> specs(List<InputSignature> named, List<Path> inputs) {
        List<String> names = named.stream().map(InputSignature::name).toList();
        Map<String, String> specs = new LinkedHashMap<>();
        if (inputs.size() == 1 && inputs.get(0).toString().endsWith(".npz")) {
            Path file = inputs.get(0);
            requireFile(file);
            for (String name : names) {
                specs.put(name, file + ":" + name);
            }
            return specs;
        }
        for (Path p : inputs) {
            String file = p.getFileName() == null ? "" : p.getFileName().toString();
            String name = file.endsWith(".npy") ? file.substring(0, file.length() - 4) : null;
            if (name == null || !names.contains(name)) {
                throw new PredictionInputException(p + ": this model takes the inputs " + String.join(", ", names)
                        + ": give one .npz holding an array of each name, or one NAME.npy per input ("
                        + String.join(".npy, ", names) + ".npy)");
            }
            requireFile(p);
            specs.put(name, p.toString());
        }
        List<String> missing = new ArrayList<>(names);
        missing.removeAll(specs.keySet());
        if (!missing.isEmpty()) {
            throw new PredictionInputException("no array for the input" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + ": give " + String.join(".npy, ", missing) + ".npy too");
        }
        return specs;
    }

    private static void requireFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new PredictionInputException("no such file: " + file);
        }
    }

    private static Predictions run(PredictionModel model, List<InputArray> inputs, int count) {
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add("sample " + i);
        }
        return Predictor.predict(model, count, names, (from, n) -> {
            INDArray[] batch = new INDArray[inputs.size()];
            for (int k = 0; k < batch.length; k++) {
                InputArray in = inputs.get(k);
                int d = in.shape().values();
                float[] values = new float[n * d];
                for (int i = 0; i < n; i++) {
                    in.samples().read(from + i, values, i * d);
                }
                batch[k] = Nd4j.create(values, in.shape().batchShape(n), DataType.FLOAT);
            }
            return batch;
        });
    }
}
