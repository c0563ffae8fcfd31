package org.traindeck.engine.devices;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;

/**
 * Reads lines from a tool's output, refusing a line longer than a limit: {@link BufferedReader#readLine()} would keep
 * an endless line in memory until the process runs out of it.
 */
final class BoundedLineReader implements AutoCloseable {

    static final int MAX_LINE_CHARS = 64 * 1024;

    private final Reader in;
    private final StringBuilder line = new StringBuilder();

    BoundedLineReader(Reader in) {
        this.in = new BufferedReader(in);
    }

    /** The next line without its terminator, or null at the end of the stream. */
    String readLine() throws IOException {
        line.setLength(0);
        int c;
        boolean any = false;
        while ((c = in.read()) >= 0) {
            any = true;
            if (c == '\n') {
                return line.toString();
            }
            if (c != '\r') {
                if (line.length() >= MAX_LINE_CHARS) {
                    throw new IOException(
                            "nvidia-smi printed a line longer than " + MAX_LINE_CHARS / 1024 + " kB: not its output");
                }
                line.append((char) c);
            }
        }
        return any ? line.toString() : null;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
