package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Start-up: milliseconds from the JVM's start to the first painted frame of TrainDeck's window, and the app's idle
 * memory, against a minimal JavaFX window started the same way (headless Monocle, same JVM options).
 */
final class StartupBench {

    private StartupBench() {
    }

    /** first-frame ms, idle heap MiB, resident MiB, as the probe printed them. */
    static double[] probe(String mainClass, Path home) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dglass.platform=Monocle", "-Dmonocle.platform=Headless", "-Dprism.order=sw",
                "-Dheadless.geometry=1920x1200-32", "-Dtraindeck.home=" + home,
                "-Dtraindeck.prefs=org/traindeck/bench-startup",
                "-cp", System.getProperty("java.class.path"), mainClass, "--startup-probe"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        double[] out = {Double.NaN, Double.NaN, Double.NaN};
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("startup-probe ")) {
                    for (String part : line.substring(14).split(" ")) {
                        String[] kv = part.split("=");
                        switch (kv[0]) {
                            case "first-frame-ms" -> out[0] = Double.parseDouble(kv[1]);
                            case "heap-mib" -> out[1] = Double.parseDouble(kv[1]);
                            case "rss-mib" -> out[2] = Double.parseDouble(kv[1]);
                            default -> { }
                        }
                    }
                }
            }
        }
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        if (Double.isNaN(out[0])) {
            throw new IllegalStateException(mainClass + " did not report its start-up");
        }
        return out;
    }

    static void run(Path home, Report report) throws Exception {
        int repeats = 3;
        double[] app = new double[repeats];
        double[] appHeap = new double[repeats];
        double[] appRss = new double[repeats];
        double[] minimal = new double[repeats];
        double[] minimalRss = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            double[] a = probe("org.traindeck.app.Launcher", home);
            double[] m = probe(MinimalFxApp.Main.class.getName(), home);
            app[i] = a[0];
            appHeap[i] = a[1];
            appRss[i] = a[2];
            minimal[i] = m[0];
            minimalRss[i] = m[2];
        }
        Stats a = Stats.of(app);
        Stats m = Stats.of(minimal);
        report.add("start-up", "launch to first painted window", a.format("ms", 0), m.format("ms", 0) + " minimal JavaFX window",
                Report.ratio(a.median() / m.median()), "—");
        Stats rss = Stats.of(appRss);
        Stats mrss = Stats.of(minimalRss);
        report.add("start-up", "idle memory (resident; heap " + String.format(Locale.ROOT, "%.0f", Stats.of(appHeap).median()) + " MiB)",
                rss.format("MiB", 0), mrss.format("MiB", 0) + " minimal JavaFX window", Report.ratio(rss.median() / mrss.median()), "—");
    }
}
