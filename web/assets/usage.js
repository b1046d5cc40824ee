// The usage page: the dashboard of `bonsai usage --json`, drawn, with a table of the
// numbers under each chart; since, until and project as controls; days in the browser's zone.
import { api, query } from "./api.js";
const { usageState, usageUrl } = globalThis.bonsaiBoot;
import { h, replace } from "./dom.js";
import { bars, calendar, legend, shares, weekHours } from "./charts.js";
import { base, day, int, ms, pct, short, timeZone, usd } from "./format.js";
import { navigate } from "./nav.js";

const TABS = [
  ["activity", "Activity"],
  ["models", "Models"],
  ["cost", "Cost"],
  ["cache", "Cache"],
  ["tools", "Tools"],
  ["sessions", "Sessions"],
];

const KINDS = [
  { key: "input_tokens", label: "input", class: "k-input" },
  { key: "output_tokens", label: "output", class: "k-output" },
  { key: "cache_write_tokens", label: "cache write", class: "k-write" },
  { key: "cache_read_tokens", label: "cache read", class: "k-read" },
];

/** Shows the page for the period and project in the URL. */
export function mount(main, _params, search) {
  const state = {
    ...usageState(search),
    tab: TABS.some(([t]) => t === search.get("tab")) ? search.get("tab") : "activity",
  };
  const abort = new AbortController();
  const body = h("div", { id: "usage-body" }, h("p", { class: "muted" }, "Loading…"));
  replace(main, h("h1", {}, "Usage"), controls(state), body);
  load(body, state, abort.signal);
  return () => abort.abort();
}

function controls(state) {
  const field = (name, label, type, extra = {}) =>
    h(
      "label",
      {},
      label,
      " ",
      h("input", { name, type, value: state[name], ...extra }),
    );
  return h(
    "form",
    {
      class: "bar filters",
      "aria-label": "Period and project",
      onsubmit: (e) => {
        e.preventDefault();
        const f = e.target.elements;
        navigate(
          `/usage${
            query({
              since: f.since.value,
              until: f.until.value,
              project: f.project.value.trim(),
              tab: state.tab,
            })
          }`,
        );
      },
    },
    field("since", "Since", "date"),
    field("until", "Until", "date"),
    field("project", "Project", "text", { placeholder: "/path/to/project" }),
    h("button", { type: "submit" }, "Show"),
    h("span", { class: "muted" }, `Days in ${timeZone}`),
  );
}

async function load(body, state, signal) {
  // Tabs load one at a time: the activity tab (totals, calendar) first, the others when
  // they are opened, so the first screen waits only for what it shows.
  const data = {};
  const fetchTab = (id) => api(usageUrl(state, id), { signal }).then((d) => (data[id] = d));
  try {
    await fetchTab("activity");
  } catch (err) {
    if (signal.aborted) return;
    replace(body, h("p", { class: "error", role: "alert" }, err.message));
    return;
  }
  const panels = new Map();
  const tabs = TABS.map(([id, label]) =>
    h("button", {
      type: "button",
      role: "tab",
      id: `tab-${id}`,
      "aria-controls": `panel-${id}`,
      "aria-selected": String(id === state.tab),
      tabindex: id === state.tab ? "0" : "-1",
      onclick: () => select(id),
    }, label)
  );
  const list = h("div", { role: "tablist", "aria-label": "Usage views", class: "tabs" }, tabs);
  list.addEventListener("keydown", (e) => {
    const i = Math.max(0, tabs.indexOf(e.target));
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (step === undefined && e.key !== "Home" && e.key !== "End") return;
    e.preventDefault();
    const n = e.key === "Home"
      ? 0
      : e.key === "End"
      ? TABS.length - 1
      : (i + step + TABS.length) % TABS.length;
    select(TABS[n][0]);
    tabs[n].focus();
  });
  const holder = h("div");
  function select(id) {
    state.tab = id;
    tabs.forEach((t, n) => {
      const on = TABS[n][0] === id;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
    });
    history.replaceState(null, "", `/usage${query(state)}`);
    for (const p of panels.values()) p.hidden = true;
    if (!panels.has(id)) {
      const panel = h("section", {
        role: "tabpanel",
        id: `panel-${id}`,
        "aria-labelledby": `tab-${id}`,
        tabindex: "0",
      });
      panels.set(id, panel);
      holder.appendChild(panel);
      if (data[id]) panel.append(...RENDER[id](data[id], data, state));
      else {
        panel.append(h("p", { class: "muted" }, "Loading…"));
        fetchTab(id).then(
          () => replace(panel, ...RENDER[id](data[id], data, state)),
          (err) => {
            if (!signal.aborted) {
              replace(panel, h("p", { class: "error", role: "alert" }, err.message));
            }
          },
        );
      }
    }
    panels.get(id).hidden = false;
  }
  replace(body, totals(data.activity.totals), list, holder);
  select(state.tab);
}

function totals(t) {
  const item = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, value));
  return h(
    "dl",
    { class: "totals", id: "usage-totals" },
    item("Turns", int(t.turns)),
    item("Tokens", int(t.total_tokens)),
    item("Input", int(t.input_tokens)),
    item("Output", int(t.output_tokens)),
    item("Cache read", int(t.cache_read_tokens)),
    item("Cost", usd(t.cost_usd, t.cost_exact)),
  );
}

/** A table of numbers (under each chart): columns [label, key, format, numeric]. */
function table(caption, columns, rows, id) {
  // Built when first opened: a year of days is a long table nobody needs until then.
  const details = h("details", { class: "numbers" }, h("summary", {}, `Numbers: ${caption}`));
  details.addEventListener("toggle", () => {
    if (details.open && details.children.length === 1) {
      details.appendChild(numbers(caption, columns, rows, id));
    }
  });
  return details;
}

function numbers(caption, columns, rows, id) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id },
      h("caption", { class: "sr-only" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map(([label, , , num]) =>
            h("th", { scope: "col", class: num ? "num" : "" }, label)
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            {},
            columns.map(([, key, format, num]) => {
              const v = typeof key === "function" ? key(r) : r[key];
              return h("td", {
                class: num ? "num" : "",
                dataset: { key: typeof key === "string" ? key : "" },
              }, format ? format(v, r) : v);
            }),
          )
        ),
      ),
    ),
  );
}

/** A stand-in, filled after the first screen is drawn (charts further down the page). */
function later(build) {
  const box = h("div");
  requestAnimationFrame(() => setTimeout(() => box.append(...build())));
  return box;
}

const money = (v, r) => usd(v, r?.cost_exact ?? true);

const RENDER = {
  activity(a, _all, state) {
    const cal = a.heatmap.calendar;
    const days = a.days;
    const hours = a.heatmap.weekday_hour;
    return [
      h("h2", {}, "Calendar"),
      h(
        "div",
        { class: "scroll-x" },
        calendar(
          cal.weeks,
          `Tokens per day from ${state.since || cal.start} to ${cal.end}`,
          state.since,
        ),
      ),
      h("h2", {}, "Weekday × hour"),
      h(
        "div",
        { class: "scroll-x" },
        weekHours(hours.tokens, hours.weekdays, "Tokens by weekday and hour"),
      ),
      table(
        "tokens by weekday and hour",
        [
          ["Weekday", (r) => r.name],
          ...Array.from({ length: 24 }, (_, hr) => [String(hr), (r) => r.row[hr], int, true]),
        ],
        hours.tokens.map((row, d) => ({ name: hours.weekdays[d], row })),
        "table-hours",
      ),
      later(() => [
        h("h2", {}, "Tokens per day"),
        legend(KINDS),
        bars(days, { series: KINDS, label: "Tokens per day, stacked by kind" }),
        h("h2", {}, "Cost per day"),
        bars(days, {
          series: [{ key: "cost_usd", label: "cost", class: "k-cost" }],
          label: "Cost per day (hatched where a floor: some turns unpriced)",
          format: (v) => usd(v),
          floor: (d) => !d.cost_exact,
        }),
        table(
          "per day",
          [
            ["Day", "date", day],
            ["Turns", "turns", int, true],
            ["Input", "input_tokens", int, true],
            ["Output", "output_tokens", int, true],
            ["Cache write", "cache_write_tokens", int, true],
            ["Cache read", "cache_read_tokens", int, true],
            ["Total", "total_tokens", int, true],
            ["Cost", "cost_usd", money, true],
          ],
          days,
          "table-days",
        ),
      ]),
    ];
  },
  models(m) {
    const label = (r) => `${r.model} (${r.provider})`;
    return [
      h("h2", {}, "Model shares of tokens"),
      m.models.length
        ? shares(
          m.models.map((r) => ({ label: label(r), share: r.share })),
          "Share of tokens by model",
        )
        : h("p", { class: "muted" }, "No usage in this period."),
      table(
        "models",
        [
          ["Model", label],
          ["Turns", "turns", int, true],
          ["Tokens", "total_tokens", int, true],
          ["Cost", "cost_usd", money, true],
          ["Share", "share", pct, true],
        ],
        m.models,
        "table-models",
      ),
    ];
  },
  cost(c) {
    const row = [
      ["Period", "period"],
      ["Turns", "turns", int, true],
      ["Cost", "cost_usd", money, true],
    ];
    return [
      h(
        "p",
        { class: "big" },
        `Total ${usd(c.total.cost_usd, c.total.cost_exact)}`,
        c.total.cost_exact ? "" : ` (a floor: ${c.total.unpriced_attempts} responses unpriced)`,
      ),
      h("h2", {}, "Per month"),
      bars(c.months, {
        series: [{ key: "cost_usd", label: "cost", class: "k-cost" }],
        key: "period",
        label: "Cost per month",
        format: (v) => usd(v),
        floor: (d) => !d.cost_exact,
      }),
      table("per month", row, c.months, "table-months"),
      h("h2", {}, "Per week"),
      bars(c.weeks, {
        series: [{ key: "cost_usd", label: "cost", class: "k-cost" }],
        key: "period",
        label: "Cost per week",
        format: (v) => usd(v),
        floor: (d) => !d.cost_exact,
      }),
      table("per week", row, c.weeks, "table-weeks"),
    ];
  },
  cache(c) {
    const item = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, value));
    return [
      h("h2", {}, "Cache"),
      h(
        "div",
        { class: "gauge", role: "img", "aria-label": `Cache hit rate ${pct(c.hit_rate)}` },
        h("div", { class: "gauge-fill", style: { width: `${Math.min(100, c.hit_rate * 100)}%` } }),
      ),
      h(
        "dl",
        { class: "totals", id: "table-cache" },
        item("Hit rate", pct(c.hit_rate)),
        item("Cache read tokens", int(c.cache_read_tokens)),
        item("Prompt tokens", int(c.prompt_tokens)),
        item("Cost", usd(c.cost_usd, c.cost_exact)),
        item("Without cache", usd(c.baseline_cost_usd, c.cost_exact)),
        item("Saved", usd(c.saved_usd, c.cost_exact)),
        item("Prefix rewrites", int(c.prefix_rewrites)),
      ),
    ];
  },
  tools(t) {
    const series = [{ key: "p95_ms", label: "p95", class: "k-output" }];
    return [
      h("h2", {}, "Tool calls: p95 duration"),
      bars(t.tools, { series, key: "tool", label: "p95 duration by tool", format: (v) => ms(v) }),
      h("h2", {}, "Failures"),
      bars(t.tools, {
        series: [{ key: "failures", label: "failures", class: "k-bad" }],
        key: "tool",
        label: "Failures by tool",
        format: short,
      }),
      table(
        "tools",
        [
          ["Tool", "tool"],
          ["Calls", "calls", int, true],
          ["Failures", "failures", int, true],
          ["Total time", "total_ms", ms, true],
          ["p95", "p95_ms", ms, true],
        ],
        t.tools,
        "table-tools",
      ),
    ];
  },
  sessions(s) {
    return [
      h("h2", {}, "Sessions by cost"),
      table(
        "sessions",
        [
          [
            "Session",
            (r) => r,
            (r) =>
              h(
                "a",
                { href: `/session/${encodeURIComponent(r.session_id)}` },
                r.title || "(untitled)",
              ),
          ],
          ["Project", "project_path", base],
          ["Turns", "turns", int, true],
          ["Tokens", "total_tokens", int, true],
          ["Cost", "cost_usd", money, true],
        ],
        s.sessions,
        "table-sessions",
      ),
    ];
  },
};
