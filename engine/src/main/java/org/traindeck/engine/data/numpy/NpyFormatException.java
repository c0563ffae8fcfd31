package org.traindeck.engine.data.numpy;

import java.io.IOException;

/**
 * A NumPy file (or an {@code .npz} member) that is damaged, hostile or in a form this reader refuses. The message always
 * names the file, and the byte offset where one applies, so that a user can find the problem without a debugger.
 * For a member of an {@code .npz}, the source names the archive and the member, and offsets count from the member's
 * first byte; problems of the zip itself give offsets in the archive file.
 */
public final class NpyFormatException extends IOException {

    private final long offset;

    /** {@code offset} is a byte offset within {@code source}, or -1 where no single offset is to blame. */
    public NpyFormatException(String source, long offset, String problem) {
        super(source + ": " + problem + (offset >= 0 ? " (at byte offset " + offset + ")" : ""));
        this.offset = offset;
    }

    public NpyFormatException(String source, String problem) {
        this(source, -1, problem);
    }

    /** -1 where the problem has no single offset. */
    public long offset() {
        return offset;
    }
}
