package org.traindeck.engine.weights;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.data.numpy.NpyDType;
import org.traindeck.engine.data.numpy.NpzArchive;

/** An npz of one array per tensor (numpy.savez), read by the data's own NumPy reader: headers parsed, never unpickled. */
final class NpzTensorFile implements TensorFile {

    private final Path file;
    private final NpzArchive archive;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    private NpzTensorFile(Path file, NpzArchive archive) {
        this.file = file;
        this.archive = archive;
    }

    /** @throws WeightsException naming the file, the member and the byte offset where one is to blame */
    static NpzTensorFile open(Path file) {
        NpzArchive archive;
        try {
            archive = NpzArchive.open(file);
        } catch (NoSuchFileException e) {
            throw new WeightsException(file + " does not exist");
        } catch (IOException e) {
            throw new WeightsException(e.getMessage(), e);
        }
        NpzTensorFile f = new NpzTensorFile(file, archive);
        try {
            for (String name : archive.names()) {
                NpyArray a = archive.array(name);
                NpyDType dtype = a.dtype();
                f.entries.put(name, new Entry(name, a.shape(), a.header().describe(), dtype.isFloat()));
            }
        } catch (IOException | RuntimeException e) {
            f.close();
            throw new WeightsException(e.getMessage(), e);
        }
        return f;
    }

    @Override
    public String source() {
        return file.toString();
    }

    @Override
    public Map<String, Entry> entries() {
        return entries;
    }

    @Override
    public float[] read(String name) {
        try {
            NpyArray a = archive.array(name);
            long count = a.header().elementCount();
            float[] out = new float[Math.toIntExact(count)];
            if (count == 0) {
                return out;
            }
            if (a.shape().length == 0) {
                a.readSamples(0, 1, out, 0);
            } else {
                a.readSamples(0, Math.toIntExact(a.sampleCount()), out, 0);
            }
            return out;
        } catch (IOException | RuntimeException e) {
            throw new WeightsException(file + ": array '" + name + "': " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            archive.close();
        } catch (IOException ignored) {
            // read-only: nothing is lost
        }
    }
}
