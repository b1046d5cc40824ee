/**
 * Imports a module when it is first needed, out of sight of Deno's module graph. Deno
 * prepares every literal `import("./x.ts")` target of a module as it loads that module,
 * so an entry point with literal imports of all its commands would load all of them on
 * every run (15-30 ms of each `bonsai search`). Callers type the result with
 * `typeof import("./x.ts")` (types cost nothing at run time), and every module loaded this
 * way is listed with --include in `deno task compile` (tests/tasks_test.ts checks that).
 */
export function importLater<T>(url: URL): Promise<T> {
  return import(url.href);
}
