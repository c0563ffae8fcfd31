package org.traindeck.engine.data;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.NumpySource;

/**
 * New samples of a model of named inputs (prediction), read from NumPy files as its training source was read (layout,
 * scale, token ids) and held to the shapes it was trained on; the files stay open until closed.
 */
public record NamedInputFiles(List<InputArray> inputs, AutoCloseable files) implements AutoCloseable {

    /**
     * @param training the source the model trained on
     * @param specs    each input's array, by name ("x.npy", "data.npz:x"), relative to {@code baseDir}
     * @throws org.traindeck.engine.config.InvalidConfigException at the input's name, when an array is missing or
     *     does not have the trained shape
     */
    public static NamedInputFiles open(
            Path baseDir, NumpySource training, Map<String, String> specs, List<InputSignature> expected) {
        NumpyFiles files = new NumpyFiles(baseDir);
        try {
            return new NamedInputFiles(NamedNumpyReader.inputsOnly(training, specs, expected, files), files);
        } catch (RuntimeException e) {
            files.close();
            throw e;
        }
    }

    public int size() {
        return inputs.get(0).samples().size();
    }

    @Override
    public void close() {
        try {
            files.close();
        } catch (Exception e) {
            // read-only files: nothing of the user's is lost
        }
    }
}
