package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;

/**
 * The ./traindeck launcher finds distributed backends by their backend.properties (issue 34): a second backend module
 * is one folder. The real script runs in a copy of the tree whose modules count as built, with a {@code java} on the
 * PATH that prints the command line it was given instead of starting a JVM.
 */
class LauncherBackendsTest {

    @TempDir
    Path root;

    @BeforeEach
    void tree() throws IOException {
        Files.copy(TestPaths.repoRoot().resolve("traindeck"), root.resolve("traindeck"));
        root.resolve("traindeck").toFile().setExecutable(true);
        LauncherSandbox.built(root, "engine");
        LauncherSandbox.built(root, "cluster");
        Files.copy(
                TestPaths.repoRoot().resolve("cluster/backend.properties"),
                root.resolve("cluster/backend.properties"),
                StandardCopyOption.REPLACE_EXISTING);
        // the second backend: one folder with its backend.properties
        LauncherSandbox.built(root, "ray");
        Files.writeString(root.resolve("ray/backend.properties"), """
                # a second backend
                command=ray
                main=org.example.ray.RayMain
                schemes=ray,rays
                java-options=-Dray.one=1 -Dray.two=2
                """);
        Path bin = Files.createDirectories(root.resolve("bin"));
        script(bin.resolve("java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
        script(bin.resolve("mvn"), "#!/bin/sh\necho 'mvn was called' >&2\nexit 1\n");
    }

    @Test
    void withoutAClusterTheEngineRunsAlone() throws Exception {
        List<String> java = LauncherSandbox.launch(root, "validate", "some.json");
        assertThat(java).contains(classPath("engine"), "org.traindeck.engine.cli.Main");
        assertThat(String.join(" ", java)).doesNotContain("add-opens", "ray.one");
    }

    @Test
    void aClusterAddressPicksTheBackendOfItsScheme() throws Exception {
        List<String> spark = LauncherSandbox.launch(root, "train", "--cluster", "spark://host:7077", "c.json");
        assertThat(spark).contains(classPath("cluster"), "org.traindeck.engine.cli.Main");
        assertThat(spark).contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");

        List<String> ray = LauncherSandbox.launch(root, "train", "--cluster=rays://head:1", "c.json");
        assertThat(ray).contains(classPath("ray"), "-Dray.one=1", "-Dray.two=2", "org.traindeck.engine.cli.Main");
        assertThat(String.join(" ", ray)).doesNotContain("add-opens");
    }

    @Test
    void aConfigOrRunFolderThatNamesAClusterPicksItsBackend() throws Exception {
        Path config = root.resolve("on-ray.json");
        Files.writeString(config, "{\"parallel\": {\n  \"cluster\" : \"ray://head:6379\", \"executors\": 2}}\n");
        assertThat(LauncherSandbox.launch(root, "train", config.toString())).contains(classPath("ray"));

        Path runFolder = Files.createDirectories(root.resolve("runs/r1"));
        Files.writeString(runFolder.resolve("config.json"), "{\"parallel\": {\"cluster\": \"spark://m:7077\"}}");
        assertThat(LauncherSandbox.launch(root, "resume", runFolder.toString())).contains(classPath("cluster"));

        // the option wins over the config, wherever it stands
        assertThat(LauncherSandbox.launch(root, "train", config.toString(), "--cluster", "spark://m:7077"))
                .contains(classPath("cluster"));
    }

    @Test
    void anAddressOfNoKnownSchemeGoesToTheFirstBackendAsBefore() throws Exception {
        // the engine then says what a cluster address looks like
        assertThat(LauncherSandbox.launch(root, "train", "--cluster", "nowhere", "c.json"))
                .contains(classPath("cluster"));
    }

    @Test
    void eachBackendsCommandRunsItsMainClass() throws Exception {
        List<String> cluster = LauncherSandbox.launch(root, "cluster", "master", "--port", "7077");
        assertThat(cluster).contains(classPath("cluster"), "org.traindeck.cluster.ClusterMain");
        assertThat(cluster.subList(cluster.indexOf("org.traindeck.cluster.ClusterMain") + 1, cluster.size()))
                .containsExactly("master", "--port", "7077");

        List<String> ray = LauncherSandbox.launch(root, "ray", "head");
        assertThat(ray.subList(ray.indexOf("org.example.ray.RayMain") + 1, ray.size()))
                .containsExactly("head");
        assertThat(ray).contains(classPath("ray"));
    }

    @Test
    void itsOwnBuildLeavesNoTerminalCodesBeforeTheProgramsOutput() throws Exception {
        // Maven's console library ends every run with a colour reset (ESC[0m) even in batch mode, unless told not to;
        // the program's first line then began with it, and the CI check that reads the layout audit's verdict missed it
        Files.delete(root.resolve("engine/target/.traindeck-built"));
        script(root.resolve("bin/mvn"), """
                #!/bin/sh
                case " $MAVEN_OPTS " in *" -Djansi.noreset=true "*) ;; *) printf '\033[0m' ;; esac
                mkdir -p engine/target
                """);
        List<String> java = LauncherSandbox.launch(root, "validate", "some.json");
        assertThat(java).contains("org.traindeck.engine.cli.Main");
        assertThat(String.join("\n", java)).doesNotContain("\033");
        assertThat(root.resolve("engine/target/.traindeck-built")).exists();
    }

    private String classPath(String module) {
        return root.resolve(module + "/target/classes") + ":" + module + ".jar";
    }

    private static void script(Path file, String text) throws IOException {
        Files.writeString(file, text);
        file.toFile().setExecutable(true);
    }
}
