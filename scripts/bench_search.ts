// Benchmark for `bonsai search` at scale (issue: foundation). Prints one JSON object.
//   deno run -A scripts/bench_search.ts [--messages 1000000] [--seed 1] [--runs 300]
// Generates the history once into .bench/ (reused while its size matches).
import { parseArgs } from "node:util";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { homeAt } from "../core/home.ts";
import { createRedactor } from "../core/secrets.ts";
import { openDatabase } from "../core/storage/db.ts";
import { searchMessages } from "../core/storage/search.ts";
import { generateHistory } from "./gen_history.ts";
import { Prng } from "./lib/prng.ts";
import { benchDir, progress, round, stats, timeBonsai } from "./lib/bench_util.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    messages: { type: "string", default: "1000000" },
    seed: { type: "string", default: "1" },
    runs: { type: "string", default: "300" },
    "process-runs": { type: "string", default: "20" },
  },
});
const totalMessages = Number(values.messages);
const perSession = 200;
const sessions = Math.ceil(totalMessages / perSession);
const home = benchDir(`search-${totalMessages}-${values.seed}`);
const dbPath = join(home, "bonsai.db");

let generationMs: number | null = null;
if (!hasMessages(dbPath, totalMessages)) {
  await Deno.remove(home, { recursive: true }).catch(() => {});
  progress(`generating ${totalMessages} messages in ${home} ...`);
  const started = performance.now();
  await generateHistory({
    home,
    sessions,
    messages: perSession,
    seed: Number(values.seed),
    progress: (done) => done % 500 === 0 && progress(`  ${done}/${sessions} sessions`),
  });
  generationMs = Math.round(performance.now() - started);
}

const { pairs, common, mid, cjk } = pickQueries(dbPath, totalMessages, Number(values.seed));
const db = await openDatabase({
  home: homeAt(home),
  clock: { now: () => Date.now() },
  redactor: createRedactor(),
});
const measure = (queries: string[], runs: number) => {
  for (const q of queries) searchMessages(db, q, { limit: 20 }); // warm the page cache
  const samples: number[] = [];
  let hits = 0;
  for (let i = 0; i < runs; i++) {
    const q = queries[i % queries.length]!;
    const t = performance.now();
    hits += searchMessages(db, q, { limit: 20 }).length;
    samples.push(performance.now() - t);
  }
  return { ...stats(samples), mean_hits: round(hits / runs, 1) };
};
const runs = Number(values.runs);
const twoWord = measure(pairs.map(([a, b]) => `${a.term} ${b.term}`), runs);
const commonWord = measure([common.term], Math.min(runs, 50));
const commonPair = measure([`${common.term} ${mid.term}`], Math.min(runs, 50));
const cjkQueries = measure(cjk, Math.min(runs, 100));
db.close();

const env = { BONSAI_HOME: home };
const processRuns = Number(values["process-runs"]);
const searchSamples: number[] = [];
const versionSamples: number[] = [];
await timeBonsai(["--version"], env); // compile cache warm-up
for (let i = 0; i < processRuns; i++) {
  const [a, b] = pairs[i % pairs.length]!;
  searchSamples.push(await timeBonsai(["search", a.term, b.term, "--json"], env));
  versionSamples.push(await timeBonsai(["--version"], env));
}
const processSearch = stats(searchSamples);
const version = stats(versionSamples);

const size = (p: string) => {
  try {
    return Deno.statSync(p).size;
  } catch {
    return 0;
  }
};
const result = {
  bench: "search",
  messages: totalMessages,
  sessions,
  db_bytes: size(dbPath) + size(`${dbPath}-wal`),
  generation_ms: generationMs,
  query_words: {
    doc_fraction_range: [0.001, 0.05],
    examples: pairs.slice(0, 5).map(([a, b]) =>
      `${a.term} (${round(a.fraction * 100, 2)}%) ${b.term} (${round(b.fraction * 100, 2)}%)`
    ),
  },
  in_process_two_words: twoWord,
  common_word: { word: common.term, doc_fraction: round(common.fraction, 4), ...commonWord },
  common_word_pair: { query: `${common.term} ${mid.term}`, ...commonPair },
  cjk: { queries: cjk, ...cjkQueries },
  process_search_json: processSearch,
  process_version: version,
  targets: {
    in_process_p50_ms: 20,
    in_process_p95_ms: 60,
    process_search_p50_ms: 200,
    version_p50_ms: 100,
  },
  targets_met: twoWord.p50_ms <= 20 && twoWord.p95_ms <= 60 && processSearch.p50_ms <= 200 &&
    version.p50_ms <= 100,
};
console.log(JSON.stringify(result));

function hasMessages(path: string, expected: number): boolean {
  try {
    Deno.statSync(path);
  } catch {
    return false;
  }
  const conn = new DatabaseSync(path, { readOnly: true });
  try {
    const row = conn.prepare("SELECT count(*) AS n FROM messages").get() as { n: number };
    return row.n === expected;
  } catch {
    return false;
  } finally {
    conn.close();
  }
}

interface Term {
  term: string;
  fraction: number;
}

function pickQueries(path: string, total: number, seed: number) {
  const conn = new DatabaseSync(path);
  try {
    conn.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'messages_fts', 'row')",
    );
    const rows = conn.prepare(
      "SELECT term, doc FROM temp.vocab WHERE length(term) >= 3 ORDER BY doc DESC",
    )
      .all() as { term: string; doc: number }[];
    const terms = rows.filter((r) => /^[a-z_]+$/.test(r.term)).map((r) => ({
      term: r.term,
      fraction: r.doc / total,
    }));
    const band = terms.filter((t) => t.fraction >= 0.001 && t.fraction <= 0.05);
    if (band.length < 2) {
      throw new Error("not enough words in the 0.1-5 % band; generate more data");
    }
    const rng = new Prng(seed);
    const pairs: [Term, Term][] = [];
    while (pairs.length < 60) {
      const a = rng.pick(band);
      const b = rng.pick(band);
      if (a.term !== b.term) pairs.push([a, b]);
    }
    const common = terms[0]!;
    const mid = band[Math.floor(band.length / 2)]!;
    return { pairs, common, mid, cjk: ["数据库", "会话", "テスト", "全文搜索功能", "설정"] };
  } finally {
    conn.close();
  }
}
