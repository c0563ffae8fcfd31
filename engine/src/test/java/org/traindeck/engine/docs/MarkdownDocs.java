package org.traindeck.engine.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.traindeck.engine.TestPaths;

/** The user-facing Markdown (README.md and docs/*.md) as the doc tests read it: fenced blocks, links, headings. */
public final class MarkdownDocs {

    private static final Pattern FENCE = Pattern.compile("^```(.*)$");
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.+?)\\s*$");

    private MarkdownDocs() {}

    /** One fenced block: its file, the line its fence opens on (1-based), its info string and its text. */
    public record Block(Path file, int line, String info, String text) {
        public String where() {
            return TestPaths.repoRoot().relativize(file) + ":" + line;
        }
    }

    /** A relative link: its file, line and target as written. */
    public record Link(Path file, int line, String target) {
        public String where() {
            return TestPaths.repoRoot().relativize(file) + ":" + line;
        }
    }

    public static List<Path> files() {
        Path root = TestPaths.repoRoot();
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    public static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Block> blocks(Path file) {
        List<Block> blocks = new ArrayList<>();
        List<String> lines = lines(file);
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i).strip());
            if (!open.matches()) {
                continue;
            }
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                text.append(lines.get(j)).append('\n');
                j++;
            }
            blocks.add(new Block(file, i + 1, open.group(1).strip(), text.toString()));
            i = j;
        }
        return blocks;
    }

    /** The text outside fenced blocks, line by line (blank lines where blocks were, so line numbers hold). */
    public static List<String> prose(Path file) {
        List<String> out = new ArrayList<>();
        boolean inBlock = false;
        for (String line : lines(file)) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                out.add("");
            } else {
                out.add(inBlock ? "" : line);
            }
        }
        return out;
    }

    public static List<Link> relativeLinks(Path file) {
        List<Link> links = new ArrayList<>();
        List<String> prose = prose(file);
        for (int i = 0; i < prose.size(); i++) {
            Matcher m = LINK.matcher(prose.get(i));
            while (m.find()) {
                String target = m.group(1);
                if (!target.matches("^[a-z]+:.*")) {
                    links.add(new Link(file, i + 1, target));
                }
            }
        }
        return links;
    }

    /** The anchors GitHub gives the file's headings. */
    public static List<String> anchors(Path file) {
        List<String> anchors = new ArrayList<>();
        for (String line : prose(file)) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                anchors.add(slug(m.group(1)));
            }
        }
        return anchors;
    }

    static String slug(String heading) {
        String plain = heading.replaceAll("`", "").replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1");
        return plain.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }
}
