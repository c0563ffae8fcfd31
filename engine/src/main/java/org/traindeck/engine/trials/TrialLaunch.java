package org.traindeck.engine.trials;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a trial's process is started: this JVM's own java, its class path, the trial entry point, and the JVM options
 * that matter to training (heap, ND4J's and TrainDeck's folders). Each process writes its crash log into its run
 * folder ({@code -XX:ErrorFile}). A test passes another entry point here, to crash a process on purpose.
 */
public record TrialLaunch(Path java, String classPath, String mainClass, List<String> jvmOptions) {

    /** Options of this JVM a trial's JVM gets too: the rest (agents, debuggers, its own crash file) are this one's. */
    private static final List<String> PASSED_ON = List.of(
            "-Xmx",
            "-Xms",
            "-Xss",
            "-Dorg.deeplearning4j.",
            "-Dorg.nd4j.",
            "-Dorg.bytedeco.",
            "-Dtraindeck.",
            "-Djava.library.path=",
            "-Dfile.encoding=",
            "--add-opens",
            "--enable-native-access",
            "--sun-misc-unsafe-memory-access",
            // the launcher's compiler directives (packaging/compiler-directives.json), and what they need
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:-DisplayVMOutput",
            "-XX:CompilerDirectivesFile=");

    public TrialLaunch {
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** The same java, class path and training options as this JVM, with {@link TrialMain} as the entry point. */
    public static TrialLaunch sameAsThisJvm() {
        List<String> options = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (PASSED_ON.stream().anyMatch(a::startsWith)) {
                options.add(a);
            }
        }
        return new TrialLaunch(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                System.getProperty("java.class.path"),
                TrialMain.class.getName(),
                options);
    }

    public TrialLaunch withMainClass(String main) {
        return new TrialLaunch(java, classPath, main, jvmOptions);
    }

    /** The same launch with {@code more} JVM options after its own. */
    public TrialLaunch withOptions(List<String> more) {
        List<String> all = new ArrayList<>(jvmOptions);
        all.addAll(more);
        return new TrialLaunch(java, classPath, mainClass, all);
    }

    List<String> command(Path crashDir, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-XX:ErrorFile=" + crashDir.resolve("hs_err_pid%p.log"));
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
