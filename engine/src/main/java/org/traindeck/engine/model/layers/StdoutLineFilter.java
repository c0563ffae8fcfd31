package org.traindeck.engine.model.layers;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;

/**
 * SameDiff's {@code createGradFunction} prints one "Added differentiated op ..." line per op with a plain
 * {@code System.out.println} (no logger to turn down), which would land in the CLI's tables. While it runs,
 * stdout goes through this filter: those lines are dropped, any other line (another thread's) is passed on.
 */
final class StdoutLineFilter extends OutputStream {

    private static final Object LOCK = new Object();

    private final PrintStream target;
    private final String dropPrefix;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    private StdoutLineFilter(PrintStream target, String dropPrefix) {
        this.target = target;
        this.dropPrefix = dropPrefix;
    }

    static void runDroppingLines(String dropPrefix, Runnable action) {
        synchronized (LOCK) {
            PrintStream original = System.out;
            StdoutLineFilter filter = new StdoutLineFilter(original, dropPrefix);
            System.setOut(new PrintStream(filter, true, Charset.defaultCharset()));
            try {
                action.run();
            } finally {
                System.setOut(original);
                filter.passOnRest();
            }
        }
    }

    @Override
    public synchronized void write(int b) {
        line.write(b);
        if (b == '\n') {
            endLine();
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    private void endLine() {
        String text = line.toString(Charset.defaultCharset());
        line.reset();
        if (!text.startsWith(dropPrefix)) {
            target.print(text);
        }
    }

    private synchronized void passOnRest() {
        if (line.size() > 0) {
            endLine();
        }
        target.flush();
    }
}
