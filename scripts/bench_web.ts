// `deno task bench web`: first render of the web view's pages in a real Chromium against a
// real `bonsai serve`. Prints one JSON object; progress goes to stderr.
//   deno run -A scripts/bench_web.ts [--sessions 10000] [--messages 10000] [--ledger 1000000]
//                                    [--runs 15]
// - sessions: the sessions page (first page of rows) over `sessions` sessions;
// - transcript: one session of `messages` messages, until its first screen is drawn;
// - usage: the usage page (calendar drawn) over `ledger` usage rows.
// Each sample is a fresh navigation; its time is the browser's, from the navigation's start
// until the page's content is in the DOM (`wall_p50_ms` adds the test driver's round trips).
// The generated home is kept in .bench/ and reused while its parameters match.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { systemClock } from "../core/clock.ts";
import { homeAt } from "../core/home.ts";
import { createRedactor } from "../core/secrets.ts";
import { openDatabase } from "../core/storage/db.ts";
import { SessionStore } from "../core/storage/sessions.ts";
import { launchBrowser } from "../tests/support/browser.ts";
import { compressedSize } from "../web/pages.ts";
import { generateHistory } from "./gen_history.ts";
import { generateLedger } from "./gen_ledger.ts";
import { benchDir, progress, stats } from "./lib/bench_util.ts";
import { startBenchServer } from "./lib/serve_bench.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sessions: { type: "string", default: "10000" },
    messages: { type: "string", default: "10000" },
    ledger: { type: "string", default: "1000000" },
    runs: { type: "string", default: "15" },
  },
});
const sessions = Number(values.sessions);
const messages = Number(values.messages);
const ledgerRows = Number(values.ledger);
const runs = Number(values.runs);

const home = benchDir(`web-${sessions}-${messages}-${ledgerRows}`);
const marker = join(home, "generated.json");
let big: string;
try {
  big = JSON.parse(Deno.readTextFileSync(marker)).big;
} catch {
  await Deno.remove(home, { recursive: true }).catch(() => {});
  await Deno.mkdir(home, { recursive: true });
  progress(`generating ${sessions} sessions ...`);
  await generateHistory({ home, sessions: sessions - 1, messages: 4, seed: 21 });
  progress(`generating one session of ${messages} messages ...`);
  await generateHistory({ home, sessions: 1, messages, seed: 22 });
  progress(`generating ${ledgerRows} usage rows ...`);
  await generateLedger({
    home,
    rows: ledgerRows,
    seed: 23,
    progress: (done) => done % 100_000 === 0 && progress(`  ${done}/${ledgerRows}`),
  });
  big = await biggest(home);
  Deno.writeTextFileSync(marker, JSON.stringify({ big }));
}

const { url, token, child: server } = await startBenchServer(home, { env: { TZ: "UTC" } });
try {
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const login = await context.request.post(`${url}/api/login`, { data: { token } });
  if (!login.ok()) throw new Error(`login: HTTP ${login.status()}`);
  const page = await context.newPage();
  // First render, in the browser's own clock: from the navigation's start until the page's
  // content is in the DOM (a MutationObserver notes the moment). The driver's round trips
  // (goto, polling for the selector) are not the page's, so they are reported apart (wall).
  await page.addInitScript(`
    globalThis.__bonsaiRendered = {};
    const selectors = ${
    JSON.stringify(["table.sessions tbody tr", "ol.transcript li.msg", "svg.calendar rect.cell"])
  };
    const observer = new MutationObserver(() => {
      for (const s of selectors) {
        if (!(s in globalThis.__bonsaiRendered) && document.querySelector(s)) {
          globalThis.__bonsaiRendered[s] = performance.now();
        }
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  `);
  const measure = async (path: string, selector: string) => {
    const samples: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      await page.goto("about:blank");
      const started = performance.now();
      await page.goto(`${url}${path}`);
      await page.waitForSelector(selector);
      const wall = performance.now() - started;
      const rendered = await page.evaluate(
        (s) =>
          (globalThis as unknown as { __bonsaiRendered: Record<string, number> })
            .__bonsaiRendered[s],
        selector,
      );
      // The first two warm the server's and the browser's caches.
      if (typeof rendered !== "number") throw new Error(`${path}: '${selector}' never appeared`);
      if (i >= 2) {
        samples.push(rendered);
        walls.push(wall);
      }
    }
    return { ...stats(samples), wall_p50_ms: stats(walls).p50_ms };
  };
  progress("sessions page ...");
  const sessionsPage = await measure("/", "table.sessions tbody tr");
  progress("transcript ...");
  const transcript = await measure(`/session/${big}`, "ol.transcript li.msg");
  progress("usage page ...");
  const usage = await measure("/usage", "svg.calendar rect.cell");
  console.log(JSON.stringify({
    bench: "web",
    assets: await compressedSize(),
    sessions_page: { sessions, target_p50_ms: 300, ...sessionsPage },
    transcript_first_screen: { messages, target_p50_ms: 500, ...transcript },
    usage_page: { ledger_rows: ledgerRows, target_p50_ms: 300, ...usage },
  }));
} finally {
  server.kill("SIGTERM");
  await server.status;
}

/** The id of the session with the most messages. */
async function biggest(dir: string): Promise<string> {
  const db = await openDatabase({
    home: homeAt(dir),
    clock: systemClock,
    redactor: createRedactor(),
  });
  try {
    const all = new SessionStore(db).list({ limit: 1_000_000 });
    return all.reduce((a, b) => (b.messageCount > a.messageCount ? b : a)).id;
  } finally {
    db.close();
  }
}
