package org.traindeck.engine.train.callback;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.sinks.CsvSink;
import org.traindeck.engine.sinks.JsonlSink;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.sinks.RunStatusSink;
import org.traindeck.engine.sinks.TensorBoardSink;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

/**
 * A measurement, not a test: the training thread's CPU for one {@code cpu:2} step's records, the eight metric events
 * {@link MetricWindows} publishes when it logs every step (loss, lr, gradient norm, samples/s in all and per device,
 * scaling efficiency, all-reduce time), into a bus with a run's file sinks (log, status, JSON Lines, CSV,
 * TensorBoard) delivering on their own threads. Steps are paced {@code pace} ms apart, as a LeNet step is; only the
 * publishing is timed (thread CPU). Prints the median and quartiles of the rounds after the first, each round's microseconds a step.
 * java -cp test-classes:classes:deps org.traindeck.engine.train.callback.StepRecordsTiming [rounds] [steps] [pace ms]
 * [bare: no listeners]
 */
public final class StepRecordsTiming {

    private StepRecordsTiming() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        long paceNanos =
                TimeUnit.MICROSECONDS.toNanos(Math.round(1000 * (args.length > 2 ? Double.parseDouble(args[2]) : 5)));
        Path dir = Files.createTempDirectory("step-records");
        EventBus bus = new EventBus();
        RunLogSink log = new RunLogSink(dir.resolve("train.log"));
        // "bare": no listener, what making the events costs without the queues
        if (!(args.length > 3 && args[3].equals("bare"))) {
            bus.subscribe(log, EventBus.Delivery.LOSSLESS);
            bus.subscribe(new RunStatusSink(dir, "timing"), EventBus.Delivery.LOSSLESS);
            bus.subscribe(new JsonlSink(dir.resolve("metrics.jsonl")), EventBus.Delivery.LOSSLESS);
            bus.subscribe(new CsvSink(dir.resolve("metrics.csv")), EventBus.Delivery.LOSSLESS);
            bus.subscribe(new TensorBoardSink(Files.createDirectories(dir.resolve("tb"))), EventBus.Delivery.LOSSLESS);
        }
        RunEvents events = new RunEvents("timing", dir, bus, log);
        TrainingState state = new TrainingState(0, 0, Map.of());
        state.stageName = "train";
        events.attach(state);
        state.startClock();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] perStep = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long cpu = 0;
            for (int s = 0; s < steps; s++) {
                state.globalStep++;
                long before = threads.getCurrentThreadCpuTime();
                publishStep(events, state.globalStep);
                cpu += threads.getCurrentThreadCpuTime() - before;
                LockSupport.parkNanos(paceNanos);
            }
            perStep[r] = cpu / 1e3 / steps;
            System.out.printf(Locale.ROOT, "round %d: %.2f us a step%n", r, perStep[r]);
        }
        bus.close();
        // the first round warms the JIT up
        double[] sorted = Arrays.copyOfRange(perStep, 1, rounds);
        Arrays.sort(sorted);
        System.out.printf(
                Locale.ROOT,
                "median %.2f us a step (quartiles %.2f-%.2f) over rounds 2-%d%n",
                sorted[sorted.length / 2],
                sorted[sorted.length / 4],
                sorted[3 * sorted.length / 4],
                rounds);
    }

    /** What MetricWindows.publish sends for a two-device synchronous step, together. */
    private static void publishStep(RunEvents events, long step) {
        List<String> devices = List.of("cpu:0", "cpu:1");
        RunEvents.Together together = events.together()
                .metric(MetricNames.TRAIN_LOSS, 2.302585 / (1 + step * 1e-3), null)
                .metric(MetricNames.LR, 1e-3, null)
                .metric(MetricNames.GRAD_NORM, 0.75 + 1e-4 * step, null)
                .metric(MetricNames.THROUGHPUT, 3120.5 + step % 17, null);
        for (String d : devices) {
            together.metric(MetricNames.THROUGHPUT, 1560.25 + step % 13, d);
        }
        together.metric(MetricNames.SCALING_EFFICIENCY, 0.61 + (step % 7) * 1e-3, null)
                .metric(MetricNames.ALLREDUCE_MS, 0.41 + (step % 5) * 1e-2, null)
                .publish();
    }
}
