package org.traindeck.engine.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.data.numpy.NpzArchive;

/**
 * The NumPy files a source names, each opened once ({@code x.npy}, or {@code data.npz:x} for an array of an archive),
 * kept open while the data is used, and closed together.
 */
final class NumpyFiles implements AutoCloseable {

    private final Path baseDir;
    private final Map<Path, NpzArchive> archives = new HashMap<>();
    private final List<AutoCloseable> open = new ArrayList<>();

    NumpyFiles(Path baseDir) {
        this.baseDir = baseDir;
    }

    /** The array a config value names. */
    NpyArray array(String spec) throws IOException {
        int colon = spec.lastIndexOf(':');
        if (colon > 0 && spec.substring(0, colon).endsWith(".npz")) {
            Path file = baseDir.resolve(spec.substring(0, colon)).normalize();
            String name = spec.substring(colon + 1);
            NpzArchive archive = archives.get(file);
            if (archive == null) {
                archive = NpzArchive.open(requireFile(file));
                archives.put(file, archive);
                open.add(archive);
            }
            if (!archive.names().contains(name)) {
                throw new IOException(
                        file + " has no array \"" + name + "\" (it has " + String.join(", ", archive.names()) + ")");
            }
            return archive.array(name);
        }
        Path file = baseDir.resolve(spec).normalize();
        if (file.toString().endsWith(".npz")) {
            throw new IOException(file + " is an .npz archive: name the array in it, as \"" + spec + ":x\"");
        }
        NpyArray array = NpyArray.open(requireFile(file));
        open.add(array);
        return array;
    }

    private static Path requireFile(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("no such file: " + file);
        }
        return file;
    }

    @Override
    public void close() {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // a read-only mapping: nothing of the user's is lost if closing fails
            }
        }
        open.clear();
        archives.clear();
    }
}
