package org.traindeck.engine.sinks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.SampleHistory;
import org.traindeck.engine.events.SamplesEvent;

/**
 * The run folder's {@code samples/}: each kept interval's pictures as PNG files in a folder of its own
 * ({@code samples/000012/<example>-<picture>.png}) and {@code samples/index.jsonl}, one line per kept interval
 * ({@code interval}, {@code time}, {@code stage}, {@code stageIndex}, {@code epoch}, {@code step}, {@code task},
 * {@code samples}: each with {@code index}, {@code truth}, {@code predicted}, {@code top}, {@code prompt},
 * {@code text}, and {@code pictures} by file). Older intervals are thinned ({@link SampleHistory}), so the folder stays
 * small on long runs; the index is replaced whole (a temporary file moved over it), so a reader never sees half a line.
 * A resumed run continues the index, dropping the intervals after the step it resumes from.
 */
public final class SamplesFileSink extends FlushingSink {

    public static final String FOLDER = RunFolder.SAMPLES;
    public static final String INDEX = "index.jsonl";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path folder;
    private final List<ObjectNode> kept = new ArrayList<>();
    private int made;

    /** @param restartStep the step a resumed run continues from (-1 for a new run) */
    public SamplesFileSink(Path runDir, long restartStep) throws IOException {
        this.folder = runDir.resolve(FOLDER);
        Files.createDirectories(folder);
        Path index = folder.resolve(INDEX);
        if (Files.exists(index)) {
            for (String line : Files.readAllLines(index, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = JSON.readTree(line);
                if (n instanceof ObjectNode o) {
                    kept.add(o);
                    made = Math.max(made, o.path("interval").asInt() + 1);
                }
            }
            if (restartStep >= 0) {
                dropAfter(restartStep);
            }
        }
    }

    @Override
    protected void write(EngineEvent event) throws IOException {
        if (event instanceof SamplesEvent s) {
            add(s);
        } else if (event instanceof LifecycleEvent l && l.kind() == LifecycleEvent.Kind.REWIND) {
            dropAfter(l.step());
        }
    }

    private void add(SamplesEvent s) throws IOException {
        int ordinal = made++;
        String name = String.format("%06d", ordinal);
        Path dir = folder.resolve(name);
        Files.createDirectories(dir);
        ObjectNode line = JSON.createObjectNode();
        line.put("interval", ordinal);
        line.put("time", BigDecimal.valueOf(s.wallTimeMillis(), 3));
        line.put("stage", s.stage());
        line.put("stageIndex", s.stageIndex());
        line.put("epoch", s.epoch());
        line.put("step", s.step());
        line.put("task", s.task());
        ArrayNode samples = line.putArray("samples");
        for (SamplesEvent.Sample sample : s.samples()) {
            ObjectNode o = samples.addObject();
            o.put("index", sample.index());
            o.put("truth", sample.truth());
            o.put("predicted", sample.predicted());
            ArrayNode top = o.putArray("top");
            sample.top().forEach(t -> top.addObject().put("label", t.label()).put("probability", t.probability()));
            o.put("prompt", sample.prompt());
            o.put("text", sample.text());
            ArrayNode pictures = o.putArray("pictures");
            for (SamplesEvent.Picture p : sample.pictures()) {
                String file = sample.index() + "-" + p.label().replaceAll("[^A-Za-z0-9_-]", "_") + ".png";
                Files.write(dir.resolve(file), p.png());
                pictures.addObject()
                        .put("label", p.label())
                        .put("width", p.width())
                        .put("height", p.height())
                        .put("channels", p.channels())
                        .put("file", name + "/" + file);
            }
        }
        kept.add(line);
        kept.removeIf(o -> {
            int n = o.path("interval").asInt();
            boolean drop = !SampleHistory.keeps(n, made);
            if (drop) {
                deleteQuietly(folder.resolve(String.format("%06d", n)));
            }
            return drop;
        });
        writeIndex();
    }

    private void dropAfter(long step) throws IOException {
        boolean changed = kept.removeIf(o -> {
            boolean drop = o.path("step").asLong() > step;
            if (drop) {
                deleteQuietly(
                        folder.resolve(String.format("%06d", o.path("interval").asInt())));
            }
            return drop;
        });
        if (changed) {
            writeIndex();
        }
    }

    private void writeIndex() throws IOException {
        StringBuilder b = new StringBuilder();
        for (ObjectNode o : kept) {
            b.append(JSON.writeValueAsString(o)).append('\n');
        }
        Path tmp = folder.resolve(INDEX + ".tmp");
        Files.writeString(tmp, b, StandardCharsets.UTF_8);
        Files.move(tmp, folder.resolve(INDEX), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a folder that cannot be removed only costs disk; the index no longer lists it
        }
    }

    @Override
    protected void flush() {
        // every interval is written whole when it comes
    }

    @Override
    protected void closeOutput() {}
}
