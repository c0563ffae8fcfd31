package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.library.RunLibrary;

/**
 * The run library on a run with a 1 GB metrics.jsonl: how long {@code traindeck runs} takes to list it and the heap it
 * needs, each listing in a fresh JVM capped at {@value #HEAP} (the target), against reading the file's bytes alone.
 */
final class LibraryBench {

    static final String HEAP = "-Xmx256m";
    private static final long SIZE = 1L << 30;

    private LibraryBench() {}

    static void run(Path out, Report report) throws Exception {
        Path runs = out.resolve("runs");
        Path run = runs.resolve("big");
        long lines = write(run);
        int repeats = 3;
        double[] seconds = new double[repeats];
        double[] heap = new double[repeats];
        double[] read = new double[repeats];
        long size = Files.size(run.resolve("metrics.jsonl"));
        try {
            for (int i = 0; i < repeats; i++) {
                read[i] = readBytes(run.resolve("metrics.jsonl"));
                double[] child = listInChild(runs);
                seconds[i] = child[0];
                heap[i] = child[1];
            }
        } finally {
            Files.delete(run.resolve("metrics.jsonl")); // a gigabyte is not left in the scratch folder
        }
        Stats s = Stats.of(seconds);
        Stats r = Stats.of(read);
        report.add(
                "run library",
                String.format(
                        Locale.ROOT,
                        "runs, one run with a %.2f GB metrics.jsonl (%d lines), %s",
                        size / 1e9,
                        lines,
                        HEAP),
                s.format("s", 1) + ", peak heap " + Stats.of(heap).format("MiB", 0),
                r.format("s", 1) + " reading its bytes alone",
                Report.ratio(s.median() / r.median()),
                "listed within 256 MiB of heap");
    }

    /** A finished run whose metrics.jsonl is about 1 GB: train/loss every step, val/loss every 1,000. */
    private static long write(Path run) throws Exception {
        Files.createDirectories(run);
        Files.writeString(
                run.resolve("config.json"), "{\"name\": \"big\", \"checkpoint\": {\"monitor\": \"val/loss\"}}");
        long lines = 0;
        long written = 0;
        try (BufferedWriter w = Files.newBufferedWriter(run.resolve("metrics.jsonl"), StandardCharsets.UTF_8)) {
            long step = 0;
            while (written < SIZE) {
                step++;
                String line = String.format(
                        Locale.ROOT,
                        "{\"time\":%d.000,\"elapsed\":%d.%03d,\"stage\":\"main\",\"stageIndex\":0,"
                                + "\"epoch\":%d,\"step\":%d,\"name\":\"train/loss\",\"value\":%.9f}%n",
                        1_700_000_000L + step / 1000,
                        step / 1000,
                        step % 1000,
                        step / 10_000,
                        step,
                        1.0 / step);
                w.write(line);
                written += line.length();
                lines++;
                if (step % 1000 == 0) {
                    w.write(line.replace(MetricNames.TRAIN_LOSS, MetricNames.VAL_LOSS));
                    written += line.length();
                    lines++;
                }
            }
            w.write(String.format(
                    Locale.ROOT,
                    "{\"time\":1.0,\"elapsed\":1.0,\"stage\":\"main\",\"stageIndex\":0,\"epoch\":0,"
                            + "\"step\":%d,\"event\":\"RUN_FINISHED\",\"message\":\"\"}%n",
                    step));
        }
        return lines + 1;
    }

    private static double readBytes(Path file) throws Exception {
        long start = System.nanoTime();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            while (in.read(buffer) > 0) {
                // the floor: the bytes alone, no parsing
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** seconds to list, peak heap MiB (the heap pools' peaks summed), as the child printed them. */
    private static double[] listInChild(Path runs) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP,
                "-cp",
                System.getProperty("java.class.path"),
                Child.class.getName(),
                runs.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        double[] result = {Double.NaN, Double.NaN};
        StringBuilder all = new StringBuilder();
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith("listed ")) {
                    String[] parts = line.split(" ");
                    result[0] = Double.parseDouble(parts[1]);
                    result[1] = Double.parseDouble(parts[2]);
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
        }
        if (Double.isNaN(result[0])) {
            throw new IllegalStateException("the listing did not finish in " + HEAP + ":\n" + all);
        }
        return result;
    }

    /** Lists the runs once and prints "listed SECONDS PEAK_HEAP_MIB". */
    static final class Child {
        public static void main(String[] args) throws Exception {
            long start = System.nanoTime();
            List<RunSummary> listed = RunLibrary.list(Path.of(args[0]));
            double seconds = (System.nanoTime() - start) / 1e9;
            if (listed.size() != 1 || !listed.get(0).status().equals("finished")) {
                throw new IllegalStateException("unexpected listing: " + listed);
            }
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.println(String.format(Locale.ROOT, "listed %.3f %.1f", seconds, peak / 1048576.0));
        }
    }
}
