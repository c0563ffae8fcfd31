package org.traindeck.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.ConfigCheck;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.config.ConfigProblem;

/**
 * What the user-facing docs show is true: every ```json block that is a whole run config passes {@code traindeck
 * validate} (the model compiled against the data, each stage's fit) and a model table shown right after it is the one
 * {@code validate --summary} prints, every fragment (```json fragment) is at least JSON, and every relative link and
 * anchor resolves. Whole configs are read as if they were in sample-configs/, so
 * their data paths are the samples' ("../data/...").
 */
class DocsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyWholeRunConfigInTheDocsValidates() {
        Engine engine = Engine.local();
        List<String> failures = new ArrayList<>();
        int configs = 0;
        for (Path file : MarkdownDocs.files()) {
            List<MarkdownDocs.Block> blocks = MarkdownDocs.blocks(file);
            for (int i = 0; i < blocks.size(); i++) {
                MarkdownDocs.Block block = blocks.get(i);
                if (!block.info().equals("json")) {
                    continue;
                }
                configs++;
                ConfigCheck check = engine.check(Configs.parse(block.text(), TestPaths.sampleConfigs()));
                // a model table shown right after a config is what validate --summary prints for it
                MarkdownDocs.Block next = i + 1 < blocks.size() ? blocks.get(i + 1) : null;
                if (check.ok()
                        && next != null
                        && next.info().isEmpty()
                        && next.text().startsWith("node ")
                        && !next.text().strip().equals(check.summary().toText().strip())) {
                    failures.add(next.where() + ": the table is not what validate --summary prints:\n"
                            + check.summary().toText());
                }
                if (!check.ok()) {
                    List<ConfigProblem> problems =
                            new ArrayList<>(check.checked().problems());
                    if (check.fits() != null) {
                        problems.addAll(check.fits().problems());
                    }
                    failures.add(block.where() + ": "
                            + problems.stream()
                                    .filter(ConfigProblem::isError)
                                    .map(String::valueOf)
                                    .collect(Collectors.joining("; ")));
                }
            }
        }
        assertThat(failures)
                .as("```json blocks that are not valid run configs (mark a part of a config ```json fragment)")
                .isEmpty();
        assertThat(configs).as("whole run configs in the docs").isGreaterThanOrEqualTo(3);
    }

    @Test
    void everyFragmentIsJson() {
        List<String> failures = new ArrayList<>();
        for (Path file : MarkdownDocs.files()) {
            for (MarkdownDocs.Block block : MarkdownDocs.blocks(file)) {
                // an elided part ("…") is said to be left out: the rest need not parse
                if (block.info().equals("json fragment") && !block.text().contains("…")) {
                    String error = jsonError(block.text());
                    if (error != null) {
                        failures.add(block.where() + ": " + error);
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void everyFencedBlockSaysWhatItIs() {
        List<String> json = new ArrayList<>();
        for (Path file : MarkdownDocs.files()) {
            for (MarkdownDocs.Block block : MarkdownDocs.blocks(file)) {
                if (block.info().startsWith("json")
                        && !block.info().equals("json")
                        && !block.info().equals("json fragment")) {
                    json.add(block.where() + ": ```" + block.info());
                }
            }
        }
        assertThat(json)
                .as("JSON blocks are either whole run configs (```json) or marked ```json fragment")
                .isEmpty();
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        for (Path file : MarkdownDocs.files()) {
            for (MarkdownDocs.Link link : MarkdownDocs.relativeLinks(file)) {
                String[] parts = link.target().split("#", 2);
                Path target = parts[0].isEmpty()
                        ? file
                        : file.getParent().resolve(parts[0]).normalize();
                if (!Files.exists(target)) {
                    broken.add(link.where() + ": " + link.target() + " (no such file)");
                } else if (parts.length == 2
                        && target.toString().endsWith(".md")
                        && !MarkdownDocs.anchors(target).contains(parts[1])) {
                    broken.add(link.where() + ": " + link.target() + " (no such heading; there are "
                            + MarkdownDocs.anchors(target) + ")");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void headingAnchorsAreWhatGithubMakes() {
        assertThat(MarkdownDocs.slug("Inside the model: per-layer health"))
                .isEqualTo("inside-the-model-per-layer-health");
        assertThat(MarkdownDocs.slug("Several machines (a Spark cluster)"))
                .isEqualTo("several-machines-a-spark-cluster");
        assertThat(MarkdownDocs.slug("`dense`, `conv2d`")).isEqualTo("dense-conv2d");
    }

    private static String jsonError(String text) {
        try {
            JSON.readTree(text);
            return null;
        } catch (JsonProcessingException asIs) {
            try {
                // a member or two of a config ("model": {...}) reads as an object once braced
                JSON.readTree("{" + text + "}");
                return null;
            } catch (JsonProcessingException braced) {
                return asIs.getOriginalMessage();
            }
        }
    }
}
