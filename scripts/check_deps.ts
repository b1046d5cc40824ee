// Fails when an import points up a floor of the house (DESIGN.md) or closes a cycle.
// Reads the module graph from `deno info --json` over every source file.
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const toFileUrl = (path: string) => pathToFileURL(path);

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const SOURCE_DIRS = ["core", "commands", "tui", "web", "migrations"];

/** Floors from the bottom up; a module may import only lower floors or its own unit. */
const FLOORS: [prefix: string, level: number][] = [
  ["main.ts", 100],
  ["commands/", 90],
  ["tui/", 80],
  ["web/", 80],
  ["core/api/", 60],
  ["core/service/", 55],
  // Session admin (core/service) exports through the renderer, so export sits below it.
  ["core/export/", 52],
  ["core/import/", 58],
  ["core/agent/", 50],
  ["core/peers/", 45],
  ["core/session/", 40],
  ["core/usage/", 30],
  ["core/providers/", 20],
  ["core/storage/", 20],
  ["core/", 10],
  ["migrations/", 0],
];

function floorOf(path: string): { level: number; unit: string } {
  for (const [prefix, level] of FLOORS) {
    if (path === prefix || path.startsWith(prefix)) {
      // core/ root files form one unit; every other floor is one unit.
      const unit = prefix === "core/" && path.slice(5).includes("/") ? `?${path}` : prefix;
      if (unit.startsWith("?")) {
        throw new Error(`No floor assigned to '${path}': add its folder to FLOORS`);
      }
      return { level, unit };
    }
  }
  throw new Error(`No floor assigned to '${path}'`);
}

function sourceFiles(): string[] {
  const out = ["main.ts"];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(rel);
      else if (/\.(ts|sql)$/.test(entry.name)) out.push(rel);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return out;
}

interface Info {
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
  }[];
}

/** The module graph: every import, and the imports that load code (not `import type`). */
interface Graph {
  readonly all: Map<string, Set<string>>;
  readonly code: Map<string, Set<string>>;
}

async function graph(files: string[]): Promise<Graph> {
  const tmp = await Deno.makeTempDir();
  try {
    const entry = join(tmp, "all.ts");
    await Deno.writeTextFile(
      entry,
      files.filter((f) => f.endsWith(".ts")).map((f) =>
        `import "${toFileUrl(join(ROOT, f)).href}";`
      ).join("\n"),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", `--config=${join(ROOT, "deno.json")}`, entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
    const edges = new Map<string, Set<string>>();
    const code = new Map<string, Set<string>>();
    const local = (spec: string) =>
      spec.startsWith(toFileUrl(ROOT).href + "/") ? relative(ROOT, new URL(spec).pathname) : null;
    for (const m of info.modules) {
      const from = local(m.specifier);
      if (!from || from === "deno.json" || from.startsWith("..")) continue;
      const to = new Set<string>();
      const loads = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const spec of [d.code?.specifier, d.type?.specifier]) {
          const target = spec ? local(spec) : null;
          if (target && target !== "deno.json") to.add(target);
        }
        const target = d.code?.specifier ? local(d.code.specifier) : null;
        if (target && target !== "deno.json") loads.add(target);
      }
      edges.set(from, to);
      code.set(from, loads);
    }
    return { all: edges, code };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

function cycles(edges: Map<string, Set<string>>): string[][] {
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/**
 * Front ends (DESIGN.md "The session host"): they drive sessions through core/service only.
 * They may name storage and session types, but never load the lifecycle or storage code.
 */
const FRONT_ENDS = ["tui/", "commands/run.ts", "commands/repl.ts", "commands/serve.ts", "web/"];
const HOST_ONLY = ["core/session/", "core/storage/", "core/agent/loop.ts"];
/** Files that must not run timers of their own: the host owns the cadence and the heartbeat. */
const NO_TIMERS = ["commands/run.ts", "commands/repl.ts", "tui/repl/repl.ts"];

const { all: edges, code } = await graph(sourceFiles());
const problems: string[] = [];
const isFrontEnd = (path: string) => FRONT_ENDS.some((f) => path === f || path.startsWith(f));
for (const [from, targets] of code) {
  if (!isFrontEnd(from)) continue;
  for (const to of targets) {
    if (HOST_ONLY.some((h) => to === h || to.startsWith(h))) {
      problems.push(`front end calls the session lifecycle or storage: ${from} -> ${to}`);
    }
  }
}
for (const file of NO_TIMERS) {
  const text = await Deno.readTextFile(join(ROOT, file)).catch(() => "");
  const line = text.split("\n").findIndex((l) => /\bset(Interval|Timeout)\s*\(/.test(l));
  if (line >= 0) problems.push(`front end runs a timer: ${file}:${line + 1}`);
}
for (const [from, targets] of edges) {
  const a = floorOf(from);
  for (const to of targets) {
    const b = floorOf(to);
    if (a.unit === b.unit) continue;
    if (b.level >= a.level) problems.push(`upward import: ${from} -> ${to}`);
  }
}
for (const scc of cycles(edges)) problems.push(`import cycle: ${scc.join(" <-> ")}`);
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(`check_deps: ${problems.length} problem(s)`);
  Deno.exit(1);
}
console.log(
  `check_deps: ${edges.size} modules, imports point down, no cycles, front ends go through the host`,
);
