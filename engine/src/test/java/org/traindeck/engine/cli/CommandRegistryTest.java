package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A command is its class and its registry line: every {@code @Command} class of {@code cli.commands} is reachable from
 * {@code traindeck} through {@code CommandRegistry}: a class left out of the registry would be a command no one can
 * run, and no help would list it.
 */
class CommandRegistryTest {

    @Test
    void everyCommandClassIsInTheCommandTable() {
        Set<String> annotated = new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("org.traindeck.engine.cli.commands")
                        .stream()
                        .filter(c -> c.isAnnotatedWith(Command.class))
                        .map(JavaClass::getName)
                        .collect(Collectors.toCollection(TreeSet::new));
        Set<String> reachable = new TreeSet<>();
        collect(commandLine(), reachable);

        assertThat(annotated).as("@Command classes in cli.commands").hasSizeGreaterThan(15);
        assertThat(reachable).containsAll(annotated);
    }

    private static void collect(CommandLine command, Set<String> classes) {
        classes.add(command.getCommand().getClass().getName());
        command.getSubcommands().values().forEach(sub -> collect(sub, classes));
    }

    private static CommandLine commandLine() {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new Main(quiet, quiet).commandLine();
    }
}
