import CommandLineKit
import CloudKeys
import GuestAgent

/// `guest keys add|list|remove|move|test`: the cloud key rings, through `KeyVerbs`.
/// `test` asks the configured OpenAI/Anthropic URL (`HOMEBASE_OPENAI_BASE_URL`, ...).
enum KeysCommandLine {
    static let command = Command(
        name: "keys", summary: "add, list, reorder and test your OpenAI and Anthropic API keys",
        usage: "add PROVIDER [KEY|-] | list | remove PROVIDER N | move PROVIDER FROM TO | test PROVIDER [N]",
        details: "PROVIDER is openai or anthropic. add reads the key from standard input when KEY is - or absent\n"
            + "(not echoed on a terminal). Each provider keeps an ordered ring; the first key is the one used, read\n"
            + "again for every request, so `move` or `remove` takes effect on the next call. list shows keys masked\n"
            + "(sk-ant-•••••wxyz). test is the zero-token check (GET /v1/models): valid, invalid (401), or the\n"
            + "status as it is. Keys stay on this device in files of mode 0600.\n"
            + "Example: guest keys add anthropic < key.txt && guest settings set external.runtime claude",
        flags: [], run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        let config = try inv.configuration
        let tester = KeyTester(openAIBaseURL: config.cloudURLs.openAI, anthropicBaseURL: config.cloudURLs.anthropic)
        let text = Collected()
        let status = await KeyVerbs.run(arguments: inv.positionals, dataDir: config.paths.dataDirectory,
                                           output: { text.append($0) }, tester: tester)
        // A bad command line goes to stderr like every other command's; results to stdout.
        if status == 2 { Console.err(text.value) } else { Console.out(text.value) }
        return status
    }
}
