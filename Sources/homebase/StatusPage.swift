import CommandLineKit
import Dispatch
import Foundation
import Glibc
import HomebaseAgent
import Transport

/// `homebase status --serve 127.0.0.1:PORT`: the status `homebase status --json` prints, as a
/// read-only page that refreshes itself (`fetch` of `/homebase/status` every 2 s). Loopback
/// only, a `Host` that is not a loopback name refused (DNS rebinding); the page loads nothing
/// from elsewhere (its Content-Security-Policy allows its own origin only). Never prompt text:
/// `HostStatus` has none.
enum StatusPage {
    static func serve(_ listen: String, files: HostFiles) throws -> Int32 {
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw UsageError.invalid("--serve takes 127.0.0.1:PORT (got \(listen.prefix(60)))")
        }
        let given = String(listen[..<colon])
        let host = given.hasPrefix("[") && given.hasSuffix("]") ? String(given.dropFirst().dropLast()) : given
        guard LoopbackNames.isAddress(host) else {
            throw UsageError.invalid("--serve listens on loopback only (127.0.0.1:PORT or [::1]:PORT): the page shows grants and devices")
        }
        _ = try HostStatus.read(files)  // a store that cannot be read fails now, not on the first request
        signal(SIGPIPE, SIG_IGN)
        let loop = try EventLoop()
        let holder = Holder()
        loop.execute {
            do {
                var c = HTTPServer.Configuration()
                c.listener.host = host
                c.listener.port = port
                holder.server = try HTTPServer(loop: loop, configuration: c) { request, responder in
                    responder.respond(answer(request, files))
                }
                for s in [SIGINT, SIGTERM] { try loop.onSignal(s) { loop.shutdown() } }
                out("homebase status: the page is at http://\(host.contains(":") ? "[\(host)]" : host):\(holder.server!.port)/ (Ctrl-C stops it)")
            } catch {
                holder.failed = true
                out("homebase status: cannot listen on \(listen): \(error)")
                loop.shutdown()
            }
        }
        try loop.start()
        loop.join()
        return holder.failed ? 1 : 0
    }

    static func answer(_ request: HTTPRequest, _ files: HostFiles) -> HTTPResponse {
        func text(_ code: Int, _ reason: String, _ type: String, _ body: String) -> HTTPResponse {
            var h = HTTPHeaders()
            h.add("Content-Type", type)
            h.add("Cache-Control", "no-store")
            h.add("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                  + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
            h.add("X-Content-Type-Options", "nosniff")
            return HTTPResponse(status: HTTPStatus(code: code, reason: reason), headers: h, body: Array(body.utf8))
        }
        if let h = request.headers["host"], !LoopbackNames.isHost(h) {
            return text(403, "Forbidden", "text/plain", "Host is not a loopback name: this page answers only localhost, 127.0.0.1 or [::1]\n")
        }
        guard request.method == "GET" else { return text(405, "Method Not Allowed", "text/plain", "read-only: GET only\n") }
        switch String(request.path) {
        case "/": return text(200, "OK", "text/html; charset=utf-8", html)
        case "/homebase/page.js": return text(200, "OK", "text/javascript; charset=utf-8", script)
        case "/homebase/page.css": return text(200, "OK", "text/css; charset=utf-8", style)
        case "/homebase/status":
            do {
                let e = JSONEncoder()
                e.outputFormatting = [.sortedKeys]
                return text(200, "OK", "application/json", String(decoding: try e.encode(HostStatus.read(files)), as: UTF8.self))
            } catch { return text(500, "Internal Server Error", "application/json", #"{"error":"the status cannot be read now"}"#) }
        case "/metrics":
            // `grants usage`'s figures and each runtime's load, for Prometheus (#21).
            do {
                let store = try files.openStore(readOnly: true)
                defer { store.close() }
                let report = try UsageCommand.report(store: store, nowMs: nowMs())
                let load = (try? HostStatus.read(files))?.live?.runtimeLoad ?? [:]
                return text(200, "OK", "text/plain; version=0.0.4", UsageMetrics.text(report, load: load))
            } catch { return text(500, "Internal Server Error", "text/plain", "the usage cannot be read now\n") }
        default: return text(404, "Not Found", "text/plain", "no such page: /, /homebase/status and /metrics\n")
        }
    }

    private final class Holder: @unchecked Sendable {
        var server: HTTPServer?
        var failed = false
    }

    static let html = #"""
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Homebase status</title><link rel="icon" href="data:,">
    <link rel="stylesheet" href="/homebase/page.css"><script src="/homebase/page.js" defer></script>
    </head><body>
    <header><h1>Homebase <span id="name"></span></h1><p id="updated" aria-live="polite">reading…</p></header>
    <main>
    <section aria-labelledby="h1"><h2 id="h1">Relay link</h2><p><span id="link" class="pill">?</span> <span id="relay"></span></p>
      <p id="sleep" class="dim"></p></section>
    <section aria-labelledby="h2"><h2 id="h2">Requests</h2><p id="requests"></p><dl id="outcomes"></dl>
      <p class="dim">Counts since the agent started; no prompt text is ever kept.</p>
      <h3 class="dim">Recent (newest first, last 50)</h3><ol id="recent" class="dim"></ol></section>
    <section aria-labelledby="h3"><h2 id="h3">Runtimes and models</h2><ul id="runtimes"></ul><p id="advert" class="dim"></p></section>
    <section aria-labelledby="h4"><h2 id="h4">Grants</h2><ul id="grants"></ul></section>
    <section aria-labelledby="h5"><h2 id="h5">Siblings</h2><ul id="siblings"></ul></section>
    </main></body></html>
    """#

    static let style = #"""
    :root { color-scheme: light dark; }
    body { margin: 0; font: 15px/1.45 system-ui, sans-serif; }
    header { padding: .6rem 1rem; border-bottom: 1px solid #8884; } h1 { font-size: 1.15rem; margin: 0; }
    main { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 1rem; padding: 1rem; }
    section { border: 1px solid #8886; border-radius: .5rem; padding: .6rem .8rem; overflow-wrap: anywhere; }
    h2 { font-size: .95rem; margin: .2rem 0 .4rem; } ul { padding-left: 1.1rem; margin: .3rem 0; }
    .dim { opacity: .7; font-size: .85rem; } .pill { padding: 0 .5rem; border-radius: 1rem; border: 1px solid currentColor; }
    .connected { color: #1d7a3a; } .down { color: #b3261e; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .6rem; margin: 0; } dd { margin: 0; }
    @media (max-width: 760px) { main { grid-template-columns: 1fr; padding: .5rem; } }
    """#

    static let script = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const li = (t) => { const e = document.createElement("li"); e.textContent = t; return e; };
    const ago = (ms) => { const s = Math.max(0, Math.round((Date.now() - ms) / 1000)); return s < 120 ? s + " s ago" : Math.round(s / 60) + " min ago"; };
    function fill(id, items, words) { const ul = $(id); ul.textContent = ""; if (!items.length) ul.append(li("none")); for (const x of items) ul.append(li(words(x))); }
    function show(s) {
      $("name").textContent = s.device.name;
      const live = s.live && s.live.running && s.live.staleAfterMs > Date.now() ? s.live : null;
      $("updated").textContent = live ? "agent running (pid " + live.pid + "), updated " + ago(live.updatedMs) : "the agent is not running (homebase run)";
      $("link").textContent = live ? live.link : "not running";
      $("link").className = "pill " + (live && live.link === "connected" ? "connected" : "down");
      $("relay").textContent = live ? live.relay : "";
      $("sleep").textContent = live && live.sleep ? "sleep: " + live.sleep : "";
      $("requests").textContent = live ? live.activeRequests + " in flight, " + live.queuedRequests + " queued" : "none (not running)";
      const dl = $("outcomes"); dl.textContent = "";
      for (const [k, v] of Object.entries((live && live.outcomes) || {}).sort()) {
        const dt = document.createElement("dt"), dd = document.createElement("dd"); dt.textContent = k; dd.textContent = v; dl.append(dt, dd);
      }
      fill("recent", ((live && live.recent) || []).slice().reverse(), (r) => ago(r.startedMs) + ": " + r.who + ", " + r.model + ", " + r.outcome + " in " + r.durationMs + " ms");
      fill("runtimes", s.runtimes, (r) => r.kind + " " + r.url + ": " + (r.available ? "available" : "unavailable" + (r.lastError ? " (" + r.lastError + ")" : "")) + "; models: " + (r.models.join(", ") || "none") + "; checked " + ago(r.checkedMs));
      $("advert").textContent = s.lastAdvert ? "last advert: sequence " + s.lastAdvert.sequence + ", " + s.lastAdvert.models + " model(s), sent " + ago(s.lastAdvert.sentMs) : "no advert sent yet";
      fill("grants", s.grants, (g) => g.id.slice(0, 12) + " to " + g.grantee.slice(0, 16) + "…: " + g.models.join(", ") + (g.revoked ? " (revoked)" : g.expiresMs < Date.now() ? " (expired)" : ""));
      fill("siblings", s.siblings, (d) => d.name + " " + d.key.slice(0, 16) + "…");
    }
    async function tick() {
      try { show(await (await fetch("/homebase/status", { cache: "no-store" })).json()); }
      catch (_) { $("updated").textContent = "homebase status --serve is not answering"; }
    }
    document.addEventListener("DOMContentLoaded", () => { tick(); setInterval(tick, 2000); });
    """#
}
