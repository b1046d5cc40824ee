// The sessions page: every project's sessions (pinned first), filters, full-text search with
// highlighted snippets, and rename, pin, delete and export per row; paged.
import { api, query } from "./api.js";
const { SESSIONS_PAGE, sessionsState, sessionsUrl } = globalThis.bonsaiBoot;
import { ask, h, highlighted, replace, toast } from "./dom.js";
import { base, int, usd, when } from "./format.js";
import { navigate } from "./nav.js";

const PAGE = SESSIONS_PAGE;
const STATUSES = ["active", "completed", "interrupted", "budget_exhausted", "failed"];
const SOURCES = ["bonsai", "claude-code", "codex"];

/** Shows the page; the filters and the search live in the URL (back and forward work). */
export function mount(main, _params, search) {
  const state = sessionsState(search);
  const abort = new AbortController();
  const results = h("div", { id: "results", "aria-live": "polite" });
  const go = (patch) => {
    const next = { ...state, page: 0, ...patch };
    navigate(`/${query(next.page ? next : { ...next, page: "" })}`);
  };
  replace(
    main,
    h("h1", {}, "Sessions"),
    searchForm(state, go),
    filterForm(state, go),
    results,
  );
  if (state.q) showSearch(results, state, abort.signal);
  else showList(results, state, go, abort.signal);
  return () => abort.abort();
}

function searchForm(state, go) {
  const input = h("input", {
    id: "search-q",
    type: "search",
    name: "q",
    value: state.q,
    placeholder: "Search every message",
    maxlength: 1000,
  });
  return h(
    "form",
    {
      role: "search",
      class: "bar",
      onsubmit: (e) => {
        e.preventDefault();
        go({ q: input.value.trim() });
      },
    },
    h("label", { for: "search-q", class: "sr-only" }, "Search messages"),
    input,
    h("button", { type: "submit" }, "Search"),
    state.q ? h("a", { href: "/", class: "button" }, "Clear") : null,
  );
}

function filterForm(state, go) {
  const select = (name, label, values) =>
    h(
      "label",
      {},
      label,
      " ",
      h(
        "select",
        { name, onchange: (e) => go({ [name]: e.target.value, q: "" }) },
        h("option", { value: "" }, "any"),
        values.map((v) => h("option", { value: v, selected: v === state[name] }, v)),
      ),
    );
  const project = h("input", {
    type: "text",
    name: "project",
    value: state.project,
    placeholder: "/path/to/project",
    list: "projects",
  });
  return h(
    "form",
    {
      class: "bar filters",
      "aria-label": "Filters",
      onsubmit: (e) => {
        e.preventDefault();
        go({ project: project.value.trim(), q: "" });
      },
    },
    h("label", {}, "Project ", project),
    h("datalist", { id: "projects" }),
    select("status", "Status", STATUSES),
    select("source", "Source", SOURCES),
    h("button", { type: "submit" }, "Filter"),
  );
}

async function showList(results, state, go, signal) {
  replace(results, h("p", { class: "muted" }, "Loading…"));
  let rows;
  try {
    rows = (await api(
      sessionsUrl(state),
      { signal },
    )).sessions;
  } catch (err) {
    if (signal.aborted) return;
    replace(results, h("p", { class: "error", role: "alert" }, err.message));
    return;
  }
  const more = rows.length > PAGE;
  rows = rows.slice(0, PAGE);
  const list = document.getElementById("projects");
  for (const p of new Set(rows.map((r) => r.project_path))) {
    list?.appendChild(h("option", { value: p }));
  }
  const reload = () => showList(results, state, go, signal);
  const from = state.page * PAGE;
  replace(
    results,
    rows.length === 0 ? h("p", { class: "muted" }, "No sessions match.") : h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "sessions" },
        h("caption", { class: "sr-only" }, "Sessions, pinned first, then by last change"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Title", "Project", "Model", "Updated", "Messages", "Tokens", "Cost", "Actions"]
              .map((c, n) => h("th", { scope: "col", class: n >= 4 && n < 7 ? "num" : "" }, c)),
          ),
        ),
        h("tbody", {}, rows.map((s) => row(s, reload))),
      ),
    ),
    h(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      h("button", {
        type: "button",
        disabled: state.page === 0,
        onclick: () => go({ page: state.page - 1 }),
      }, "← Newer"),
      h("span", {}, rows.length ? `${int(from + 1)}–${int(from + rows.length)}` : ""),
      h("button", {
        type: "button",
        disabled: !more,
        onclick: () => go({ page: state.page + 1 }),
      }, "Older →"),
    ),
  );
}

function row(s, reload) {
  const title = s.title || "(untitled)";
  return h(
    "tr",
    { dataset: { id: s.id }, class: s.pinned ? "pinned" : "" },
    h(
      "td",
      { class: "title" },
      s.pinned ? h("span", { class: "tag pin" }, "pinned") : null,
      h("a", { href: `/session/${encodeURIComponent(s.id)}` }, title),
      h("span", { class: `status ${s.status}` }, s.status),
      s.source !== "bonsai" ? h("span", { class: "tag" }, s.source) : null,
    ),
    h("td", { title: s.project_path }, base(s.project_path)),
    h("td", {}, s.model ?? "—"),
    h("td", {}, h("time", { datetime: s.updated_at, title: s.updated_at }, when(s.updated_at))),
    h("td", { class: "num" }, int(s.message_count)),
    h("td", { class: "num" }, int(s.total_tokens)),
    h("td", { class: "num" }, usd(s.cost_usd, s.cost_exact)),
    h("td", { class: "actions" }, actions(s, title, reload)),
  );
}

/** Rename, pin, export and delete buttons of one session (also used on the session page). */
export function actions(s, title, reload, onDeleted = reload) {
  const named = (verb) => `${verb} “${title}”`;
  return [
    h("button", {
      type: "button",
      class: "small",
      "aria-label": named("Rename"),
      onclick: async () => {
        const v = await ask({
          title: "Rename session",
          confirm: "Rename",
          fields: [{
            name: "title",
            label: "Title",
            value: s.title,
            required: true,
            maxlength: 200,
          }],
        });
        if (!v || !v.title.trim()) return;
        await change(s.id, { title: v.title.trim() }, "Renamed", reload);
      },
    }, "Rename"),
    h("button", {
      type: "button",
      class: "small",
      "aria-pressed": String(s.pinned),
      "aria-label": named(s.pinned ? "Unpin" : "Pin"),
      onclick: () => change(s.id, { pinned: !s.pinned }, s.pinned ? "Unpinned" : "Pinned", reload),
    }, s.pinned ? "Unpin" : "Pin"),
    h("a", {
      class: "button small",
      href: `/api/user/sessions/${encodeURIComponent(s.id)}/markdown`,
      download: "",
      "aria-label": named("Export Markdown of"),
    }, "Export"),
    h("button", {
      type: "button",
      class: "small danger",
      "aria-label": named("Delete"),
      onclick: async () => {
        const ok = await ask({
          title: "Delete session?",
          body: [
            h("p", {}, `“${title}” and everything recorded with it (messages, tool calls, usage)`),
            h("p", {}, "This cannot be undone."),
          ],
          confirm: "Delete",
          danger: true,
        });
        if (!ok) return;
        try {
          await api(`/api/user/sessions/${encodeURIComponent(s.id)}`, { method: "DELETE" });
          toast("Deleted");
          onDeleted();
        } catch (err) {
          toast(err.message, "error");
        }
      },
    }, "Delete"),
  ];
}

async function change(id, body, done, reload) {
  try {
    await api(`/api/user/sessions/${encodeURIComponent(id)}`, { method: "PUT", body });
    toast(done);
    reload();
  } catch (err) {
    toast(err.message, "error");
  }
}

async function showSearch(results, state, signal) {
  replace(results, h("p", { class: "muted" }, "Searching…"));
  let hits;
  try {
    hits = await api(
      `/api/user/search${query({ q: state.q, project: state.project, limit: 50 })}`,
      { signal },
    );
  } catch (err) {
    if (signal.aborted) return;
    replace(results, h("p", { class: "error", role: "alert" }, err.message));
    return;
  }
  replace(
    results,
    h("h2", {}, `${hits.length}${hits.length === 50 ? "+" : ""} matches for “${state.q}”`),
    h(
      "ol",
      { class: "hits" },
      hits.map((hit) =>
        h(
          "li",
          {},
          h(
            "a",
            {
              href: `/session/${encodeURIComponent(hit.session_id)}${
                query({ seq: hit.seq })
              }#m${hit.seq}`,
            },
            hit.session_title || "(untitled)",
          ),
          h(
            "span",
            { class: "muted" },
            ` · ${base(hit.project_path)} · ${hit.role} · `,
            h("time", { datetime: hit.created_at }, when(hit.created_at)),
          ),
          h("p", { class: "snippet" }, highlighted(hit.snippet, hit.highlights)),
        )
      ),
    ),
  );
}
