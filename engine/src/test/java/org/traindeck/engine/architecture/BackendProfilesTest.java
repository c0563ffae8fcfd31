package org.traindeck.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The CUDA build compiles from the same source: every JavaCPP preset the engine imports (org.bytedeco.NAME, such as
 * OpenBLAS for the kernels' sgemm) is declared in the engine's {@code cuda} profile, because nd4j-cuda, unlike
 * nd4j-native, does not bring it. CI cannot fetch the CUDA backend's 600 MB to compile it, so the POM is read instead.
 */
class BackendProfilesTest {

    private static final Pattern PRESET_IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?org\\.bytedeco\\.(\\w+)\\.");

    @Test
    void theCudaProfileDeclaresEveryPresetTheEngineImports() throws Exception {
        Set<String> imported = importedPresets(TestPaths.repoRoot().resolve("engine/src/main/java"));
        Set<String> declared = profileArtifacts(TestPaths.repoRoot().resolve("engine/pom.xml"), "cuda");

        assertThat(imported).as("presets read from the engine's imports").contains("openblas");
        assertThat(declared).as("artifacts of the engine's cuda profile").contains("nd4j-cuda-11.6");
        assertThat(declared).containsAll(imported);
    }

    private static Set<String> importedPresets(Path sources) throws IOException {
        Set<String> presets = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                for (String line : Files.readAllLines(file)) {
                    Matcher m = PRESET_IMPORT.matcher(line);
                    if (m.find() && !m.group(1).equals("javacpp")) {
                        presets.add(m.group(1));
                    }
                }
            }
        }
        return presets;
    }

    private static Set<String> profileArtifacts(Path pom, String profile) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        NodeList profiles = doc.getElementsByTagName("profile");
        Set<String> artifacts = new TreeSet<>();
        for (int i = 0; i < profiles.getLength(); i++) {
            Element p = (Element) profiles.item(i);
            if (profile.equals(
                    p.getElementsByTagName("id").item(0).getTextContent().trim())) {
                NodeList ids = p.getElementsByTagName("artifactId");
                for (int k = 0; k < ids.getLength(); k++) {
                    artifacts.add(ids.item(k).getTextContent().trim());
                }
            }
        }
        return artifacts;
    }
}
