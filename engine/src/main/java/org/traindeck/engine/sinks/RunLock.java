package org.traindeck.engine.sinks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One writer per run folder: an exclusive OS file lock on {@code .traindeck.lock}, held for the whole run and released
 * by the OS if the process dies. The file names the holder (PID, command, start time) for the error a second writer
 * gets. Within one process a second lock on the same folder is refused from a registry, without opening the file
 * again: on POSIX systems closing any descriptor of a file drops every lock the process holds on it.
 */
public final class RunLock implements AutoCloseable {

    public static final String FILE = RunFolder.LOCK;

    /** The run folder is in use by another run (in this process or another). */
    public static final class BusyException extends IOException {
        public BusyException(String message) {
            super(message);
        }
    }

    private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private RunLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    private static Path key(Path runDir) {
        return runDir.toAbsolutePath().normalize();
    }

    /** Takes the folder's lock, or says who holds it. */
    public static RunLock acquire(Path runDir) throws IOException {
        Path key = key(runDir);
        if (!HELD_HERE.add(key)) {
            throw new BusyException(runDir + " is in use by another run in this TrainDeck (PID "
                    + ProcessHandle.current().pid() + "): wait for it to end, or stop it, before resuming this run");
        }
        Path file = runDir.resolve(FILE);
        FileChannel channel;
        FileLock lock;
        try {
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            HELD_HERE.remove(key);
            throw e;
        }
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            HELD_HERE.remove(key);
            throw e;
        }
        if (lock == null) {
            HELD_HERE.remove(key);
            String holder = readHolder(channel);
            channel.close();
            throw new BusyException(
                    runDir + " is in use by another TrainDeck run" + (holder.isEmpty() ? "" : " (" + holder + ")")
                            + ": wait for it to end, or stop it, before resuming this run");
        }
        ProcessHandle self = ProcessHandle.current();
        String holder = "PID " + self.pid() + ", started " + Instant.now() + ", command: " + describe(self.info());
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(holder.getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(true);
        return new RunLock(key, channel, lock);
    }

    /**
     * The holder's command: the main class and its arguments as the JVM reports them (the OS's command line is cut
     * short after a long class path), else the executable.
     */
    static String describe(ProcessHandle.Info info) {
        String javaCommand = System.getProperty("sun.java.command");
        String text = javaCommand != null && !javaCommand.isBlank()
                ? "java " + javaCommand
                : info.command().orElse("?");
        return text.length() > 1000 ? text.substring(0, 1000) + "…" : text;
    }

    private static String readHolder(FileChannel channel) {
        try {
            long size = Math.min(channel.size(), 8192);
            ByteBuffer buffer = ByteBuffer.allocate((int) size);
            channel.read(buffer, 0);
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether a run holds {@code runDir} now (for listings and the UI, without taking the lock). */
    public static boolean isHeld(Path runDir) {
        if (HELD_HERE.contains(key(runDir))) {
            return true;
        }
        Path file = runDir.resolve(FILE);
        if (!Files.exists(file)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock probe = channel.tryLock();
            if (probe == null) {
                return true;
            }
            probe.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public synchronized void close() {
        if (!channel.isOpen()) {
            return;
        }
        try {
            lock.release();
        } catch (IOException e) {
            // the channel's close releases it as well
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to release
        }
        HELD_HERE.remove(key);
    }
}
