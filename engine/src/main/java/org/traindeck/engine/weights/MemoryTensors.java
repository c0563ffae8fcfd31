package org.traindeck.engine.weights;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.use.export.NamedTensor;

/** Tensors already in memory under the export's names (a TrainDeck checkpoint's network, named as export names it). */
final class MemoryTensors implements TensorFile {

    private final String source;
    private final Map<String, NamedTensor> tensors = new LinkedHashMap<>();
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    MemoryTensors(String source, List<NamedTensor> list) {
        this.source = source;
        for (NamedTensor t : list) {
            tensors.put(t.name(), t);
            entries.put(t.name(), new Entry(t.name(), t.shape(), "F32", true));
        }
    }

    @Override
    public String source() {
        return source;
    }

    @Override
    public Map<String, Entry> entries() {
        return entries;
    }

    @Override
    public float[] read(String name) {
        return tensors.get(name).values();
    }

    @Override
    public void close() {
        tensors.clear();
    }
}
