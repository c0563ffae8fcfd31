package org.traindeck.engine.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.traindeck.engine.sinks.RunLock;

/**
 * The two locks of a queue file, across processes (an OS file lock) and threads (the OS lock is per process):
 * the runner's, held while the queue runs, so two runners never start the same runs; and the writer's, held for one
 * read-modify-write of the file.
 */
final class QueueLock implements AutoCloseable {

    private static final Map<Path, ReentrantLock> WRITERS_HERE = new ConcurrentHashMap<>();
    private static final Map<Path, Boolean> RUNNERS_HERE = new ConcurrentHashMap<>();

    private final FileChannel channel;
    private final FileLock lock;
    private final Runnable release;

    private QueueLock(FileChannel channel, FileLock lock, Runnable release) {
        this.channel = channel;
        this.lock = lock;
        this.release = release;
    }

    /** Waits for, then holds, the right to rewrite the queue file. */
    static QueueLock forWriting(Path queueFile) throws IOException {
        Path key = queueFile.toAbsolutePath().normalize();
        ReentrantLock here = WRITERS_HERE.computeIfAbsent(key, k -> new ReentrantLock());
        here.lock();
        try {
            Files.createDirectories(key.getParent());
            FileChannel channel = FileChannel.open(
                    key.resolveSibling("." + key.getFileName() + ".write-lock"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            return new QueueLock(channel, channel.lock(), here::unlock);
        } catch (IOException | RuntimeException e) {
            here.unlock();
            throw e;
        }
    }

    /** Holds the right to run the queue, or says who has it. */
    static QueueLock forRunning(Path queueFile) throws IOException {
        Path key = queueFile.toAbsolutePath().normalize();
        if (RUNNERS_HERE.putIfAbsent(key, Boolean.TRUE) != null) {
            throw new RunLock.BusyException(queueFile + " is already being run in this TrainDeck");
        }
        try {
            Files.createDirectories(key.getParent());
            Path file = key.resolveSibling("." + key.getFileName() + ".run-lock");
            FileChannel channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                String holder = Files.readString(file, StandardCharsets.UTF_8).strip();
                channel.close();
                throw new RunLock.BusyException(queueFile + " is already being run by another TrainDeck"
                        + (holder.isEmpty() ? "" : " (" + holder + ")")
                        + ": add to it instead, and it runs what you add");
            }
            channel.truncate(0);
            channel.write(
                    StandardCharsets.UTF_8.encode(
                            "PID " + ProcessHandle.current().pid()),
                    0);
            return new QueueLock(channel, lock, () -> RUNNERS_HERE.remove(key));
        } catch (IOException | RuntimeException e) {
            RUNNERS_HERE.remove(key);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
            channel.close();
        } finally {
            release.run();
        }
    }
}
