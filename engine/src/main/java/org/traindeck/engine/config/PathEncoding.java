package org.traindeck.engine.config;

import java.nio.file.InvalidPathException;

/**
 * Java names files through the locale's character set: under a non-UTF-8 locale (LANG=C, which is ASCII) a path with
 * "é" in it cannot be opened at all. This turns that into advice instead of a stack trace.
 */
public final class PathEncoding {

    private PathEncoding() {}

    /** What to tell the user about a path Java could not represent. */
    public static String advice(InvalidPathException e) {
        String charset = System.getProperty("sun.jnu.encoding", "the locale's");
        return "the path \"" + e.getInput() + "\" has characters that this system's locale (" + charset
                + ") cannot name as a "
                + "file: start TrainDeck under a UTF-8 locale, for example LC_ALL=C.UTF-8 (the ./traindeck launcher does it itself "
                + "when the locale is not UTF-8), or rename the file";
    }
}
