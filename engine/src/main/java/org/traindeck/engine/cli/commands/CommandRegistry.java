package org.traindeck.engine.cli.commands;

import java.util.List;
import java.util.function.Function;
import picocli.AutoComplete;

/**
 * Every command of {@code traindeck}, in the order its help lists them. A new command is its class (a picocli
 * {@code @Command} made from the {@link CliContext}) and one line here; {@code Main} makes each entry a subcommand,
 * so the dispatch, the generated help and the bash completion all come from this list.
 */
public final class CommandRegistry {

    /** One command: how it is made for the context it runs in, and its own subcommands ({@code queue add}, ...). */
    public record Entry(Function<CliContext, Object> command, List<Entry> subcommands) {
        static Entry of(Function<CliContext, Object> command, Entry... subcommands) {
            return new Entry(command, List.of(subcommands));
        }
    }

    public static final List<Entry> COMMANDS = List.of(
            Entry.of(ValidateCommand::new),
            Entry.of(TrainCommand::new),
            Entry.of(ProfileCommand::new),
            Entry.of(ResumeCommand::new),
            Entry.of(CheckpointsCommand::new),
            Entry.of(EvaluateCommand::new),
            Entry.of(RunsCommand::new),
            Entry.of(ExportCommand::new),
            Entry.of(CompareCommand::new),
            Entry.of(
                    cli -> new QueueCommand(),
                    Entry.of(QueueAddCommand::new),
                    Entry.of(QueueRunCommand::new),
                    Entry.of(QueueListCommand::new),
                    Entry.of(QueueRemoveCommand::new),
                    Entry.of(QueueMoveCommand::new)),
            Entry.of(SweepCommand::new),
            Entry.of(DevicesCommand::new),
            Entry.of(PredictCommand::new),
            Entry.of(cli -> new AutoComplete.GenerateCompletion()));

    private CommandRegistry() {}
}
