package org.traindeck.engine.trials;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Arrays;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.LifecycleEvent;
import sun.misc.Unsafe;

/**
 * A trial's entry point that crashes its JVM for real (SIGSEGV, writing to address 0) once the run has written its
 * first step checkpoint, for the trials (run folder names) listed in -Dcrash.start (a first process) and
 * -Dcrash.resume (a process that continues after a crash); every other trial trains as {@link TrialMain} does.
 */
public final class CrashingTrialMain {

    private CrashingTrialMain() {}

    public static void main(String[] args) {
        String trial = Path.of(args[1]).getFileName().toString();
        boolean crash = Arrays.asList(System.getProperty("crash." + args[0], "").split(","))
                .contains(trial);
        System.exit(TrialMain.run(args, run -> {
            if (crash) {
                run.subscribe(
                        e -> {
                            if (e instanceof LifecycleEvent l
                                    && l.kind() == LifecycleEvent.Kind.CHECKPOINT_SAVED
                                    && l.message().contains("step-")) {
                                crashNow();
                            }
                        },
                        EventBus.Delivery.LOSSLESS);
            }
        }));
    }

    private static void crashNow() {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            ((Unsafe) f.get(null)).putAddress(0, 0);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
