/// The page `guest serve` answers a browser at `/`: a chat that streams through the API's own
/// `/v1/chat/completions`, and the guest's status, live. Plain HTML; the script and style are
/// `PageScript` and `PageStyle`, served beside it from the same origin (no CDN, no build step).
enum PageHTML {
    static let text = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Homebase guest</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/homebase/page.css">
    <script src="/homebase/page.js" defer></script>
    </head>
    <body>
    <a class="skip" href="#prompt">Skip to the question box</a>
    <header>
      <h1>Homebase guest</h1>
      <p id="route-line" aria-live="polite">reading status…</p>
    </header>
    <main>
      <section id="chat" aria-label="Chat">
        <ol id="messages" aria-live="polite" aria-label="Conversation"></ol>
        <form id="ask" autocomplete="off">
          <label for="prompt">Question <span class="hint">(Enter sends, Shift+Enter a new line; drop an image here to attach it)</span></label>
          <textarea id="prompt" rows="3" placeholder="Ask anything…"></textarea>
          <div id="attachments" aria-live="polite"></div>
          <div class="buttons">
            <button type="submit" id="send">Send</button>
            <button type="button" id="stop" disabled>Stop</button>
            <button type="button" id="retry" disabled>Retry</button>
            <label class="file">Attach image <input type="file" id="file" accept="image/*" multiple></label>
            <button type="button" id="clear">New chat</button>
          </div>
        </form>
      </section>
      <aside id="panel" aria-label="Status">
        <section aria-labelledby="h-relay">
          <h2 id="h-relay">Relay link</h2>
          <p><span id="link-state" class="pill">?</span> <span id="link-words"></span></p>
          <ul id="joined-links" class="plain"></ul>
          <p id="last-mail" class="dim"></p>
        </section>
        <section aria-labelledby="h-homebases">
          <h2 id="h-homebases">Homebases</h2>
          <div id="own-homebase"></div>
          <ul id="joined" class="plain"></ul>
        </section>
        <section aria-labelledby="h-models">
          <h2 id="h-models">Models on offer</h2>
          <ul id="models" class="plain"></ul>
        </section>
        <section aria-labelledby="h-engine">
          <h2 id="h-engine">On-device engine</h2>
          <p id="engine"></p>
          <p id="local-model" class="dim"></p>
          <ul id="downloads" class="plain"></ul>
          <p class="dim">Models: guest models browse | pull NAME | delete ID (not from this page yet).</p>
        </section>
        <section aria-labelledby="h-settings">
          <h2 id="h-settings">Settings</h2>
          <dl id="settings"></dl>
          <p class="dim">Read-only here: change them with guest settings and guest keys.</p>
        </section>
      </aside>
    </main>
    </body>
    </html>
    """#
}
