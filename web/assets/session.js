// One session: the transcript as people read it (paged for long sessions), live while a
// turn runs (Server-Sent Events), a prompt box, permission answers, cancel and rewind.
import { api, ApiError, query } from "./api.js";
const { TRANSCRIPT_PAGE, transcriptUrl } = globalThis.bonsaiBoot;
import { ask, h, replace, toast } from "./dom.js";
import { full, int, ms, usd } from "./format.js";
import { markdown } from "./markdown.js";
import { navigate } from "./nav.js";
import { actions } from "./sessions.js";
import { toolBlock, turnUsage } from "./transcript.js";

const PAGE = TRANSCRIPT_PAGE;
const EVENTS = [
  "turn_start",
  "text",
  "thinking",
  "tool_start",
  "tool_end",
  "permission_request",
  "permission",
  "retry",
  "usage",
  "notice",
  "turn_end",
  "error",
];

/** Shows the session; `?seq=N` opens it at message N (a search hit). */
export function mount(main, [id], search) {
  const abort = new AbortController();
  const target = Number(search.get("seq")) || null;
  const view = new SessionView(main, id, abort.signal);
  view.load(target).then(() => view.listen());
  return () => {
    abort.abort();
    view.close();
  };
}

class SessionView {
  constructor(main, id, signal) {
    this.main = main;
    this.id = id;
    this.signal = signal;
    this.messages = [];
    this.busy = false;
    this.source = null;
    this.header = h("header", { class: "session-head" });
    this.earlier = h("button", { type: "button", hidden: true, onclick: () => this.more(-1) }, [
      "Load earlier messages",
    ]);
    this.later = h("button", { type: "button", hidden: true, onclick: () => this.more(1) }, [
      "Load later messages",
    ]);
    this.list = h("ol", { class: "transcript", "aria-label": "Transcript" });
    this.live = h("div", { class: "live", "aria-live": "off" });
    this.permissions = h("section", {
      class: "permissions",
      "aria-label": "Permission requests",
      "aria-live": "assertive",
    });
    this.prompt = h("textarea", {
      id: "prompt",
      name: "text",
      rows: 3,
      required: true,
      maxlength: 200000,
      "aria-describedby": "prompt-hint",
    });
    this.send = h("button", { type: "submit", class: "primary" }, "Send");
    this.cancel = h("button", {
      type: "button",
      class: "danger",
      hidden: true,
      onclick: () => this.cancelTurn(),
    }, "Cancel turn");
    this.status = h("p", { class: "muted", role: "status" });
    const form = h(
      "form",
      { class: "prompt", onsubmit: (e) => (e.preventDefault(), this.submit()) },
      h("label", { for: "prompt" }, "Message"),
      this.prompt,
      h(
        "p",
        { id: "prompt-hint", class: "muted" },
        "Ctrl+Enter sends. The agent works in the session's project folder.",
      ),
      h("p", { class: "actions" }, this.send, this.cancel, this.status),
    );
    this.prompt.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.submit();
      }
    });
    replace(
      main,
      this.header,
      this.earlier,
      this.list,
      this.later,
      this.live,
      this.permissions,
      form,
    );
  }

  async load(target) {
    let page;
    try {
      page = await api(
        transcriptUrl(this.id, target),
        { signal: this.signal },
      );
    } catch (err) {
      if (this.signal.aborted) return;
      replace(
        this.main,
        h("h1", {}, "Session"),
        h("p", { class: "error", role: "alert" }, err.message),
      );
      return;
    }
    this.apply(page);
    this.messages = page.messages;
    this.render();
    for (const p of page.pending_permissions) this.ask(p);
    if (target) {
      const el = document.getElementById(`m${target}`);
      el?.closest("details")?.setAttribute("open", "");
      el?.classList.add("hit");
      el?.scrollIntoView({ block: "center" });
    } else {
      this.list.lastElementChild?.scrollIntoView({ block: "end" });
    }
  }

  apply(page) {
    this.session = page.session;
    this.firstSeq = page.first_seq;
    this.lastSeq = page.last_seq;
    this.setBusy(page.running?.busy ?? false);
    this.renderHeader();
  }

  renderHeader() {
    const s = this.session;
    const title = s.title || "(untitled)";
    document.title = `${title} · bonsai`;
    replace(
      this.header,
      h("p", { class: "crumbs" }, h("a", { href: "/" }, "Sessions"), " / "),
      h("h1", {}, title),
      h(
        "p",
        { class: "meta" },
        h("span", { class: `status ${s.status}` }, s.status),
        ` ${s.model ?? "no model"} · ${s.project_path} · created ${full(s.created_at)} · `,
        `${int(s.message_count)} messages · ${int(s.total_tokens)} tokens · ${
          usd(s.cost_usd, s.cost_exact)
        }`,
        s.parent_id
          ? [
            " · rewound from ",
            h("a", { href: `/session/${s.parent_id}` }, s.parent_id.slice(0, 8)),
          ]
          : null,
      ),
      h(
        "p",
        { class: "actions" },
        actions(s, title, () => this.refreshHeader(), () => navigate("/", { replace: true })),
      ),
    );
  }

  async refreshHeader() {
    const page = await api(
      `/api/user/sessions/${encodeURIComponent(this.id)}/transcript?limit=1`,
      { signal: this.signal },
    );
    this.apply(page);
  }

  render() {
    const msgs = this.messages;
    this.earlier.hidden = !msgs.length || msgs[0].seq <= this.firstSeq;
    this.later.hidden = !msgs.length || msgs.at(-1).seq >= this.lastSeq;
    const results = new Map();
    const calls = new Set();
    for (const m of msgs) if (m.kind === "tool_call" && m.tool_call_id) calls.add(m.tool_call_id);
    for (const m of msgs) {
      if (m.kind === "tool_result" && calls.has(m.tool_call_id)) results.set(m.tool_call_id, m);
    }
    const items = [];
    let turn = [];
    const close = () => {
      const usage = turnUsage(turn);
      if (usage) items.push(usage);
      turn = [];
    };
    for (const m of msgs) {
      if (m.role === "user" && m.kind === "text") close();
      turn.push(m);
      if (m.kind === "tool_result" && results.get(m.tool_call_id) === m) continue;
      items.push(this.item(m, results));
    }
    close();
    replace(this.list, items);
  }

  item(m, results) {
    const attrs = { id: `m${m.seq}`, class: `msg ${m.role} ${m.kind}` };
    switch (m.kind) {
      case "text":
        if (m.role === "user") {
          return h(
            "li",
            attrs,
            h("h2", { class: "who" }, "You", time(m)),
            h("div", { class: "body" }, markdown(m.text)),
            h("button", {
              type: "button",
              class: "small rewind",
              "aria-label": `Rewind to before this prompt (message ${m.seq})`,
              onclick: () => this.rewind(m),
            }, "Rewind here"),
          );
        }
        return h(
          "li",
          attrs,
          h("h2", { class: "who" }, m.role === "assistant" ? "Assistant" : m.role, time(m)),
          h("div", { class: "body" }, markdown(m.text)),
          m.status !== "complete" ? h("p", { class: "muted" }, `(${m.status})`) : null,
        );
      case "thinking":
        return h(
          "li",
          attrs,
          h(
            "details",
            {},
            h("summary", {}, "Thinking"),
            h("div", { class: "body" }, markdown(m.text)),
          ),
        );
      case "tool_call":
        return h("li", attrs, toolBlock(m, results.get(m.tool_call_id)));
      case "tool_result":
        return h(
          "li",
          attrs,
          h(
            "details",
            {},
            h("summary", {}, `Result of ${m.tool_name ?? "a tool"}${m.is_error ? " (error)" : ""}`),
            h("pre", { tabindex: "0" }, m.tool_result ?? m.text),
          ),
        );
      case "permission":
        return h("li", attrs, h("p", { class: "permission-line" }, "Permission: ", m.text));
      case "error":
        return h("li", attrs, h("p", { class: "error" }, "⚠ ", m.text));
      case "summary":
        return h(
          "li",
          attrs,
          h(
            "details",
            {},
            h("summary", {}, "Summary of earlier turns"),
            h("div", { class: "body" }, markdown(m.text)),
          ),
        );
      default:
        return h("li", attrs, h("p", { class: "muted" }, m.text));
    }
  }

  async more(direction) {
    const msgs = this.messages;
    const q = direction < 0
      ? { before: msgs[0]?.seq ?? this.firstSeq, limit: PAGE }
      : { after: msgs.at(-1)?.seq ?? 0, limit: PAGE };
    const page = await api(
      `/api/user/sessions/${encodeURIComponent(this.id)}/transcript${query(q)}`,
      { signal: this.signal },
    );
    this.apply(page);
    const anchor = direction < 0 ? this.list.firstElementChild : null;
    this.messages = direction < 0 ? [...page.messages, ...msgs] : [...msgs, ...page.messages];
    this.render();
    anchor?.id && document.getElementById(anchor.id)?.scrollIntoView();
  }

  /** Follows the session's events while the page is open. */
  listen() {
    if (this.signal.aborted) return;
    const source = new EventSource(`/api/user/sessions/${encodeURIComponent(this.id)}/events`);
    this.source = source;
    for (const name of EVENTS) {
      source.addEventListener(name, (e) => this.event(name, JSON.parse(e.data)));
    }
  }

  close() {
    this.source?.close();
  }

  event(name, e) {
    switch (name) {
      case "turn_start":
        this.setBusy(true);
        break;
      case "text":
      case "thinking":
        this.stream(name, e.text);
        break;
      case "tool_start":
        this.current = null;
        this.live.appendChild(
          h(
            "p",
            { class: "tool live-tool", dataset: { call: e.callId } },
            `⚙ ${e.name} `,
            h("code", {}, e.summary),
            " · running…",
          ),
        );
        break;
      case "tool_end": {
        const line = [...this.live.querySelectorAll(".live-tool")].find((p) =>
          p.dataset.call === e.callId
        );
        const text = [
          `⚙ ${e.name} `,
          h("code", {}, e.summary),
          ` · ${e.status} · ${ms(e.durationMs)}`,
        ];
        if (line) replace(line, text);
        else this.live.appendChild(h("p", { class: "tool" }, text));
        break;
      }
      case "permission_request":
        this.ask(e);
        break;
      case "permission":
        this.live.appendChild(h("p", { class: "permission-line" }, "Permission: ", e.text));
        break;
      case "retry":
        this.status.textContent = `Retrying (attempt ${e.attempt}): ${e.message}`;
        break;
      case "notice":
        toast(e.message, e.level === "warning" ? "error" : "info");
        break;
      case "usage":
        break;
      case "turn_end":
        this.endTurn(e.outcome?.result?.status ?? "done");
        break;
      case "error":
        this.live.appendChild(
          h("p", { class: "error", role: "alert" }, `⚠ ${e.error?.message ?? "The turn failed"}`),
        );
        this.endTurn("failed");
        break;
    }
  }

  stream(kind, text) {
    if (!this.current || this.current.kind !== kind) {
      const body = h("div", { class: "body" });
      const el = kind === "thinking"
        ? h("details", { class: "msg thinking" }, h("summary", {}, "Thinking…"), body)
        : h(
          "div",
          { class: "msg assistant text streaming" },
          h("h2", { class: "who" }, "Assistant"),
          body,
        );
      this.live.appendChild(el);
      this.current = { kind, body, text: "" };
    }
    this.current.text += text;
    replace(this.current.body, markdown(this.current.text));
  }

  ask(e) {
    if (this.permissions.querySelector(`[data-request="${CSS.escape(String(e.id))}"]`)) return;
    const answer = async (value, box) => {
      try {
        await api(
          `/api/user/sessions/${encodeURIComponent(this.id)}/permissions/${
            encodeURIComponent(e.id)
          }`,
          { method: "POST", body: { answer: value } },
        );
        box.remove();
        this.prompt.focus();
      } catch (err) {
        toast(err.message, "error");
      }
    };
    const box = h(
      "div",
      {
        class: "ask",
        role: "group",
        "aria-labelledby": `ask-${e.id}`,
        dataset: { request: String(e.id) },
      },
      h(
        "p",
        { id: `ask-${e.id}` },
        `Allow ${e.request.tool} (${e.request.kind}): `,
        h("code", {}, e.request.summary),
        "?",
      ),
    );
    box.appendChild(
      h(
        "p",
        { class: "actions" },
        h(
          "button",
          { type: "button", class: "primary", onclick: () => answer("once", box) },
          "Allow once",
        ),
        h(
          "button",
          { type: "button", onclick: () => answer("always", box) },
          "Always in this session",
        ),
        h(
          "button",
          { type: "button", class: "danger", onclick: () => answer("deny", box) },
          "Deny",
        ),
      ),
    );
    this.permissions.appendChild(box);
    box.querySelector("button").focus();
  }

  setBusy(busy) {
    this.busy = busy;
    this.cancel.hidden = !busy;
    this.send.disabled = busy;
    this.status.textContent = busy ? "Working…" : "";
  }

  async submit() {
    const text = this.prompt.value.trim();
    if (!text || this.busy) return;
    this.setBusy(true);
    this.live.appendChild(
      h(
        "div",
        { class: "msg user text" },
        h("h2", { class: "who" }, "You"),
        h("div", { class: "body" }, markdown(text)),
      ),
    );
    try {
      await api(`/api/user/sessions/${encodeURIComponent(this.id)}/messages`, {
        method: "POST",
        body: { text },
      });
      this.prompt.value = "";
    } catch (err) {
      this.live.lastElementChild?.remove();
      this.setBusy(false);
      toast(err.message, "error");
    }
  }

  async cancelTurn() {
    try {
      await api(`/api/user/sessions/${encodeURIComponent(this.id)}/cancel`, { method: "POST" });
      this.status.textContent = "Cancelling…";
    } catch (err) {
      toast(err.message, "error");
    }
  }

  async endTurn(how) {
    this.current = null;
    this.permissions.replaceChildren();
    const atEnd = !this.messages.length || this.messages.at(-1).seq >= this.lastSeq;
    try {
      const page = await api(
        `/api/user/sessions/${encodeURIComponent(this.id)}/transcript${
          query({ after: atEnd ? (this.messages.at(-1)?.seq ?? 0) : this.lastSeq, limit: 1000 })
        }`,
        { signal: this.signal },
      );
      this.apply(page);
      if (atEnd) this.messages = [...this.messages, ...page.messages];
      this.live.replaceChildren();
      this.render();
      this.list.lastElementChild?.scrollIntoView({ block: "end" });
    } catch (err) {
      if (!this.signal.aborted) toast(err.message, "error");
    }
    this.setBusy(false);
    this.status.textContent = how === "completed" ? "" : `Turn ended: ${how}`;
  }

  async rewind(m) {
    const v = await ask({
      title: "Rewind to before this prompt?",
      body: [
        h(
          "p",
          {},
          "The transcript and the model's context end before this prompt. The later messages are not lost: they move to a new linked session, so the rewind can be undone there.",
        ),
        h(
          "p",
          { class: "warning" },
          "Reverting files restores what this session's write and edit calls changed after this point, if the files still hold what bonsai left. What commands (exec) did cannot be undone.",
        ),
      ],
      confirm: "Rewind",
      danger: true,
      fields: [{
        name: "files",
        label: "Also revert the files changed after this point",
        type: "checkbox",
      }],
    });
    if (!v) return;
    await this.doRewind(m, v.files, false);
  }

  async doRewind(m, files, force) {
    try {
      const res = await api(`/api/user/sessions/${encodeURIComponent(this.id)}`, {
        method: "PUT",
        body: { rewind_to: m.seq, files, force },
      });
      const linked = res.rewind?.linked_session?.id;
      toast(
        linked ? `Rewound; the later messages are in session ${linked.slice(0, 8)}` : "Rewound",
      );
      this.messages = [];
      replace(this.list);
      await this.load(null);
      this.prompt.value = m.text;
      this.prompt.focus();
    } catch (err) {
      if (err instanceof ApiError && err.code === "FILES_CHANGED" && !force) {
        const again = await ask({
          title: "Files changed since",
          body: [
            h("p", {}, err.message),
            h("p", { class: "warning" }, "Revert them anyway, losing those changes?"),
          ],
          confirm: "Revert anyway",
          danger: true,
        });
        if (again) await this.doRewind(m, files, true);
        return;
      }
      toast(err.message, "error");
    }
  }
}

function time(m) {
  return h("time", { datetime: m.created_at, class: "muted" }, ` ${full(m.created_at)}`);
}
