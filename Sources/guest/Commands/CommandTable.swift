import CommandLineKit

/// Every `guest` command, in help order. Adding a command: one file under Commands/ defining
/// a `Command`, and one line here.
enum CommandTable {
    static let all: [Command] = [
        InitCommand.command,
        ChatCommand.command,
        StatusCommand.command,
        SettingsCommand.command,
        ModelsCommand.command,
        RelayCommand.command,
        KeysCommandLine.command,
        ServeCommandLine.command,
        RuntimeCommandLine.command,
        PairCommand.command,
        DevicesCommand.command,
        JoinCommand.command,
        HostCommand.command,
    ]
}
