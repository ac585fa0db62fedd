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
        PairCommand.command,
        DevicesCommand.command,
        JoinCommand.command,
    ]
}
