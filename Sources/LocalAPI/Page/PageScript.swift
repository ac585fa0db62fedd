/// The page's script: plain JavaScript, `fetch` and streams only. The chat posts to the API's
/// own `/v1/chat/completions` (stream: true) and shows, under each answer, the `homebase`
/// object the guest sends with the last chunk; the status panel reads `/homebase/events`.
/// It computes nothing the guest already says: it only lays out the status JSON.
enum PageScript {
    static let text = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const history = [];        // {role, content} sent with every question
    let pending = [];          // images attached to the next question: data URLs
    let controller = null;     // the running answer's AbortController
    let lastQuestion = null;   // what Retry sends again

    function el(tag, cls, text) {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }

    // Server-sent events over fetch: calls onEvent(name, data) for each event of the body.
    async function readEvents(response, onEvent) {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let name = "message", data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) name = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (data.length) onEvent(name, data.join("\n"));
        }
      }
    }

    // ---- chat ----
    function addMessage(role, text, images) {
      const li = el("li", role);
      li.append(el("div", "text", text));
      for (const url of images || []) { const img = el("img"); img.src = url; img.alt = "attached image"; li.append(img); }
      $("messages").append(li);
      li.scrollIntoView({ block: "end" });
      return li;
    }

    function metaLine(brain, h) {
      const parts = [];
      const who = (h && h.brain) || brain || "unknown brain";
      parts.push(el("strong", "brain", (who === "floor" || who === "none") ? "no brain (floor notice)" : who));
      if (h && h.route_reason) parts.push(el("span", "reason", "why: " + h.route_reason));
      if (h && h.ttft_ms) parts.push(el("span", "ttft", "first token " + h.ttft_ms + " ms"));
      if (h && h.tokens_per_second) parts.push(el("span", "rate", h.tokens_per_second + " tok/s"));
      if (h && h.fell_back_from) {
        parts.push(el("span", "fell", "fell back: " + h.fell_back_from + " failed (" + (h.fallback_reason || "?") + ")"));
      }
      const div = el("div", "meta");
      parts.forEach((p, i) => { if (i) div.append(" · "); div.append(p); });
      return div;
    }

    function contentOf(text, images) {
      if (!images.length) return text;
      return [{ type: "text", text }].concat(images.map((url) => ({ type: "image_url", image_url: { url } })));
    }

    async function ask(question) {
      lastQuestion = question;
      history.push({ role: "user", content: contentOf(question.text, question.images) });
      const li = addMessage("assistant", "");
      li.setAttribute("aria-busy", "true");
      const text = li.querySelector(".text");
      controller = new AbortController();
      $("stop").disabled = false; $("send").disabled = true; $("retry").disabled = true;
      let answer = "", brain = null, homebase = null;
      try {
        const response = await fetch("/v1/chat/completions", {
          method: "POST", signal: controller.signal,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ model: "homebase", stream: true, messages: history }),
        });
        brain = response.headers.get("X-Homebase-Brain");
        if (!response.ok) {
          let why = "HTTP " + response.status;
          try { why = (await response.json()).error.message || why; } catch (_) {}
          throw new Error(why);
        }
        await readEvents(response, (_, data) => {
          if (data === "[DONE]") return;
          const chunk = JSON.parse(data);
          if (chunk.error) throw new Error(chunk.error.message || "the answer broke off");
          const delta = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
          if (delta && delta.content) { answer += delta.content; text.textContent = answer; }
          if (chunk.homebase) homebase = chunk.homebase;
        });
        history.push({ role: "assistant", content: answer });
        if (!homebase) li.classList.add("error"), li.append(el("div", "meta", "the answer ended without its last chunk"));
        else li.append(metaLine(brain, homebase));
      } catch (e) {
        history.pop();  // the question goes again with Retry
        li.classList.add("error");
        const stopped = e.name === "AbortError";
        li.append(el("div", "meta", stopped ? "stopped" : "failed: " + e.message));
        if (brain) li.append(metaLine(brain, homebase));
      } finally {
        li.removeAttribute("aria-busy");
        controller = null;
        $("stop").disabled = true; $("send").disabled = false; $("retry").disabled = false;
      }
    }

    function send() {
      const text = $("prompt").value.trim();
      if (!text || controller) return;
      const images = pending;
      pending = []; showAttachments();
      $("prompt").value = "";
      addMessage("user", text, images);
      ask({ text, images });
    }

    function attach(files) {
      for (const f of files) {
        if (!f.type.startsWith("image/")) continue;
        const r = new FileReader();
        r.onload = () => { pending.push(r.result); showAttachments(f.name); };
        r.readAsDataURL(f);
      }
    }
    function showAttachments() {
      const box = $("attachments");
      box.textContent = "";
      pending.forEach((_, i) => box.append(el("span", "", "image " + (i + 1) + " attached")));
    }

    // ---- status ----
    function age(seconds) {
      if (seconds < 120) return seconds + " s";
      if (seconds < 7200) return Math.round(seconds / 60) + " min";
      return Math.round(seconds / 3600) + " h";
    }
    // A bar that empties as the age nears the window: full when just heard, empty when stale.
    function bar(ageSeconds, limit, label, id) {
      const wrap = el("div");
      const left = ageSeconds == null ? 0 : Math.max(0, 1 - ageSeconds / limit);
      const b = el("div", "bar" + (left === 0 ? " empty" : left < 0.25 ? " low" : ""));
      b.setAttribute("role", "meter");
      b.setAttribute("aria-valuemin", "0"); b.setAttribute("aria-valuemax", "100");
      b.setAttribute("aria-valuenow", String(Math.round(left * 100)));
      b.setAttribute("aria-label", label);
      if (id) b.id = id;
      const fill = el("span"); fill.style.width = (left * 100).toFixed(1) + "%";
      b.append(fill);
      const words = ageSeconds == null ? "none received" : age(ageSeconds) + " old of " + age(limit)
        + (left === 0 ? ": stale, not used" : "");
      wrap.append(el("div", "dim", label + ": " + words), b);
      return wrap;
    }

    function showStatus(s) {
      const r = s.relay || {};
      $("route-line").textContent = "Next answer: " + (s.shape || s.route) + " (brain " + s.brain + ") because " + s.reason;
      const pill = $("link-state");
      pill.textContent = r.linkState; pill.className = "pill " + r.linkState;
      $("link-words").textContent = r.link || "";
      const jl = $("joined-links"); jl.textContent = "";
      for (const line of r.joinedLinks || []) jl.append(el("li", "", line));
      $("last-mail").textContent = r.lastMail ? "last mail: " + r.lastMail : "";
      const own = $("own-homebase"); own.textContent = "";
      if (r.homebaseKey || r.advertAgeSeconds != null) {
        own.append(el("div", "", "Own Homebase " + (r.homebaseKey || r.advertHost || "").slice(0, 16) + "…"));
        own.append(bar(r.advertAgeSeconds, s.ownAdvertLimitSeconds, "last advert", "own-advert-bar"));
      } else own.append(el("div", "dim", "no own Homebase known (guest relay set URL --homebase RECORD)"));
      const joined = $("joined"); joined.textContent = "";
      for (const j of s.joined || []) {
        const li = el("li", "", "Joined " + j.hostKey.slice(0, 16) + "… (" + j.state + "): " + j.models.join(", "));
        li.append(bar(j.heardAgeSeconds, s.joinedLimitSeconds, "last heard"));
        joined.append(li);
      }
      $("engine").textContent = s.engine || "";
      $("local-model").textContent = "local model: " + s.localModel + "; llama-server: " + (s.llamaServer || "not found");
      const dl = $("downloads"); dl.textContent = "";
      for (const d of s.downloads || []) dl.append(el("li", "", "download " + d.id + ": " + d.phase + (d.progress ? " " + d.progress : "") + (d.failure ? " (" + d.failure + ")" : "")));
      const set = $("settings"); set.textContent = "";
      const rows = [["route", s.route + (s.shape ? " (" + s.shape + ")" : "")], ["ollama.host", s.host],
        ["with tools", s.tools], ["with images", s.images], ["local runtime", s.localEndpoint || "none"]];
      for (const [k, v] of Object.entries(s.keys || {}).sort()) rows.push(["key " + k, v === "present" ? "•••••••• (on file)" : "none"]);
      if (s.lastFallback) rows.push(["last fallback", s.lastFallback]);
      for (const [k, v] of rows) { set.append(el("dt", "", k), el("dd", "", v || "")); }
    }

    async function models() {
      try {
        const list = await (await fetch("/v1/models")).json();
        const ul = $("models"); ul.textContent = "";
        for (const m of list.data) ul.append(el("li", "", m.id + (m.homebase_brain ? " (" + m.homebase_brain + ")" : "")));
      } catch (_) {}
    }

    // The status stream, reopened after a pause when it ends (serve restarted, laptop slept).
    async function watch() {
      for (;;) {
        try {
          const response = await fetch("/homebase/events", { headers: { Accept: "text/event-stream" } });
          await readEvents(response, (name, data) => { if (name === "status") showStatus(JSON.parse(data)); });
        } catch (_) {
          $("link-state").textContent = "guest serve unreachable"; $("link-state").className = "pill stopped";
        }
        await new Promise((r) => setTimeout(r, 2000));
      }
    }

    document.addEventListener("DOMContentLoaded", () => {
      $("ask").addEventListener("submit", (e) => { e.preventDefault(); send(); });
      $("prompt").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); send(); } });
      $("stop").addEventListener("click", () => controller && controller.abort());
      $("retry").addEventListener("click", () => { if (lastQuestion && !controller) ask(lastQuestion); });
      $("clear").addEventListener("click", () => { history.length = 0; $("messages").textContent = ""; });
      $("file").addEventListener("change", (e) => attach(e.target.files));
      const chat = $("chat");
      chat.addEventListener("dragover", (e) => { e.preventDefault(); chat.classList.add("dropping"); });
      chat.addEventListener("dragleave", () => chat.classList.remove("dropping"));
      chat.addEventListener("drop", (e) => { e.preventDefault(); chat.classList.remove("dropping"); attach(e.dataTransfer.files); });
      document.addEventListener("keydown", (e) => { if (e.key === "Escape" && controller) controller.abort(); });
      models(); setInterval(models, 30000);
      watch();
    });
    """#
}
