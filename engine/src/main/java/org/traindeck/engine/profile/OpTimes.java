package org.traindeck.engine.profile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.ops.CustomOp;
import org.nd4j.linalg.api.ops.Op;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.profiler.OpProfiler;
import org.nd4j.linalg.profiler.ProfilerConfig;
import org.nd4j.linalg.profiler.data.StringAggregator;

/**
 * ND4J's op profiler around some work: every native op timed (from the Java side, so each op's call overhead is in
 * it), summed per op name. The profiler slows each op down: the times say where native time goes, not how long the
 * step takes without it. On the CPU, run with one OMP thread for op times that are not split across threads.
 */
public final class OpTimes {

    private OpTimes() {}

    /** Runs {@code work} with every op timed; returns each op name's calls and total time, the most time first. */
    public static List<StepProfile.OpTime> during(Runnable work) {
        OpProfiler profiler = OpProfiler.getInstance();
        StringAggregator previous = profiler.getClassAggergator();
        ByName byName = new ByName();
        profiler.reset();
        profiler.setClassAggergator(byName);
        Nd4j.getExecutioner()
                .setProfilingConfig(
                        ProfilerConfig.builder().checkElapsedTime(true).build());
        try {
            work.run();
        } finally {
            Nd4j.getExecutioner().setProfilingConfig(ProfilerConfig.builder().build());
            profiler.setClassAggergator(previous);
        }
        List<StepProfile.OpTime> ops = new ArrayList<>();
        byName.totals.forEach((name, t) -> ops.add(new StepProfile.OpTime(name, t[0], t[1] / 1e6)));
        ops.sort(Comparator.comparingDouble(StepProfile.OpTime::totalMs).reversed());
        return ops;
    }

    /** The profiler's per-class aggregator, also keeping calls and nanoseconds per op name. */
    private static final class ByName extends StringAggregator {
        private final Map<String, long[]> totals = new LinkedHashMap<>();

        @Override
        public void putTime(String key, Op op, long timeSpent) {
            super.putTime(key, op, timeSpent);
            add(op.opName(), timeSpent);
        }

        @Override
        public void putTime(String key, CustomOp op, long timeSpent) {
            super.putTime(key, op, timeSpent);
            add(op.opName(), timeSpent);
        }

        private synchronized void add(String name, long ns) {
            long[] t = totals.computeIfAbsent(name, k -> new long[2]);
            t[0]++;
            t[1] += ns;
        }
    }
}
