// Fails when an import points up a floor of the house (DESIGN.md) or closes a cycle.
// Reads the module graph from `deno info --json` over every source file.
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const toFileUrl = (path: string) => pathToFileURL(path);

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const SOURCE_DIRS = ["core", "commands", "tui", "migrations"];

/** Floors from the bottom up; a module may import only lower floors or its own unit. */
const FLOORS: [prefix: string, level: number][] = [
  ["main.ts", 100],
  ["commands/", 90],
  ["tui/", 80],
  ["core/api/", 60],
  ["core/service/", 55],
  ["core/export/", 58],
  ["core/import/", 58],
  ["core/agent/", 50],
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

async function graph(files: string[]): Promise<Map<string, Set<string>>> {
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
    const local = (spec: string) =>
      spec.startsWith(toFileUrl(ROOT).href + "/") ? relative(ROOT, new URL(spec).pathname) : null;
    for (const m of info.modules) {
      const from = local(m.specifier);
      if (!from || from === "deno.json" || from.startsWith("..")) continue;
      const to = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const spec of [d.code?.specifier, d.type?.specifier]) {
          const target = spec ? local(spec) : null;
          if (target && target !== "deno.json") to.add(target);
        }
      }
      edges.set(from, to);
    }
    return edges;
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

const edges = await graph(sourceFiles());
const problems: string[] = [];
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
console.log(`check_deps: ${edges.size} modules, imports point down, no cycles`);
