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
    <script src="/homebase/controls.js" defer></script>
    </head>
    <body>
    <a class="skip" href="#prompt">Skip to the question box</a>
    <header>
      <h1>Homebase guest</h1>
      <p id="route-line" aria-live="polite">reading status…</p>
      <form id="token-box" hidden><label for="token">Serve token <span class="hint">(guest serve --token; kept for this tab only)</span></label>
        <input type="password" id="token" autocomplete="off"> <button type="submit">Use</button></form>
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
        </section>
        <section aria-labelledby="h-local">
          <h2 id="h-local">On-device models</h2>
          <p id="offline-note" class="dim"></p>
          <ul id="shortlist" class="plain"></ul>
          <form id="pull-form"><label for="pull-target">Pull a model <span class="hint">(shortlist name or OWNER/NAME:QUANT)</span></label>
            <input id="pull-target" autocomplete="off"> <button type="submit">Pull</button></form>
          <progress id="pull-bar" max="1" hidden></progress> <button type="button" id="pull-cancel" hidden>Cancel</button>
          <p id="pull-words" aria-live="polite"></p>
          <ul id="stored" class="plain" aria-label="Models on this device"></ul>
        </section>
        <section aria-labelledby="h-settings">
          <h2 id="h-settings">Settings</h2>
          <dl id="settings"></dl>
          <fieldset><legend>Model source</legend>
            <label><input type="radio" name="source" value="on-device"> on-device</label>
            <label><input type="radio" name="source" value="community"> community</label>
            <label><input type="radio" name="source" value="external"> external</label>
          </fieldset>
          <label for="runtime">External runtime</label>
          <select id="runtime"><option value="">(unset)</option><option value="ollama">ollama</option><option value="openai">openai</option><option value="claude">claude</option></select>
          <form id="model-form"><label for="model-value">Model for <select id="model-name" aria-label="which model setting">
            <option value="ollama.model">ollama.model</option><option value="local.model">local.model</option><option value="openai.model">openai.model</option><option value="claude.model">claude.model</option></select></label>
            <input id="model-value" autocomplete="off"> <button type="submit">Save</button></form>
          <p id="settings-said" aria-live="polite"></p>
          <h3>Cloud keys</h3>
          <pre id="key-rings"></pre>
          <form id="key-form"><label for="key-value">Add a key for <select id="key-provider" aria-label="provider">
            <option value="openai">openai</option><option value="anthropic">anthropic</option></select></label>
            <input type="password" id="key-value" autocomplete="off"> <button type="submit">Add</button>
            <button type="button" id="key-test">Test key 1</button></form>
          <p id="key-said" aria-live="polite"></p>
        </section>
      </aside>
    </main>
    </body>
    </html>
    """#
}
