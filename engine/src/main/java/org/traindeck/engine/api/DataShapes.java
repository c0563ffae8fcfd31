package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.train.state.StartWork;

/**
 * What a config's training data looks like to a model, read once per data config: a summary follows every edit of a
 * model, and reading a large dataset on each keystroke would take seconds. The data is read again when its config or
 * one of its files (size, modification time) changes.
 */
final class DataShapes {

    private static final int KEPT = 4;

    /** One sample of the data's shape (zeros), with what the real data is, for messages. */
    record Shape(Dataset standIn, String described) {}

    private record Key(DataConfig data, Path baseDir, long seed, List<String> files) {}

    private record Entry(Shape shape, InvalidConfigException problem) {}

    private final AtomicInteger reads = new AtomicInteger();
    private final StartWork work;
    private final Map<Key, Entry> read = new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            return size() > KEPT;
        }
    };

    DataShapes() {
        this(StartWork.NONE);
    }

    /** @param work told of each read */
    DataShapes(StartWork work) {
        this.work = work;
    }

    /** @throws InvalidConfigException when the data cannot be read, at its config path */
    Shape of(RunConfig config) {
        return of(config, config.data(), "data");
    }

    /** The shape of {@code data} (the run's, or a stage's at {@code at}), read once while its files do not change. */
    Shape of(RunConfig config, DataConfig data, String at) {
        Key key = new Key(data, config.baseDir(), config.seed(), stamps(config, data));
        Entry e;
        synchronized (read) {
            e = read.get(key);
        }
        if (e == null) {
            reads.incrementAndGet();
            work.dataRead();
            e = load(config, data, at);
            synchronized (read) {
                read.put(key, e);
            }
        }
        if (e.problem() != null) {
            throw e.problem();
        }
        return e.shape();
    }

    /** How many times data was read (not taken from what was read before). */
    int reads() {
        return reads.get();
    }

    private static Entry load(RunConfig config, DataConfig dataConfig, String at) {
        try (DataLoader.Loaded data = DataLoader.load(config, dataConfig, at)) {
            return new Entry(new Shape(data.train().standIn(), data.train().toString()), null);
        } catch (InvalidConfigException e) {
            return new Entry(null, e);
        }
    }

    /** Each data file's path, size and modification time. */
    private static List<String> stamps(RunConfig config, DataConfig data) {
        List<String> stamps = new ArrayList<>();
        for (SourceConfig s : new SourceConfig[] {data.train(), data.validation()}) {
            for (String path : s == null ? List.<String>of() : s.paths()) {
                stamps.add(stamp(config, path));
            }
        }
        return stamps;
    }

    private static String stamp(RunConfig config, String path) {
        try {
            Path p = config.resolve(path);
            return p + " " + Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis();
        } catch (IOException | RuntimeException e) {
            return path + " unreadable";
        }
    }
}
