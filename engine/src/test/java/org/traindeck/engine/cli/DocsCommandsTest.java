package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.docs.MarkdownDocs;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every {@code traindeck COMMAND} and every {@code --option} the user-facing docs name exists: the engine's commands
 * and options from the CLI's own command table (picocli's model of it), and the commands the ./traindeck script hands
 * to other modules (gui, bench, cluster) with the options and words their sources take.
 */
class DocsCommandsTest {

    /** "traindeck" (or "./traindeck") and what follows it up to the end of a code span, a table cell, a comment or the line. */
    private static final Pattern COMMAND = Pattern.compile("(?<![\\w./-])(?:\\./)?traindeck((?: [^`\\n|#]*)?)");

    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*");
    private static final Pattern WORD = Pattern.compile("[a-z][a-z0-9-]*");
    /** The ./traindeck script's own branches: {@code if [ "${1:-}" = "gui" ]}. */
    private static final Pattern LAUNCHER_BRANCH = Pattern.compile("\"\\$\\{1:-}\" = \"([a-z-]+)\"");

    private static final Pattern SCRIPT_OPTION = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*)(?:=\\*)?\\)");

    /** Where each command the launcher hands on is implemented: its words and options are string literals there. */
    private static final Map<String, String> LAUNCHED =
            Map.of("gui", "app/src/main", "bench", "bench/src/main", "cluster", "cluster/src/main");

    /** Options of other programs the docs name, with whose they are. */
    private static final Set<String> OTHER_TOOLS = Set.of(
            "--logdir", // tensorboard --logdir
            "--linux-shortcut", // jpackage
            "--linux-package-deps", // jpackage
            "--enable-native-access", // java on JDK 23+
            "--sun-misc-unsafe-memory-access");

    @Test
    void everyCommandAndOptionAfterTraindeckExists() {
        CommandLine cli = new Main(quiet(), quiet()).commandLine();
        Set<String> launched = launcherCommands();
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (Path file : MarkdownDocs.files()) {
            List<String> lines = MarkdownDocs.lines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = COMMAND.matcher(lines.get(i));
                while (m.find()) {
                    seen++;
                    String problem = check(cli, launched, m.group(1).strip());
                    if (problem != null) {
                        wrong.add(TestPaths.repoRoot().relativize(file) + ":" + (i + 1) + ": traindeck" + m.group(1)
                                + ": " + problem);
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(seen).as("traindeck command lines in the docs").isGreaterThan(50);
    }

    @Test
    void everyOptionTheDocsNameExistsSomewhere() {
        Set<String> known = new HashSet<>(OTHER_TOOLS);
        allOptions(new Main(quiet(), quiet()).commandLine(), known);
        LAUNCHED.values().forEach(dir -> known.addAll(literals(dir, true)));
        known.addAll(packagingOptions());
        Set<String> unknown = new TreeSet<>();
        for (Path file : MarkdownDocs.files()) {
            for (String line : MarkdownDocs.lines(file)) {
                Matcher m = OPTION.matcher(line);
                while (m.find()) {
                    if (!known.contains(m.group())) {
                        unknown.add(m.group() + " (" + file.getFileName() + ")");
                    }
                }
            }
        }
        assertThat(unknown)
                .as("options no command, module or packaging script takes")
                .isEmpty();
    }

    /** Null when the command line names only what exists, else what does not. */
    private static String check(CommandLine cli, Set<String> launched, String rest) {
        // in a listing, a run of spaces ends the command and starts its description
        String listed = rest.split(" {2,}")[0].strip();
        String[] tokens = listed.isEmpty() ? new String[0] : listed.split("\\s+");
        CommandLine command = cli;
        int i = 0;
        // walk down the subcommands the words name (queue add, queue run, ...)
        while (i < tokens.length
                && WORD.matcher(tokens[i]).matches()
                && !command.getSubcommands().isEmpty()) {
            String word = tokens[i];
            if (command == cli && launched.contains(word)) {
                return checkLaunched(word, tokens, i + 1);
            }
            CommandLine sub = command.getSubcommands().get(word);
            if (sub == null) {
                return "no command \"" + word + "\" (there are "
                        + new TreeSet<>(command.getSubcommands().keySet())
                        + (command == cli ? " and, through the script, " + launched : "") + ")";
            }
            command = sub;
            i++;
        }
        Set<String> options = command.getCommandSpec().options().stream()
                .flatMap(o -> Stream.of(o.names()))
                .collect(Collectors.toSet());
        for (; i < tokens.length; i++) {
            Matcher m = OPTION.matcher(tokens[i]);
            if (m.lookingAt() && !options.contains(m.group())) {
                return "\"" + command.getCommandName() + "\" has no option " + m.group() + " (it has "
                        + new TreeSet<>(options) + ")";
            }
        }
        return null;
    }

    private static String checkLaunched(String command, String[] tokens, int from) {
        Set<String> taken = literals(LAUNCHED.get(command), false);
        for (int i = from; i < tokens.length; i++) {
            Matcher option = OPTION.matcher(tokens[i]);
            if (option.lookingAt() && !taken.contains(option.group().substring(2))) {
                return "\"" + command + "\" takes no option " + option.group();
            }
            // the word right after the command (bench's group, cluster's role) must be one its code knows
            if (i == from && WORD.matcher(tokens[i]).matches() && !taken.contains(tokens[i])) {
                return "\"" + command + "\" knows no \"" + tokens[i] + "\"";
            }
        }
        return null;
    }

    private static Set<String> launcherCommands() {
        Set<String> commands = new TreeSet<>();
        Matcher m = LAUNCHER_BRANCH.matcher(read(TestPaths.repoRoot().resolve("traindeck")));
        while (m.find()) {
            commands.add(m.group(1));
        }
        // and the commands of the backend modules it finds (cluster/backend.properties: command=cluster)
        try (Stream<Path> modules = Files.list(TestPaths.repoRoot())) {
            modules.map(d -> d.resolve("backend.properties"))
                    .filter(Files::isRegularFile)
                    .forEach(f -> read(f).lines()
                            .filter(l -> l.startsWith("command="))
                            .forEach(l -> commands.add(l.substring("command=".length()))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(commands).as("the launcher's commands").contains("gui", "bench", "cluster");
        return commands;
    }

    /** The string literals of a module's sources: "--start" gives "start" (or "--start" with dashes kept). */
    private static Set<String> literals(String sourceDir, boolean optionsOnly) {
        Set<String> found = new HashSet<>();
        try (Stream<Path> files = Files.walk(TestPaths.repoRoot().resolve(sourceDir))) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
                Matcher m = Pattern.compile("\"(--)?([a-z0-9][a-z0-9-]*)\"").matcher(read(p));
                while (m.find()) {
                    if (!optionsOnly) {
                        found.add(m.group(2));
                    } else if (m.group(1) != null) {
                        found.add("--" + m.group(2));
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static Set<String> packagingOptions() {
        Set<String> found = new HashSet<>();
        try (Stream<Path> files = Files.list(TestPaths.repoRoot().resolve("packaging"))) {
            files.filter(p -> p.toString().endsWith(".sh")).forEach(p -> {
                Matcher m = SCRIPT_OPTION.matcher(read(p));
                while (m.find()) {
                    found.add(m.group(1));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static void allOptions(CommandLine command, Set<String> into) {
        CommandSpec spec = command.getCommandSpec();
        for (OptionSpec o : spec.options()) {
            into.addAll(List.of(o.names()));
        }
        command.getSubcommands().values().forEach(sub -> allOptions(sub, into));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
