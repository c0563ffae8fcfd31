package org.traindeck.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;

/**
 * No package cycle in the engine's source, imports included. {@code EngineLayerTest} reads the bytecode, which keeps
 * no trace of an import that only a Javadoc {@code @link} uses; such an import still ties the packages together for a
 * reader and for every tool that reads source. Each file's {@code import org.traindeck...} lines make package →
 * package edges; a cycle is named with the files that make each of its edges.
 */
class SourcePackageCyclesTest {

    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;");
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?(org\\.traindeck\\.[\\w.]+?)(?:\\.\\*)?\\s*;");

    @Test
    void engineSourcePackagesHaveNoCycles() {
        ImportGraph graph = ImportGraph.read(TestPaths.repoRoot().resolve("engine/src/main/java"));
        assertThat(graph.packages()).as("engine packages read from source").hasSizeGreaterThan(20);
        assertThat(graph.cycles())
                .as("package cycles through imports in engine/src/main/java")
                .isEmpty();
    }

    @Test
    void aCycleIsNamedWithTheFilesThatMakeIt() {
        ImportGraph graph = new ImportGraph();
        graph.add("a", "b", "a/One.java");
        graph.add("b", "c", "b/Two.java");
        graph.add("c", "a", "c/Three.java");
        graph.add("c", "d", "c/Four.java");
        graph.add("d", "e", "d/Five.java");

        assertThat(graph.cycles())
                .containsExactly(
                        "[a, b, c] import each other, e.g. a → b (a/One.java) → c (b/Two.java) → a (c/Three.java)");
    }

    @Test
    void anImportNamesItsPackageWhateverItsForm() {
        assertThat(importedPackage("import org.traindeck.engine.train.TierChain;"))
                .isEqualTo("org.traindeck.engine.train");
        assertThat(importedPackage("import static org.traindeck.engine.events.MetricNames.TRAIN_LOSS;"))
                .isEqualTo("org.traindeck.engine.events");
        assertThat(importedPackage("import org.traindeck.engine.parallel.ShardReplica.Factory;"))
                .isEqualTo("org.traindeck.engine.parallel");
        assertThat(importedPackage("import org.traindeck.engine.model.nodes.*;"))
                .isEqualTo("org.traindeck.engine.model.nodes");
        assertThat(importedPackage("import java.util.List;")).isNull();
    }

    /** The package an import line names (the segments before the first capitalised one), or null. */
    static String importedPackage(String line) {
        Matcher m = IMPORT.matcher(line.strip());
        if (!m.find()) {
            return null;
        }
        List<String> segments = new ArrayList<>();
        for (String segment : m.group(1).split("\\.")) {
            if (Character.isUpperCase(segment.charAt(0))) {
                break;
            }
            segments.add(segment);
        }
        return String.join(".", segments);
    }

    /** Package → package edges, each with the first file (in path order) that makes it. */
    static final class ImportGraph {

        private final Map<String, Map<String, String>> edges = new TreeMap<>();

        static ImportGraph read(Path sourceRoot) {
            ImportGraph graph = new ImportGraph();
            List<Path> files;
            try (Stream<Path> walk = Files.walk(sourceRoot)) {
                files = walk.filter(p -> p.toString().endsWith(".java"))
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Path file : files) {
                String from = null;
                String where = sourceRoot.relativize(file).toString();
                for (String line : lines(file)) {
                    Matcher p = PACKAGE.matcher(line.strip());
                    if (p.find()) {
                        from = p.group(1);
                        graph.edges.computeIfAbsent(from, k -> new TreeMap<>());
                    }
                    String to = importedPackage(line);
                    if (from != null && to != null) {
                        graph.add(from, to, where);
                    }
                }
            }
            return graph;
        }

        void add(String from, String to, String file) {
            edges.computeIfAbsent(to, k -> new TreeMap<>());
            if (!from.equals(to)) {
                edges.computeIfAbsent(from, k -> new TreeMap<>()).putIfAbsent(to, file);
            }
        }

        Set<String> packages() {
            return edges.keySet();
        }

        /** Each group of packages that import each other, with its shortest cycle through its first package. */
        List<String> cycles() {
            List<String> cycles = new ArrayList<>();
            for (Set<String> group : stronglyConnected()) {
                if (group.size() > 1) {
                    cycles.add(group + " import each other, e.g. "
                            + describe(shortestCycle(group.iterator().next(), group)));
                }
            }
            return cycles;
        }

        private String describe(List<String> cycle) {
            StringBuilder text = new StringBuilder(cycle.get(0));
            for (int i = 1; i < cycle.size(); i++) {
                String file = edges.get(cycle.get(i - 1)).get(cycle.get(i));
                text.append(" → ")
                        .append(cycle.get(i))
                        .append(" (")
                        .append(file)
                        .append(')');
            }
            return text.toString();
        }

        /** Breadth first from {@code start} inside {@code group} back to {@code start}: start, …, start. */
        private List<String> shortestCycle(String start, Set<String> group) {
            Map<String, String> cameFrom = new HashMap<>();
            Deque<String> queue = new ArrayDeque<>(List.of(start));
            while (!queue.isEmpty()) {
                String at = queue.poll();
                for (String next : edges.get(at).keySet()) {
                    if (next.equals(start)) {
                        List<String> path = new ArrayList<>(List.of(start));
                        for (String p = at; !p.equals(start); p = cameFrom.get(p)) {
                            path.add(1, p);
                        }
                        path.add(start);
                        return path;
                    }
                    if (group.contains(next) && !cameFrom.containsKey(next)) {
                        cameFrom.put(next, at);
                        queue.add(next);
                    }
                }
            }
            throw new IllegalStateException(start + " is in no cycle");
        }

        /** Tarjan's strongly connected components, iteratively so a deep graph cannot overflow the stack. */
        private List<Set<String>> stronglyConnected() {
            Map<String, Integer> index = new HashMap<>();
            Map<String, Integer> low = new HashMap<>();
            Deque<String> stack = new ArrayDeque<>();
            Set<String> onStack = new TreeSet<>();
            List<Set<String>> groups = new ArrayList<>();
            for (String root : edges.keySet()) {
                if (index.containsKey(root)) {
                    continue;
                }
                Deque<Map.Entry<String, List<String>>> work = new ArrayDeque<>();
                visit(root, index, low, stack, onStack, work);
                while (!work.isEmpty()) {
                    Map.Entry<String, List<String>> top = work.peek();
                    String node = top.getKey();
                    if (!top.getValue().isEmpty()) {
                        String next = top.getValue().remove(0);
                        if (!index.containsKey(next)) {
                            visit(next, index, low, stack, onStack, work);
                        } else if (onStack.contains(next)) {
                            low.put(node, Math.min(low.get(node), index.get(next)));
                        }
                        continue;
                    }
                    work.pop();
                    if (!work.isEmpty()) {
                        String parent = work.peek().getKey();
                        low.put(parent, Math.min(low.get(parent), low.get(node)));
                    }
                    if (low.get(node).equals(index.get(node))) {
                        Set<String> group = new TreeSet<>();
                        String member;
                        do {
                            member = stack.pop();
                            onStack.remove(member);
                            group.add(member);
                        } while (!member.equals(node));
                        groups.add(group);
                    }
                }
            }
            return groups;
        }

        private void visit(
                String node,
                Map<String, Integer> index,
                Map<String, Integer> low,
                Deque<String> stack,
                Set<String> onStack,
                Deque<Map.Entry<String, List<String>>> work) {
            index.put(node, index.size());
            low.put(node, index.get(node));
            stack.push(node);
            onStack.add(node);
            work.push(Map.entry(node, new ArrayList<>(edges.get(node).keySet())));
        }

        private static List<String> lines(Path file) {
            try {
                return Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
