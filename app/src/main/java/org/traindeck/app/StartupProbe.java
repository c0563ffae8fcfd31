package org.traindeck.app;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import javafx.animation.AnimationTimer;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.util.Duration;

/**
 * For the start-up benchmark (--startup-probe): prints the milliseconds from the JVM's start to the first frame
 * painted after the window was shown and the CPU time used until then, and to the first frame with the window's content
 * (the config loaded and checked), then, three seconds later, the idle heap and resident memory, and exits.
 */
public final class StartupProbe {

    private StartupProbe() {}

    public static void reportAfterFirstFrame() {
        reportAfterFirstFrame(() -> true);
    }

    /**
     * Also reports when the content was first painted ({@code content-ms}, -1 if it did not come within two
     * minutes): the first frame after {@code contentShown} said yes.
     */
    public static void reportAfterFirstFrame(BooleanSupplier contentShown) {
        new AnimationTimer() {
            private int frames;
            private long firstFrame = -1;
            private long cpu;
            private int contentFrames;

            @Override
            public void handle(long now) {
                // the first pulse lays out and paints; the second shows it was painted
                if (++frames < 2) {
                    return;
                }
                long sinceStart = System.currentTimeMillis()
                        - ManagementFactory.getRuntimeMXBean().getStartTime();
                if (firstFrame < 0) {
                    firstFrame = sinceStart;
                    cpu = processCpuMillis();
                }
                if (contentShown.getAsBoolean()) {
                    contentFrames++;
                }
                boolean gaveUp = sinceStart - firstFrame > 120_000;
                if (contentFrames < 2 && !gaveUp) {
                    return;
                }
                stop();
                long content = gaveUp ? -1 : sinceStart;
                PauseTransition idle = new PauseTransition(Duration.seconds(3));
                idle.setOnFinished(e -> {
                    System.gc();
                    Runtime rt = Runtime.getRuntime();
                    long heap = (rt.totalMemory() - rt.freeMemory()) >> 20;
                    System.out.println("startup-probe first-frame-ms=" + firstFrame + " cpu-ms=" + cpu + " heap-mib="
                            + heap + " rss-mib=" + residentMib() + " content-ms=" + content);
                    System.out.flush();
                    Platform.exit();
                    System.exit(0);
                });
                idle.play();
            }
        }.start();
    }

    /** CPU time the process used so far, all threads: on a machine shared with other work it varies less than wall time. */
    static long processCpuMillis() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return os.getProcessCpuTime() / 1_000_000;
        }
        return -1;
    }

    static long residentMib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) >> 10;
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }
}
