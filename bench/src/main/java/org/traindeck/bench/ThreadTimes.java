package org.traindeck.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Where a process's CPU went between two moments, thread by thread: every thread of the process as Linux counts it
 * (/proc/self/task: the JVM's own collector and compiler threads and native threads included, which the JVM's thread
 * bean does not list), with the collectors' and the JIT's totals from their beans. Threads are grouped by name with
 * their numbers left out ("GC Thread#0" and "GC Thread#1" are one line). Linux only; elsewhere it lists nothing.
 */
final class ThreadTimes {

    /** Clock ticks a second of /proc's CPU times (USER_HZ: 100 on every Linux build in use). */
    private static final double TICKS = 100;

    /**
     * At one moment: each thread group's {CPU seconds, seconds runnable but waiting for a core, voluntary switches
     * (each a wait for something), CPU seconds in the kernel (page faults, system calls)}, the process's CPU seconds (its ended threads included), the collectors' count
     * and time, and the JIT's time.
     */
    record Snapshot(
            long wallNanos,
            Map<String, double[]> byGroup,
            double processCpu,
            long gcCount,
            long gcMillis,
            long jitMillis) {}

    private static final int CPU = 0;
    private static final int QUEUED = 1;
    private static final int WAITS = 2;
    private static final int SYSTEM = 3;
    private static final int FIGURES = 4;

    private ThreadTimes() {}

    static Snapshot now() {
        Map<String, double[]> groups = new TreeMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            try (Stream<Path> all = Files.list(tasks)) {
                all.forEach(t -> addThread(t, groups));
            } catch (IOException e) {
                groups.clear();
            }
        }
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long jitMillis = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
        return new Snapshot(System.nanoTime(), groups, processCpu(), gcCount, gcMillis, jitMillis);
    }

    private static double processCpu() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(after[11]) + Long.parseLong(after[12])) / TICKS;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static void addThread(Path task, Map<String, double[]> groups) {
        try {
            // schedstat: nanoseconds on a core, nanoseconds runnable in the queue, time slices
            String[] sched = Files.readString(task.resolve("schedstat")).trim().split(" ");
            long waits = Files.readAllLines(task.resolve("status")).stream()
                    .filter(l -> l.startsWith("voluntary_ctxt_switches:"))
                    .mapToLong(
                            l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                    .sum();
            String stat = Files.readString(task.resolve("stat"));
            // the fields after the name (in parentheses, which may hold spaces) are counted from the last ')'
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            String name = Files.readString(task.resolve("comm")).trim();
            double[] g = groups.computeIfAbsent(group(name), k -> new double[FIGURES]);
            g[SYSTEM] += Long.parseLong(after[12]) / TICKS;
            g[CPU] += Long.parseLong(sched[0]) / 1e9;
            g[QUEUED] += Long.parseLong(sched[1]) / 1e9;
            g[WAITS] += waits;
        } catch (IOException | RuntimeException e) {
            // a thread that ended between the listing and the read
        }
    }

    /** A thread's name without its number, so that a pool's threads are one group. */
    static String group(String name) {
        return name.replaceAll("[#-]?\\d+$", "").trim();
    }

    /**
     * Prints, as {@link ChildJvm#DETAIL} lines, each epoch's training thread ({@link #training}) and where the CPU
     * went from the first epoch's end to the last's ({@link #describe}); {@code atEpochEnds}: a snapshot at each
     * epoch's end (nothing is printed for fewer than two). The snapshots are taken as each epoch's time event is
     * delivered, a little after the epoch ends, so "blocked" (the wall less CPU and queueing) is only good to that
     * delay: it can come out slightly below zero.
     */
    static void print(List<Snapshot> atEpochEnds) {
        if (atEpochEnds.size() < 2) {
            return;
        }
        System.out.println(ChildJvm.DETAIL + "each epoch after the first, the training thread:");
        for (int i = 1; i < atEpochEnds.size(); i++) {
            System.out.println(ChildJvm.DETAIL + "  " + training(atEpochEnds.get(i - 1), atEpochEnds.get(i)));
        }
        System.out.println(ChildJvm.DETAIL + "from the first epoch's end to the last's:");
        describe(atEpochEnds.get(0), atEpochEnds.get(atEpochEnds.size() - 1))
                .forEach(line -> System.out.println(ChildJvm.DETAIL + line));
    }

    /** The training thread's (the JVM's main thread, "java") wall, CPU, time waiting for a core, and the JIT's CPU. */
    static String training(Snapshot a, Snapshot b) {
        double[] x = a.byGroup().getOrDefault("java", new double[FIGURES]);
        double[] y = b.byGroup().getOrDefault("java", new double[FIGURES]);
        double[] c2a = a.byGroup().getOrDefault("C2 CompilerThre", new double[FIGURES]);
        double[] c2b = b.byGroup().getOrDefault("C2 CompilerThre", new double[FIGURES]);
        return String.format(
                Locale.ROOT,
                "wall %.3f s: CPU %.3f s (in the kernel %.2f s), waiting for a core %.3f s, blocked %.3f s (%.0f waits);"
                        + " C2 JIT CPU %.3f s",
                (b.wallNanos() - a.wallNanos()) / 1e9,
                y[CPU] - x[CPU],
                y[SYSTEM] - x[SYSTEM],
                y[QUEUED] - x[QUEUED],
                (b.wallNanos() - a.wallNanos()) / 1e9 - (y[CPU] - x[CPU]) - (y[QUEUED] - x[QUEUED]),
                y[WAITS] - x[WAITS],
                c2b[CPU] - c2a[CPU]);
    }

    /**
     * Lines that say where the CPU went from {@code a} to {@code b}: the wall time, each group's CPU seconds (the
     * largest first, groups under 10 ms left out), the collections and their time, the JIT's time.
     */
    static List<String> describe(Snapshot a, Snapshot b) {
        double wall = (b.wallNanos() - a.wallNanos()) / 1e9;
        List<String> out = new ArrayList<>();
        out.add(String.format(
                Locale.ROOT,
                "wall %.2f s; collections %d taking %d ms; JIT compiling %d ms",
                wall,
                b.gcCount() - a.gcCount(),
                b.gcMillis() - a.gcMillis(),
                b.jitMillis() - a.jitMillis()));
        Map<String, double[]> delta = new TreeMap<>();
        b.byGroup().forEach((k, v) -> {
            double[] before = a.byGroup().getOrDefault(k, new double[FIGURES]);
            delta.put(k, new double[] {v[CPU] - before[CPU], v[QUEUED] - before[QUEUED], v[WAITS] - before[WAITS]});
        });
        double live = delta.values().stream().mapToDouble(v -> v[CPU]).sum();
        double all = b.processCpu() - a.processCpu();
        out.add(String.format(
                Locale.ROOT,
                "CPU of the process %.2f s (%.0f %% of the wall), of threads that ended meanwhile about %.2f s",
                all,
                100 * all / wall,
                Math.max(0, all - live)));
        delta.entrySet().stream()
                .filter(e -> e.getValue()[CPU] >= 0.01)
                .sorted((x, y) -> Double.compare(y.getValue()[CPU], x.getValue()[CPU]))
                .forEach(e -> out.add(String.format(
                        Locale.ROOT,
                        "  %-16s CPU %6.2f s (%4.1f %% of the wall), waiting for a core %5.2f s, %6.0f waits",
                        e.getKey(),
                        e.getValue()[CPU],
                        100 * e.getValue()[CPU] / wall,
                        e.getValue()[QUEUED],
                        e.getValue()[WAITS])));
        return out;
    }
}
