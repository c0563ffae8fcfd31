package org.traindeck.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.fit.NativeBytes;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * One training run in a JVM of its own, so that its memory peaks are its own: prints its samples/s, the peak of ND4J's
 * off-heap bytes (JavaCPP's count, sampled) above the level before the run, the size its workspaces reached
 * (allocated outside JavaCPP's count), the peak of the heap in use right after a collection above the level before
 * (the heap's live part, where the own kernels keep their Java-side buffers; "in use" at any other moment counts
 * garbage), the process's peak resident size (VmHWM), and the training thread's CPU seconds. Arguments as {@link TrainDeckChildRun}'s, less the devices
 * (one CPU device).
 */
public final class MemoryChildRun {

    static final String RESULT = "traindeck_memory ";

    private MemoryChildRun() {}

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        EngineBench.Workload w = EngineBench.Workload.fromArgs(args);
        System.gc();
        // JavaCPP's count alone misses ND4J's arrays (the parameters, their gradients, Adam's state, the kernels'
        // buffers)
        long base = NativeBytes.now();
        Runtime rt = Runtime.getRuntime();
        long baseHeap = rt.totalMemory() - rt.freeMemory();
        AtomicLong heapPeak = heapPeakAfterCollections(baseHeap);
        long baseRss = kilobytes("VmRSS:") << 10;
        AtomicLong peak = new AtomicLong(base);
        AtomicBoolean done = new AtomicBoolean();
        Thread sampler = nativePeakSampler(peak, done);
        sampler.start();
        // the single-device run trains on this thread, so its workspaces (and its CPU time) are this thread's
        long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        double rate = EngineBench.measure(EngineBench.config(w, Path.of(args[5]), "cpu"), w.samples())
                .samplesPerSecond();
        long cpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
        done.set(true);
        sampler.join();
        long workspaces = printWorkspaces();
        System.out.println(String.format(
                Locale.ROOT,
                "%s%.3f %d %d %d %d %d %.3f",
                RESULT,
                rate,
                peak.get() - base,
                workspaces,
                heapPeak.get() - baseHeap,
                kilobytes("VmHWM:") << 10,
                baseRss,
                cpu / 1e9));
        System.exit(0);
    }

    /** The heap in use right after each collection, at its highest so far (from {@code baseHeap}). */
    private static AtomicLong heapPeakAfterCollections(long baseHeap) {
        AtomicLong heapPeak = new AtomicLong(baseHeap);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc)
                    .addNotificationListener(
                            (n, handback) -> {
                                if (n.getType()
                                        .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                                    long after = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData())
                                            .getGcInfo()
                                            .getMemoryUsageAfterGc()
                                            .values()
                                            .stream()
                                            .mapToLong(MemoryUsage::getUsed)
                                            .sum();
                                    heapPeak.accumulateAndGet(after, Math::max);
                                }
                            },
                            null,
                            null);
        }
        return heapPeak;
    }

    /** A daemon thread, not yet started, that keeps {@code peak} at JavaCPP's highest count until {@code done}. */
    private static Thread nativePeakSampler(AtomicLong peak, AtomicBoolean done) {
        Thread sampler = new Thread(
                () -> {
                    while (!done.get()) {
                        peak.accumulateAndGet(NativeBytes.now(), Math::max);
                        Thread.onSpinWait();
                    }
                },
                "memory-sampler");
        sampler.setDaemon(true);
        return sampler;
    }

    /** Prints where the memory goes, for the docs' breakdown; returns this thread's workspaces' total bytes. */
    private static long printWorkspaces() {
        List<MemoryWorkspace> all = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread();
        // ChildJvm echoes lines that start with DETAIL
        System.out.println(ChildJvm.DETAIL + "workspaces: "
                + all.stream()
                        .filter(ws -> ws.getCurrentSize() > 0)
                        .map(ws -> String.format(Locale.ROOT, "%s %.1f MB", ws.getId(), ws.getCurrentSize() / 1e6))
                        .collect(Collectors.joining(", ")));
        return all.stream().mapToLong(MemoryWorkspace::getCurrentSize).sum();
    }

    /** A figure of /proc/self/status in kB (0 where there is none). */
    private static long kilobytes(String field) throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return 0;
        }
        return Files.readAllLines(status).stream()
                .filter(l -> l.startsWith(field))
                .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
                .findFirst()
                .orElse(0);
    }
}
