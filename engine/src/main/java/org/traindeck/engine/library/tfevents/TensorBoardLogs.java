package org.traindeck.engine.library.tfevents;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.library.tfevents.ProtoInput.Malformed;

/**
 * Opens TensorBoard logs another tool wrote (TensorFlow's summary writers, PyTorch's SummaryWriter) as a read-only
 * run: one {@code events.out.tfevents.*} file, or a folder of them (a resumed run adds a file, read after the
 * earlier ones). Only the folder's own files are read, not its subfolders, which TensorBoard shows as runs of their
 * own.
 */
public final class TensorBoardLogs {

    /** The start of every event file's name: {@code events.out.tfevents.<seconds>.<host>.<pid>.<n>}. */
    public static final String FILE_PREFIX = "events.out.tfevents.";

    private TensorBoardLogs() {}

    /** Whether {@code path} is an event file, or a folder holding some. */
    public static boolean holdsEvents(Path path) {
        try {
            return isEventFile(path)
                    || Files.isDirectory(path) && !eventFiles(path).isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    public static ImportedRun open(Path fileOrFolder) throws IOException {
        return open(fileOrFolder, ReadLimits.DEFAULT);
    }

    /**
     * Reads every scalar of the file, or of the folder's files in the order they were written.
     *
     * @throws EventFileException a damaged record (at its byte), or logs larger than {@code limits} allow
     */
    public static ImportedRun open(Path fileOrFolder, ReadLimits limits) throws IOException {
        Path source = fileOrFolder.toAbsolutePath().normalize();
        List<Path> files;
        if (Files.isDirectory(source)) {
            files = eventFiles(source);
            if (files.isEmpty()) {
                throw new EventFileException(
                        source, "no TensorBoard event files (" + FILE_PREFIX + "*) in this folder");
            }
        } else if (Files.isRegularFile(source)) {
            files = List.of(source);
        } else {
            throw new EventFileException(source, "no such file or folder");
        }
        ScalarLog log = new ScalarLog(source, limits);
        List<String> notes = new ArrayList<>();
        double[] firstWallTime = {Double.NaN};
        for (Path file : files) {
            long truncatedAt = TfRecordReader.read(file, limits.maxRecordBytes(), (data, offset) -> {
                TfEventDecoder.Decoded e = decode(file, data, offset);
                if (Double.isNaN(firstWallTime[0]) && e.wallTime() > 0) {
                    firstWallTime[0] = e.wallTime();
                }
                log.add(e);
            });
            if (truncatedAt >= 0) {
                notes.add(file.getFileName() + ": the last record, from byte " + truncatedAt
                        + ", is incomplete (a writer may still be writing it) and is left out");
            }
        }
        if (log.restarts() > 0) {
            notes.add(log.restarts() + " restart(s) of the run: the points after each restart's step that an earlier"
                    + " attempt wrote are left out, as TensorBoard does");
        }
        Path folder = Files.isDirectory(source) ? source : source.getParent();
        String name = folder == null || folder.getFileName() == null
                ? source.toString()
                : folder.getFileName().toString();
        long started = Double.isNaN(firstWallTime[0]) ? 0 : Math.round(firstWallTime[0] * 1000);
        return new ImportedRun(name, source, files, started, log.series(), notes);
    }

    private static TfEventDecoder.Decoded decode(Path file, byte[] data, long offset) throws EventFileException {
        try {
            return TfEventDecoder.decode(data);
        } catch (Malformed m) {
            // the record's data starts after its 12-byte header
            throw new EventFileException(file, offset + 12 + m.position, "not a TensorBoard event: " + m.getMessage());
        }
    }

    private static boolean isEventFile(Path path) {
        Path name = path.getFileName();
        return name != null && name.toString().startsWith(FILE_PREFIX) && Files.isRegularFile(path);
    }

    /** The folder's event files in the order they were written: by the seconds in their names, then by name. */
    private static List<Path> eventFiles(Path folder) throws IOException {
        try (Stream<Path> children = Files.list(folder)) {
            return children.filter(TensorBoardLogs::isEventFile)
                    .sorted(Comparator.comparingLong(TensorBoardLogs::seconds)
                            .thenComparing(p -> p.getFileName().toString()))
                    .toList();
        }
    }

    private static long seconds(Path file) {
        String rest = file.getFileName().toString().substring(FILE_PREFIX.length());
        int dot = rest.indexOf('.');
        try {
            return Long.parseLong(dot < 0 ? rest : rest.substring(0, dot));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
