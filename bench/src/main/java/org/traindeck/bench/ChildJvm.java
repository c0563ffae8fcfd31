package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A bench measurement in a JVM of its own (this JVM's command, options and class path: under ./traindeck bench the
 * launcher's, its compiler directives included, as users' runs get them), so that its threads and memory
 * peaks are its own: returns what the child printed after {@code prefix} on its result line, and echoes the lines it
 * printed after {@link #DETAIL}.
 */
final class ChildJvm {

    /** Lines a child prints with this start are shown as the bench runs (what a figure is made of). */
    static final String DETAIL = "      ";

    private ChildJvm() {}

    /**
     * @param what names the run in the error when it fails or prints no result line (the child's whole output follows)
     */
    static String result(Class<?> main, List<String> args, Map<String, String> environment, String prefix, String what)
            throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process p = builder.start();
        StringBuilder all = new StringBuilder();
        String result = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith(prefix)) {
                    result = line.substring(prefix.length()).trim();
                } else if (line.startsWith(DETAIL)) {
                    System.out.println(line);
                }
            }
        }
        if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0 || result == null) {
            throw new IllegalStateException(what + " failed:\n" + all);
        }
        return result;
    }
}
