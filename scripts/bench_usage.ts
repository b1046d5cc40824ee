// Benchmark for importing Claude Code history and the usage dashboard (issue: usage and
// import). Prints one JSON object; progress goes to stderr.
//   deno run -A scripts/bench_usage.ts [--entries 1000000] [--seed 1] [--runs 15]
//     [--ccusage PATH] [--no-ccusage] [--reuse] [--floor]
// Generates the logs once into .bench/ (reused while they match), imports them into a fresh
// home, times `bonsai usage --json` and the table as whole processes, and, when ccusage is
// installed (--ccusage, $CCUSAGE, `ccusage` on PATH or node_modules/.bin), runs
// `ccusage daily --json --offline` on the same files and prints the ratios. --floor also
// measures what any import would cost at best on this machine (scripts/lib/import_floor.ts):
// the imported rows copied by SQLite alone, and the logs through JSON.parse alone.
import { parseArgs } from "node:util";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { generateClaudeLogs } from "./gen_claude_logs.ts";
import { benchDir, bonsaiRunArgs, progress, ROOT, round, stats } from "./lib/bench_util.ts";
import { parseFloor, sqlFloor } from "./lib/import_floor.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    entries: { type: "string", default: "1000000" },
    seed: { type: "string", default: "1" },
    runs: { type: "string", default: "15" },
    ccusage: { type: "string" },
    "no-ccusage": { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
  },
});
const entries = Number(values.entries);
const seed = Number(values.seed);
const runs = Number(values.runs);
if (!Number.isInteger(entries) || entries < 1 || !Number.isInteger(runs) || runs < 1) {
  console.error("--entries and --runs must be positive whole numbers");
  Deno.exit(2);
}

// --- the logs --------------------------------------------------------------------------
const logs = benchDir(`claude-${entries}-${seed}`);
const marker = join(logs, "generated.json");
let generation: Record<string, unknown> | null = null;
try {
  generation = JSON.parse(Deno.readTextFileSync(marker));
} catch {
  await Deno.remove(logs, { recursive: true }).catch(() => {});
  progress(`generating ${entries} Claude Code entries in ${logs} ...`);
  const started = performance.now();
  const result = await generateClaudeLogs({
    out: logs,
    entries,
    seed,
    days: 365,
    start: "2025-12-01",
    progress: (done) => done % 100_000 === 0 && progress(`  ${done}/${entries}`),
  });
  generation = { ...result, elapsed_ms: Math.round(performance.now() - started) };
  Deno.writeTextFileSync(marker, JSON.stringify(generation));
}
const logBytes = duBytes(logs);

// --- import ------------------------------------------------------------------------------
// --reuse keeps an earlier import of the same logs (to re-time the dashboard and ccusage).
const home = benchDir(`usage-home-${entries}-${seed}`);
const env = { BONSAI_HOME: home, TZ: "UTC", NO_COLOR: "1" };
const importArgs = [
  Deno.execPath(),
  ...bonsaiRunArgs(),
  "import",
  "claude-code",
  "--path",
  logs,
  "--json",
];
let firstImport: { ms: number; peakBytes: number; stdout: string } | null = null;
if (!values.reuse || fileBytes(join(home, "bonsai.db")) === 0) {
  await Deno.remove(home, { recursive: true }).catch(() => {});
  Deno.mkdirSync(home, { recursive: true });
  progress("importing ...");
  firstImport = await measured(importArgs, env);
  progress(`  ${round(firstImport.ms / 1000, 1)} s, peak ${mb(firstImport.peakBytes)} MB`);
}
const reimport = await measured(importArgs, env);

// --- the dashboard -----------------------------------------------------------------------
const bonsai = (args: string[], extra: Record<string, string> = {}) =>
  measured([Deno.execPath(), ...bonsaiRunArgs(), ...args], { ...env, ...extra });
progress("timing bonsai usage ...");
await bonsai(["--version"]); // compile cache warm-up
const jsonRuns: number[] = [];
const tableRuns: number[] = [];
const zonedRuns: number[] = [];
let usagePeak = 0;
let usageJson: Record<string, unknown> = {};
for (let i = 0; i < runs; i++) {
  const j = await bonsai(["usage", "--json"]);
  jsonRuns.push(j.ms);
  usagePeak = Math.max(usagePeak, j.peakBytes);
  if (i === 0) usageJson = JSON.parse(j.stdout);
  const t = await bonsai(["usage"], { COLUMNS: "120" });
  tableRuns.push(t.ms);
  usagePeak = Math.max(usagePeak, t.peakBytes);
  // A zone with daylight saving time needs the time zone database (UTC does not).
  zonedRuns.push((await bonsai(["usage", "--json"], { TZ: "America/New_York" })).ms);
}
const usageJsonStats = stats(jsonRuns);
const usageTableStats = stats(tableRuns);

// --- ccusage on the same files --------------------------------------------------------------
const ccusagePath = values["no-ccusage"] ? null : findCcusage(values.ccusage);
let ccusage: Record<string, unknown> | null = null;
if (ccusagePath) {
  progress(`running ${ccusagePath} daily --json --offline (once) ...`);
  const run = await measured([ccusagePath, "daily", "--json", "--offline"], {
    CLAUDE_CONFIG_DIR: logs,
    TZ: "UTC",
  });
  const daily = JSON.parse(run.stdout) as { totals?: { totalTokens?: number } };
  const ours = (usageJson.activity as { totals: { total_tokens: number } }).totals.total_tokens;
  ccusage = {
    path: ccusagePath,
    daily_ms: Math.round(run.ms),
    peak_mb: mb(run.peakBytes),
    total_tokens: daily.totals?.totalTokens ?? null,
    total_tokens_match: daily.totals?.totalTokens === ours,
    // One ccusage report against one bonsai dashboard, and against the one-time import.
    ratio_to_usage_json: round(run.ms / usageJsonStats.p50_ms, 1),
    ratio_to_import: firstImport ? round(run.ms / firstImport.ms, 2) : null,
  };
}

// --- the floor ----------------------------------------------------------------------------
let floor: Record<string, unknown> | null = null;
if (values.floor) {
  progress("measuring the floor: SQLite alone ...");
  const sql = await sqlFloor(join(home, "bonsai.db"), benchDir(`floor-${entries}-${seed}`));
  progress(`  ${round(sql.total_ms / 1000, 1)} s; JSON.parse alone ...`);
  const parse = await parseFloor(logs);
  progress(`  ${round(parse.ms / 1000, 1)} s`);
  floor = {
    sql,
    json_parse: parse,
    import_to_sql_floor: firstImport ? round(firstImport.ms / sql.total_ms, 2) : null,
  };
}

const targets = {
  import_ms: 60_000,
  usage_json_p50_ms: 300,
  usage_table_p50_ms: 300,
  peak_mb: 150,
};
const result = {
  bench: "usage",
  entries,
  generation,
  log_bytes: logBytes,
  import: firstImport
    ? {
      ms: Math.round(firstImport.ms),
      peak_mb: mb(firstImport.peakBytes),
      summary: JSON.parse(firstImport.stdout),
      entries_per_second: Math.round(entries / (firstImport.ms / 1000)),
      db_bytes: fileBytes(join(home, "bonsai.db")) + fileBytes(join(home, "bonsai.db-wal")),
    }
    : { reused: home },
  reimport: { ms: Math.round(reimport.ms), summary: JSON.parse(reimport.stdout) },
  usage_json: { ...usageJsonStats, peak_mb: mb(usagePeak) },
  usage_table: usageTableStats,
  usage_json_new_york: stats(zonedRuns),
  ccusage: ccusage ?? { skipped: values["no-ccusage"] ? "--no-ccusage" : "not installed" },
  floor: floor ?? { skipped: "no --floor" },
  targets,
  targets_met: {
    import: firstImport ? firstImport.ms <= targets.import_ms : null,
    usage_json: usageJsonStats.p50_ms <= targets.usage_json_p50_ms,
    usage_table: usageTableStats.p50_ms <= targets.usage_table_p50_ms,
    peak_memory: mb(Math.max(firstImport?.peakBytes ?? 0, usagePeak)) <= targets.peak_mb,
  },
  ledger_rows_check: firstImport
    ? countLedger(join(home, "bonsai.db")) === JSON.parse(firstImport.stdout).ledger_rows
    : null,
};
console.log(JSON.stringify(result));

// --- helpers -------------------------------------------------------------------------------

/**
 * Runs a command to the end: wall time, and peak resident memory of its whole process tree
 * (ccusage 20 runs a native child of its node launcher), polled from /proc (Linux).
 */
async function measured(
  cmd: string[],
  extraEnv: Record<string, string>,
): Promise<{ ms: number; peakBytes: number; stdout: string }> {
  const started = performance.now();
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    env: extraEnv,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let peak = 0;
  let running = true;
  const poll = (async () => {
    while (running) {
      const tree = processTree(child.pid);
      const resident = tree.reduce((sum, pid) => sum + statusKb(pid, "VmRSS"), 0);
      const highest = Math.max(0, ...tree.map((pid) => statusKb(pid, "VmHWM")));
      peak = Math.max(peak, resident * 1024, highest * 1024);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const out = await child.output();
  running = false;
  await poll;
  const ms = performance.now() - started;
  if (!out.success) {
    throw new Error(`${cmd.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return { ms, peakBytes: peak, stdout: new TextDecoder().decode(out.stdout) };
}

/** A process and its descendants (Linux /proc), or just the process elsewhere. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of Deno.readDirSync(`/proc/${out[i]}/task`)) {
        const children = Deno.readTextFileSync(`/proc/${out[i]}/task/${task.name}/children`);
        out.push(...children.split(" ").filter(Boolean).map(Number));
      }
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}

/** A kB field of /proc/PID/status (0 when the process is gone or this is not Linux). */
function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function mb(bytes: number): number {
  return round(bytes / (1 << 20), 1);
}

function findCcusage(given: string | undefined): string | null {
  const candidates = [
    given,
    Deno.env.get("CCUSAGE"),
    join(ROOT, "node_modules/.bin/ccusage"),
    ...(Deno.env.get("PATH") ?? "").split(":").map((d) => join(d, "ccusage")),
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      if (Deno.statSync(c).isFile) return c;
    } catch {
      // not there
    }
  }
  return null;
}

function duBytes(dir: string): number {
  let total = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) total += duBytes(p);
    else if (e.isFile) total += Deno.statSync(p).size;
  }
  return total;
}

function fileBytes(p: string): number {
  try {
    return Deno.statSync(p).size;
  } catch {
    return 0;
  }
}

function countLedger(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM ledger").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
