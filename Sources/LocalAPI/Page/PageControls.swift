/// The page's controls: settings, cloud keys, on-device models and the serve token. Each
/// change is a POST to `/homebase/act/...`, done by the guest with its commands' own code; the
/// page only shows what the guest answers (a key typed here is sent once and never shown back).
enum PageControls {
    static let text = #"""
    "use strict";
    async function act(name, body) {
      const o = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
      const r = await hb("/homebase/act/" + name, o);
      return r.json();
    }
    function said(id, reply) { $(id).textContent = reply.ok ? (reply.text || "done") : (reply.error || reply.text || "failed"); }

    async function readSettings() {
      const reply = await act("settings");
      if (!reply.ok) return;
      const value = {};
      for (const s of reply.settings) value[s.name] = s.value;
      for (const r of document.querySelectorAll("input[name=source]")) r.checked = r.value === value["model.source"];
      $("runtime").value = value["external.runtime"] || "";
      const which = $("model-name").value;
      $("model-value").value = value[which] || "";
      $("model-value").dataset.values = JSON.stringify(value);
      $("key-rings").textContent = reply.keys;
    }

    async function setting(name, value) {
      const reply = await act("settings", { name, value: value === "" ? null : value });
      said("settings-said", reply);
      await readSettings();
    }

    async function readModels() {
      const reply = await act("models");
      if (!reply.ok) { $("offline-note").textContent = reply.error || ""; return; }
      $("offline-note").textContent = reply.offline ? "offline: the shortlist shipped with guest (pulling needs the network)" : "";
      const sl = $("shortlist"); sl.textContent = "";
      for (const m of reply.shortlist) {
        const li = el("li", reply.offline ? "offline" : "", m.name + " " + m.summary + (reply.offline ? " (offline)" : "") + " ");
        const b = el("button", "", "Pull"); b.type = "button";
        b.addEventListener("click", () => pull(m.name, m.id));
        li.append(b); sl.append(li);
      }
      const st = $("stored"); st.textContent = "";
      for (const m of reply.models) {
        const li = el("li", "", m.id + ": " + m.state + " ");
        const d = el("button", "", m.state.startsWith("downloading") ? "Cancel" : "Delete"); d.type = "button";
        d.addEventListener("click", async () => { said("pull-words", await act(d.textContent === "Cancel" ? "models/cancel" : "models/delete", { id: m.id })); readModels(); });
        li.append(d); st.append(li);
      }
    }

    // A pull's answer is NDJSON: {"received","total"} lines, then the reply.
    async function pull(target, id) {
      const bar = $("pull-bar"), words = $("pull-words"), cancel = $("pull-cancel");
      bar.hidden = false; bar.removeAttribute("value"); words.textContent = "pulling " + target + "…";
      cancel.hidden = !id; cancel.onclick = async () => said("pull-words", await act("models/cancel", { id }));
      try {
        const r = await hb("/homebase/act/models/pull", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ target }) });
        const reader = r.body.getReader(), decoder = new TextDecoder();
        let buffer = "", last = null;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n")) >= 0) {
            const line = JSON.parse(buffer.slice(0, cut)); buffer = buffer.slice(cut + 1);
            if (line.received !== undefined) {
              if (line.total) { bar.max = line.total; bar.value = line.received; }
              words.textContent = target + ": " + Math.round(line.received / 1048576) + " MiB" + (line.total ? " of " + Math.round(line.total / 1048576) + " MiB" : "");
            } else last = line;
          }
        }
        if (!last && buffer.trim()) last = JSON.parse(buffer);
        said("pull-words", last || { ok: false, error: "the pull ended without a reply" });
      } catch (e) { words.textContent = "pull failed: " + e.message; }
      bar.hidden = true; cancel.hidden = true;
      readModels();
    }

    document.addEventListener("DOMContentLoaded", () => {
      for (const r of document.querySelectorAll("input[name=source]")) r.addEventListener("change", () => setting("model.source", r.value));
      $("runtime").addEventListener("change", () => setting("external.runtime", $("runtime").value));
      $("model-name").addEventListener("change", () => {
        const v = JSON.parse($("model-value").dataset.values || "{}"); $("model-value").value = v[$("model-name").value] || "";
      });
      $("model-form").addEventListener("submit", (e) => { e.preventDefault(); setting($("model-name").value, $("model-value").value.trim()); });
      $("key-form").addEventListener("submit", async (e) => {
        e.preventDefault();
        const key = $("key-value").value.trim(); $("key-value").value = "";
        if (key) { said("key-said", await act("keys/add", { provider: $("key-provider").value, key })); readSettings(); }
      });
      $("key-test").addEventListener("click", async () => said("key-said", await act("keys/test", { provider: $("key-provider").value, position: 1 })));
      $("pull-form").addEventListener("submit", (e) => { e.preventDefault(); const t = $("pull-target").value.trim(); if (t) pull(t, null); });
      $("token-box").addEventListener("submit", (e) => {
        e.preventDefault(); sessionStorage.setItem("homebase-token", $("token").value.trim()); $("token").value = ""; location.reload();
      });
      $("token-box").hidden = !sessionStorage.getItem("homebase-token");
      readSettings().catch(() => {}); readModels().catch(() => {});
    });
    """#
}
