package org.traindeck.engine.library.tfevents;

import java.io.IOException;
import java.nio.file.Path;

/** An event file that cannot be read as TensorBoard writes them, said with the file and the byte it is about. */
public final class EventFileException extends IOException {

    private final Path file;
    private final long offset;

    public EventFileException(Path file, long offset, String problem) {
        super(file + ": byte " + offset + ": " + problem);
        this.file = file;
        this.offset = offset;
    }

    /** A problem with the file (or folder) as a whole: too many points or tags, no event files. */
    public EventFileException(Path file, String problem) {
        super(file + ": " + problem);
        this.file = file;
        this.offset = -1;
    }

    public Path file() {
        return file;
    }

    /** The byte the problem starts at, or -1 when it is about the whole file. */
    public long offset() {
        return offset;
    }
}
