import { resolve } from "node:path";
import { z } from "zod";
import { BonsaiError } from "../core/errors.ts";
import { findProjectRoot } from "../core/project_root.ts";
import type { StoredPermissionRule } from "../core/service/permission_admin.ts";
import { renderRules } from "../tui/render/rules_table.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

const ListOptions = z.object({
  project: z.string().min(1).optional(),
  all: z.boolean().optional(),
  json: z.boolean().optional(),
}).refine((o) => !(o.all && o.project), { message: "use either --project or --all, not both" });
const AddOptions = z.object({
  project: z.union([z.literal(true), z.string().min(1)]).optional(),
  json: z.boolean().optional(),
});
const RemoveOptions = z.object({ json: z.boolean().optional() });

/**
 * `bonsai permissions [list] [--project PATH | --all] [--json]`: the saved rules in force in
 * a project (its own and every project's), or every rule.
 */
export async function listRules(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ListOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const root = opts.all ? null : projectRoot(world, opts.project ?? world.cwd);
  const rules = sessionAdmin(world, db).permissions.list(
    root === null ? { all: true } : { inForce: root },
  );
  if (opts.json) {
    ui.json(rules.map(ruleJson));
    return EXIT.OK;
  }
  if (rules.length === 0) {
    ui.err(
      `No permission rules${
        root === null ? "" : ` for '${root}'`
      }; add one with \`bonsai permissions add allow exec 'npm test' --project\``,
    );
    return EXIT.OK;
  }
  ui.out(
    renderRules(rules, {
      width: ui.width,
      style: ui.style,
      ascii: ui.ascii,
      showProject: true,
      shortIds: sessionAdmin(world, db).permissions.shortIds(),
    }),
  );
  return EXIT.OK;
}

/**
 * `bonsai permissions add <allow|deny> <write|exec> <pattern> [--project [PATH]] [--json]`:
 * saves a rule for every project, or with --project for the project at PATH (default: here).
 */
export async function addRule(
  world: World,
  args: { effect: string; kind: string; pattern: string },
  raw: unknown,
): Promise<number> {
  const opts = parseOptions(AddOptions, raw);
  const ui = uiFor(world);
  const root = opts.project === undefined
    ? null
    : projectRoot(world, opts.project === true ? world.cwd : opts.project);
  using db = await openDb(world);
  const admin = sessionAdmin(world, db).permissions;
  const rule = admin.add({ ...args, projectRoot: root });
  if (opts.json) {
    ui.json(ruleJson(rule));
    return EXIT.OK;
  }
  ui.err(
    `Saved rule ${
      admin.shortIds().get(rule.id)
    }: ${rule.effect} ${rule.kind} '${rule.pattern}' for ${
      root === null ? "every project" : `'${root}'`
    }`,
  );
  return EXIT.OK;
}

/** `bonsai permissions remove <id> [--json]`: removes a rule (any unique id prefix). */
export async function removeRule(world: World, id: string, raw: unknown): Promise<number> {
  const opts = parseOptions(RemoveOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const rule = sessionAdmin(world, db).permissions.remove(id);
  if (opts.json) ui.json(ruleJson(rule));
  else {ui.err(
      `Removed rule ${rule.id}: ${rule.effect} ${rule.kind} '${rule.pattern}'`,
    );}
  return EXIT.OK;
}

/** The canonical project root for a directory the user named; it must exist. */
function projectRoot(world: World, path: string): string {
  const dir = resolve(world.cwd, path);
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    throw new BonsaiError("USAGE", `--project: no directory at '${path}'`);
  }
  if (!info.isDirectory) throw new BonsaiError("USAGE", `--project: '${path}' is not a directory`);
  return findProjectRoot(dir);
}

function ruleJson(rule: StoredPermissionRule) {
  return {
    id: rule.id,
    effect: rule.effect,
    kind: rule.kind,
    pattern: rule.pattern,
    scope: rule.projectRoot === null ? "global" : "project",
    project: rule.projectRoot,
    created_at: new Date(rule.createdAt).toISOString(),
  };
}
