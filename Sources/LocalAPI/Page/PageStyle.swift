/// The page's style: two columns (chat, status) on a wide window, one on a phone; system
/// fonts, the user's light or dark scheme, visible focus for keyboard use.
enum PageStyle {
    static let text = #"""
    :root { color-scheme: light dark; --fg: #1b1b1f; --bg: #fafafa; --dim: #666; --line: #d6d6da;
      --accent: #2456c9; --ok: #1d7a3a; --warn: #a86400; --bad: #b3261e; --card: #fff; }
    @media (prefers-color-scheme: dark) {
      :root { --fg: #e6e6ea; --bg: #17171a; --dim: #a0a0a8; --line: #3a3a40; --accent: #8cb0ff;
        --ok: #6fd08c; --warn: #f0b45a; --bad: #ff8a80; --card: #222227; } }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
    header { padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
    h1 { font-size: 1.15rem; margin: 0; }
    h2 { font-size: .95rem; margin: .2rem 0 .4rem; }
    #route-line { margin: .2rem 0 0; color: var(--dim); }
    main { display: grid; grid-template-columns: minmax(0, 1fr) 22rem; gap: 1rem; padding: 1rem; }
    #chat { display: flex; flex-direction: column; align-self: start; position: sticky; top: .5rem;
      height: calc(100vh - 6rem); min-height: 20rem; }
    #messages { list-style: none; margin: 0; padding: 0; flex: 1; overflow-y: auto; }
    #messages li { margin: 0 0 .8rem; padding: .6rem .8rem; border-radius: .5rem; background: var(--card);
      border: 1px solid var(--line); white-space: pre-wrap; overflow-wrap: anywhere; }
    #messages li.user { border-left: 4px solid var(--accent); }
    #messages li.error .text { color: var(--bad); }
    #messages img { max-width: 12rem; max-height: 9rem; display: block; margin-top: .3rem; }
    .meta { font-size: .82rem; color: var(--dim); margin-top: .35rem; white-space: normal; }
    .meta .fell { color: var(--warn); }
    form label { display: block; margin-bottom: .2rem; }
    .hint, .dim { color: var(--dim); font-size: .85rem; }
    textarea { width: 100%; font: inherit; padding: .5rem; border: 1px solid var(--line); border-radius: .4rem;
      background: var(--card); color: var(--fg); }
    #chat.dropping textarea { outline: 3px dashed var(--accent); }
    .buttons { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .4rem; align-items: center; }
    button, .file { font: inherit; padding: .35rem .8rem; border-radius: .4rem; border: 1px solid var(--line);
      background: var(--card); color: var(--fg); cursor: pointer; }
    button[type=submit] { background: var(--accent); color: #fff; border-color: var(--accent); }
    button:disabled { opacity: .45; cursor: default; }
    .file input { position: absolute; opacity: 0; width: 1px; height: 1px; }
    .file:focus-within { outline: 2px solid var(--accent); }
    :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    .skip { position: absolute; left: -999px; }
    .skip:focus { left: 1rem; top: .5rem; background: var(--card); padding: .3rem; }
    #attachments span { display: inline-block; margin: .3rem .3rem 0 0; font-size: .85rem; }
    aside section { background: var(--card); border: 1px solid var(--line); border-radius: .5rem;
      padding: .6rem .8rem; margin-bottom: .8rem; overflow-wrap: anywhere; }
    .plain { list-style: none; padding: 0; margin: .3rem 0; }
    .plain li { margin-bottom: .3rem; }
    .pill { display: inline-block; padding: 0 .5rem; border-radius: 1rem; border: 1px solid currentColor; font-size: .85rem; }
    .pill.connected { color: var(--ok); }
    .pill.connecting, .pill.waiting, .pill.restarting, .pill.serve { color: var(--warn); }
    .pill.stopped, .pill.refused, .pill.none, .pill.not-opened, .pill.replay-store-unreadable { color: var(--bad); }
    .bar { height: .5rem; background: var(--line); border-radius: .25rem; overflow: hidden; margin: .2rem 0; }
    .bar > span { display: block; height: 100%; background: var(--ok); }
    .bar.low > span { background: var(--warn); }
    .bar.empty > span { background: var(--bad); }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .6rem; margin: 0; font-size: .9rem; }
    dt { color: var(--dim); }
    dd { margin: 0; }
    @media (max-width: 760px) {
      main { grid-template-columns: 1fr; padding: .5rem; }
      #chat { position: static; height: auto; min-height: 55vh; }
      body { font-size: 16px; }
    }
    """#
}
