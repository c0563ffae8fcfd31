package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Start-up: milliseconds from the JVM's start to the first painted frame of TrainDeck's window, and the app's idle
 * memory, against a minimal JavaFX window started the same way (headless Monocle, same JVM options). TrainDeck is
 * measured as {@code ./traindeck gui} starts it: from its second launch after a build with the class-data archive
 * written from the classes the first launch loaded, and without one; the first launch's wait at quit, against writing
 * the archive as the JVM exits.
 */
final class StartupBench {

    /**
     * What one launch reported: first-frame ms, CPU ms until then, idle heap MiB, resident MiB, ms to the first frame
     * with the config loaded (NaN for a window without one), and the ms from its report to the end of the process
     * (what the user waits for at quit: a first launch writes its class-data archive then).
     */
    record Probe(double firstFrameMs, double cpuMs, double heapMib, double rssMib, double contentMs, double exitMs) {}

    private static final Path BENCH_CONFIG =
            Path.of(System.getProperty("java.io.tmpdir"), "traindeck-bench-startup-config");

    private StartupBench() {}

    static Probe probe(String mainClass, String classPath, Path home, String... jvmOptions) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dglass.platform=Monocle",
                "-Dmonocle.platform=Headless",
                "-Dprism.order=sw",
                "-Dheadless.geometry=1920x1200-32",
                "-Dtraindeck.home=" + home,
                "-Xlog:cds*=off"));
        command.addAll(Arrays.asList(jvmOptions));
        command.addAll(List.of("-cp", classPath, mainClass, "--startup-probe"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // the app's preferences (window size, recent files) in a folder of the bench's own, not the user's
        builder.environment().put("XDG_CONFIG_HOME", BENCH_CONFIG.toString());
        Process p = builder.start();
        double[] out = {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};
        long reported = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("startup-probe ")) {
                    reported = System.nanoTime();
                    for (String part : line.substring(14).split(" ")) {
                        String[] kv = part.split("=");
                        switch (kv[0]) {
                            case "first-frame-ms" -> out[0] = Double.parseDouble(kv[1]);
                            case "cpu-ms" -> out[1] = Double.parseDouble(kv[1]);
                            case "heap-mib" -> out[2] = Double.parseDouble(kv[1]);
                            case "rss-mib" -> out[3] = Double.parseDouble(kv[1]);
                            case "content-ms" -> out[4] = Double.parseDouble(kv[1]);
                            default -> {}
                        }
                    }
                }
            }
        }
        // a launch with -XX:ArchiveClassesAtExit writes its class-data archive as it exits
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        double exitMs = (System.nanoTime() - reported) / 1e6;
        if (Double.isNaN(out[0])) {
            throw new IllegalStateException(mainClass + " did not report its start-up");
        }
        return new Probe(out[0], out[1], out[2], out[3], out[4], exitMs);
    }

    /** The class-data archive of the classes in {@code classList}, as {@code ./traindeck gui} writes it. */
    static void dumpArchive(String classPath, Path classList, Path archive) throws Exception {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xshare:dump",
                        "-XX:SharedClassListFile=" + classList,
                        "-XX:SharedArchiveFile=" + archive,
                        "-Xlog:cds*=off",
                        "-cp",
                        classPath)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        if (p.exitValue() != 0 || !Files.isRegularFile(archive)) {
            throw new IllegalStateException(
                    "no class-data archive from " + classList + " (exit " + p.exitValue() + ")");
        }
    }

    /** The app's class path as the launcher gives it: jars only, which class-data sharing needs (no classes folders). */
    static String appClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !Files.isDirectory(Path.of(e)))
                .collect(Collectors.joining(File.pathSeparator));
    }

    static void run(Path home, Report report) throws Exception {
        String app = "org.traindeck.app.Launcher";
        String appPath = appClassPath();
        Path archive = Files.createTempDirectory("traindeck-startup-").resolve("app.jsa");
        Path atExitArchive = archive.resolveSibling("at-exit.jsa");
        Path classList = archive.resolveSibling("app.classlist");
        try {
            // the first launch after a build as the launcher made it before: the archive written as the JVM exits
            Probe atExit = probe(app, appPath, home, "-XX:ArchiveClassesAtExit=" + atExitArchive);
            // and as it makes it now: the launch records the classes it loads, the archive is made from that list
            // after it quit
            Probe first = probe(app, appPath, home, "-XX:DumpLoadedClassList=" + classList);
            long dumpStart = System.nanoTime();
            dumpArchive(appPath, classList, archive);
            double dumpMs = (System.nanoTime() - dumpStart) / 1e6;
            double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            Launches launches = Launches.alternate(5, app, appPath, home, archive);
            double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            launches.reportShared(report, loadBefore, loadAfter);
            launches.reportFirst(
                    report,
                    String.format(
                            Locale.ROOT,
                            "; the very first launch: window %.0f ms, content %.0f ms, quit %.0f ms, then the"
                                    + " archive from its class list %.0f ms in the background (written at"
                                    + " exit instead: quit %.0f ms)",
                            first.firstFrameMs(),
                            first.contentMs(),
                            first.exitMs(),
                            dumpMs,
                            atExit.exitMs()));
            launches.reportMemory(report);
        } finally {
            Files.deleteIfExists(atExitArchive);
            Files.deleteIfExists(classList);
            Files.deleteIfExists(archive);
            Files.deleteIfExists(archive.getParent());
        }
    }

    /** Launches with the archive, without it and of a minimal JavaFX window, alternated. */
    private record Launches(List<Probe> shared, List<Probe> plain, List<Probe> minimal) {
        static Launches alternate(int repeats, String app, String appPath, Path home, Path archive) throws Exception {
            Launches l = new Launches(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < repeats; i++) {
                l.shared.add(probe(app, appPath, home, "-XX:SharedArchiveFile=" + archive));
                l.plain.add(probe(app, appPath, home));
                l.minimal.add(probe(MinimalFxApp.Main.class.getName(), System.getProperty("java.class.path"), home));
            }
            return l;
        }

        private static Stats of(List<Probe> probes, ToDoubleFunction<Probe> figure) {
            return Stats.of(probes.stream().mapToDouble(figure).toArray());
        }

        void reportShared(Report report, double loadBefore, double loadAfter) {
            Stats a = of(shared, Probe::firstFrameMs);
            Stats m = of(minimal, Probe::firstFrameMs);
            report.add(
                    "start-up",
                    "launch to first painted window (with the class-data archive, as from the second launch)",
                    a.format("ms", 0) + ", CPU " + of(shared, Probe::cpuMs).format("ms", 0) + "; content "
                            + of(shared, Probe::contentMs).format("ms", 0)
                            + String.format(Locale.ROOT, "; load average %.1f, then %.1f", loadBefore, loadAfter),
                    m.format("ms", 0) + " minimal JavaFX window",
                    Report.ratio(a.median() / m.median()),
                    "≤ 2000 ms, content ≤ 3000 ms");
        }

        void reportFirst(Report report, String veryFirst) {
            double[] ratios = new double[shared.size()];
            for (int i = 0; i < ratios.length; i++) {
                ratios[i] = shared.get(i).firstFrameMs() / plain.get(i).firstFrameMs();
            }
            Stats r = Stats.of(ratios);
            report.add(
                    "start-up",
                    "the same, first launch after a build (no archive yet)",
                    of(plain, Probe::firstFrameMs).format("ms", 0) + ", CPU "
                            + of(plain, Probe::cpuMs).format("ms", 0) + "; content "
                            + of(plain, Probe::contentMs).format("ms", 0) + veryFirst,
                    "the row above",
                    String.format(
                            Locale.ROOT, "archive %.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), r.n()),
                    "—");
        }

        void reportMemory(Report report) {
            Stats rss = of(shared, Probe::rssMib);
            Stats mrss = of(minimal, Probe::rssMib);
            report.add(
                    "start-up",
                    "idle memory (resident; heap "
                            + String.format(
                                    Locale.ROOT,
                                    "%.0f",
                                    of(shared, Probe::heapMib).median()) + " MiB)",
                    rss.format("MiB", 0),
                    mrss.format("MiB", 0) + " minimal JavaFX window",
                    Report.ratio(rss.median() / mrss.median()),
                    "—");
        }
    }
}
