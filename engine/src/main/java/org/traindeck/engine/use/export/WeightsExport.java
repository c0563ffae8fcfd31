package org.traindeck.engine.use.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes a model's tensors as safetensors (the graph JSON in its {@code __metadata__} under {@value #GRAPH_KEY}) or as an
 * npz with the graph JSON beside it ({@code weights.npz} and {@code weights.json}). Each file is written to a temporary
 * file in its folder and moved into place, so a failed export leaves no half-written file; an existing file is kept
 * unless {@code force}.
 */
public final class WeightsExport {

    public static final String GRAPH_KEY = "traindeck.graph";

    private WeightsExport() {}

    /** What was written: the weights file, the graph JSON file where it is separate (npz), and the tensors. */
    public record Written(Path weights, Path graphFile, List<NamedTensor> tensors) {
        public long parameterCount() {
            return tensors.stream().mapToLong(t -> t.values().length).sum();
        }
    }

    /** @throws ExportException for a file name that does not fit the format, an existing file, or a failed write, naming the file */
    public static Written write(ModelTensors model, ExportFormat format, Path out, boolean force) {
        String name = out.getFileName() == null ? "" : out.getFileName().toString();
        String suffix = "." + format.json;
        if (!name.endsWith(suffix) || name.length() == suffix.length()) {
            throw new ExportException("--out " + out + ": a " + format.json + " file must be named *" + suffix
                    + " (for example model" + suffix + ")");
        }
        Path graphFile = format == ExportFormat.NPZ
                ? out.resolveSibling(name.substring(0, name.length() - suffix.length()) + ".json")
                : null;
        List<Path> targets = new ArrayList<>(List.of(out));
        if (graphFile != null) {
            targets.add(graphFile);
        }
        for (Path p : targets) {
            if (Files.isDirectory(p)) {
                throw new ExportException("--out " + p + " is a folder; name a file");
            }
            if (Files.exists(p) && !force) {
                throw new ExportException(p + " exists; choose another --out or add --force to replace it");
            }
        }
        Path folder = out.toAbsolutePath().getParent();
        if (!Files.isDirectory(folder)) {
            throw new ExportException("--out " + out + ": the folder " + folder + " does not exist");
        }
        String graphJson;
        try {
            graphJson = ModelTensors.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(model.graph());
        } catch (JsonProcessingException e) {
            throw new ExportException("cannot write the graph as JSON: " + e.getMessage(), e);
        }
        if (format == ExportFormat.SAFETENSORS) {
            Map<String, String> metadata = new LinkedHashMap<>();
            metadata.put("format", "pt");
            metadata.put(GRAPH_KEY, graphJson);
            atomically(out, s -> SafetensorsWriter.write(model.tensors(), metadata, s));
        } else {
            atomically(out, s -> NpzWriter.write(model.tensors(), s));
            atomically(graphFile, s -> s.write((graphJson + "\n").getBytes(StandardCharsets.UTF_8)));
        }
        return new Written(out, graphFile, model.tensors());
    }

    private interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    private static void atomically(Path target, Body body) {
        Path folder = target.toAbsolutePath().getParent();
        Path temp = folder.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                OutputStream s = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
                body.writeTo(s);
                s.flush();
                ch.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new ExportException("cannot write " + target + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // the temporary file's name says what it is; the next export does not depend on it
            }
        }
    }
}
