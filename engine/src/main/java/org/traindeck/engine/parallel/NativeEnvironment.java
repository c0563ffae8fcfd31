package org.traindeck.engine.parallel;

import com.sun.jna.Platform;
import com.sun.jna.platform.unix.LibC;
import com.sun.jna.platform.win32.Kernel32;

/**
 * The process's real (C library) environment. {@link System#getenv} is a copy taken at start-up that Java cannot
 * change, but native libraries such as CUDA and NCCL read the C environment, so variables set here reach them if
 * they are set before those libraries read them.
 */
public final class NativeEnvironment {

    private NativeEnvironment() {}

    /** Sets a variable; returns null on success, else the reason it failed. */
    public static String set(String name, String value) {
        try {
            if (Platform.isWindows()) {
                return Kernel32.INSTANCE.SetEnvironmentVariable(name, value) ? null : "SetEnvironmentVariable failed";
            }
            int rc = LibC.INSTANCE.setenv(name, value, 1);
            return rc == 0 ? null : "setenv returned " + rc;
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return "the C library could not be reached: " + e.getMessage();
        }
    }

    /** Reads a variable from the C environment (null when unset or unreadable). */
    public static String get(String name) {
        try {
            if (Platform.isWindows()) {
                char[] buffer = new char[32767];
                int n = Kernel32.INSTANCE.GetEnvironmentVariable(name, buffer, buffer.length);
                return n == 0 ? null : new String(buffer, 0, n);
            }
            return LibC.INSTANCE.getenv(name);
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return null;
        }
    }
}
