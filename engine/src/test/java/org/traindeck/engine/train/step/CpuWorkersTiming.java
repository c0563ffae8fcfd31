package org.traindeck.engine.train.step;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.model.ConvStepTiming;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.parallel.DeviceAffinity;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * A measurement, not a test: what one worker's half of a {@code cpu:2} step costs against the same half computed by
 * one thread while the other worker idles, in one process, on the same replicas and threads as a run's
 * {@link ReplicaSet}. Each round runs, in rotating order: replica 0 alone (the calling thread), replica 1 alone (its
 * own thread), and both at once. Each task measures its own thread CPU time, minor page faults
 * ({@code /proc/thread-self/stat}) and time runnable but waiting for a core ({@code schedstat}). Then the same three
 * modes with probes that hold no network: a register-only loop (the core's clock and a shared core), an L2-sized
 * sgemm (the core's private caches) and a 64 MB sweep (the shared L3 and memory). Prints medians, and the median of
 * each round's pair / alone ratio with its range.
 * java -cp test-classes:classes:deps org.traindeck.engine.train.step.CpuWorkersTiming [unet|lenet] [rounds]
 */
public final class CpuWorkersTiming {

    /** What one task measured on its own thread: CPU time, minor page faults, time runnable but not running. */
    record Sample(double cpuMs, double minorFaults, double waitMs) {}

    private CpuWorkersTiming() {}

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        String which = args.length > 0 ? args[0] : "unet";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Nd4jRuntime.shareThreads(2);
        ComputationGraph master = ConvStepTiming.network(which);
        DevicePlacement placement =
                DevicePlacement.of(DeviceResolver.Resolved.cpu(2, List.of()), DeviceAffinity.nd4j());
        placement.attachCurrentThread(0);
        try (ReplicaSet replicas = new ReplicaSet(master, placement, "timing", OneDnnHelpers::install)) {
            ShardGradient[] shards = {
                new ShardGradient(replicas.replica(0), false), new ShardGradient(replicas.replica(1), false)
            };
            int half = which.equals("lenet") ? 32 : 16;
            BatchMaker.Batch[] halves = {ConvStepTiming.batch(which, half, 5), ConvStepTiming.batch(which, half, 6)};
            System.out.printf(
                    Locale.ROOT, "%s, half batch %d, %d rounds, load %s%n", which, halves[0].size(), rounds, load());
            compare("half-batch gradient", replicas, w -> shards[w].compute(List.of(halves[w]), j -> 7L), rounds);
            long[] sink = new long[2];
            compare("register loop", replicas, w -> sink[w] += registerLoop(), rounds);
            INDArray[][] gemm = new INDArray[2][];
            compare("L2 sgemm 256^3 x20", replicas, w -> gemm(gemm, w), rounds);
            float[][] big = {new float[16 << 20], new float[16 << 20]};
            compare("64 MB sweep x4", replicas, w -> sink[w] += sweep(big[w]), rounds);
            // the probes' results printed, so that the JIT cannot leave their loops out
            System.out.printf(Locale.ROOT, "load after: %s (%d)%n", load(), sink[0] + sink[1]);
        }
        System.exit(0);
    }

    /** Alone on worker 0, alone on worker 1, both at once, rotated round by round; prints the figures. */
    private static void compare(String what, ReplicaSet replicas, IntFunction<Object> work, int rounds) {
        int modes = 3;
        Sample[][][] samples = new Sample[modes][2][rounds];
        for (int r = -3; r < rounds; r++) {
            for (int k = 0; k < modes; k++) {
                int mode = (k + Math.max(r, 0)) % modes;
                List<Sample> got = replicas.onReplicas(w -> mode == 2 || mode == w ? timed(work, w) : null);
                if (r >= 0) {
                    for (int w = 0; w < 2; w++) {
                        samples[mode][w][r] = got.get(w);
                    }
                }
            }
        }
        double[][] ratios = new double[2][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int w = 0; w < 2; w++) {
                ratios[w][r] = samples[2][w][r].cpuMs() / samples[w][w][r].cpuMs();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%-20s alone w0 %s, w1 %s | pair w0 %s, w1 %s | pair/alone w0 %s, w1 %s%n",
                what,
                medians(samples[0][0]),
                medians(samples[1][1]),
                medians(samples[2][0]),
                medians(samples[2][1]),
                spread(ratios[0]),
                spread(ratios[1]));
    }

    private static Sample timed(IntFunction<Object> work, int w) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long faults = minorFaults();
        long wait = runQueueWaitNanos();
        long t0 = bean.getCurrentThreadCpuTime();
        work.apply(w);
        long t1 = bean.getCurrentThreadCpuTime();
        return new Sample((t1 - t0) / 1e6, minorFaults() - faults, (runQueueWaitNanos() - wait) / 1e6);
    }

    /** The calling thread's time runnable but waiting for a core (the second field of its schedstat line). */
    static long runQueueWaitNanos() {
        try {
            return Long.parseLong(Files.readString(Path.of("/proc/thread-self/schedstat"))
                    .trim()
                    .split(" ")[1]);
        } catch (IOException e) {
            return -1;
        }
    }

    /** The calling thread's minor page faults (field 10 of its stat line). */
    static long minorFaults() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[7]);
        } catch (IOException e) {
            return -1;
        }
    }

    private static long registerLoop() {
        long x = 1;
        for (int i = 0; i < 50_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    private static Object gemm(INDArray[][] arrays, int w) {
        if (arrays[w] == null) {
            Nd4j.getRandom().setSeed(w);
            arrays[w] = new INDArray[] {
                Nd4j.rand(DataType.FLOAT, 256, 256),
                Nd4j.rand(DataType.FLOAT, 256, 256),
                Nd4j.create(DataType.FLOAT, 256, 256)
            };
        }
        for (int i = 0; i < 20; i++) {
            Nd4j.gemm(arrays[w][0], arrays[w][1], arrays[w][2], false, false, 1.0, 0.0);
        }
        return null;
    }

    private static long sweep(float[] a) {
        float s = 0;
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < a.length; i += 16) {
                a[i] += 1f;
                s += a[i];
            }
        }
        return (long) s;
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    /** The medians of the samples' CPU milliseconds, faults and run-queue wait. */
    private static String medians(Sample[] samples) {
        double[][] v = new double[3][samples.length];
        for (int i = 0; i < samples.length; i++) {
            v[0][i] = samples[i].cpuMs();
            v[1][i] = samples[i].minorFaults();
            v[2][i] = samples[i].waitMs();
        }
        for (double[] column : v) {
            Arrays.sort(column);
        }
        int m = samples.length / 2;
        return String.format(Locale.ROOT, "%7.2f ms %5.0f flt %5.2f wait", v[0][m], v[1][m], v[2][m]);
    }

    private static String spread(double[] ratios) {
        double[] s = ratios.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%.3f (%.3f-%.3f)", s[s.length / 2], s[0], s[s.length - 1]);
    }
}
