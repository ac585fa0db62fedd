import Foundation

/// A small list of JSON entries in one 0600 file, read whole and rewritten whole through a
/// temporary file and a rename (a reader never sees half a file). Unreadable or absent: empty.
/// Updates are serialised by `lock` within the process; across processes the last rename wins.
struct JSONListFile<Entry: Codable>: Sendable {
    let path: String
    private let lock = NSLock()

    init(path: String) { self.path = path }

    func read() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }

    func update(_ change: (inout [Entry]) -> Void) {
        lock.lock(); defer { lock.unlock() }
        var list = read()
        change(&list)
        guard let data = try? JSONEncoder().encode(list) else { return }
        let temp = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temp, path) != 0 { unlink(temp) }
    }
}
