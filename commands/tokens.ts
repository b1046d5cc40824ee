import { z } from "zod";
import { Credentials } from "../core/api/credentials.ts";
import type { ApiTokenRow } from "../core/storage/api_tokens.ts";
import { formatDateTime } from "../tui/render/format.ts";
import { renderTable } from "../tui/render/table.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const CreateOptions = z.object({
  name: z.string().trim().min(1, "--name cannot be empty").max(100).optional(),
  json: z.boolean().optional(),
});
const ListOptions = z.object({ json: z.boolean().optional() });

/** `bonsai tokens create [--name N] [--json]`: a bearer token for `bonsai serve`, shown once. */
export async function createToken(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(CreateOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const name = opts.name ?? `token ${new Date(world.clock.now()).toISOString().slice(0, 10)}`;
  const { token, row } = new Credentials(db, world.randomBytes).createToken(name);
  if (opts.json) {
    ui.json({ id: row.id, name: row.name, token });
    return EXIT.OK;
  }
  ui.out(token);
  ui.err(
    `Token '${row.name}' (id ${row.id}) created. It is shown only this once: keep it somewhere safe. Use it as 'Authorization: Bearer <token>', or to log in on the server's page`,
  );
  return EXIT.OK;
}

/** `bonsai tokens list [--json]`: ids, names and use, never the tokens. */
export async function listTokens(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ListOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const tokens = new Credentials(db, world.randomBytes).tokens();
  if (opts.json) {
    ui.json(tokens.map(tokenJson));
    return EXIT.OK;
  }
  if (tokens.length === 0) {
    ui.err("No tokens; create one with `bonsai tokens create`");
    return EXIT.OK;
  }
  ui.out(renderTable(
    [
      { header: "ID", paint: (t) => ui.style.cyan(t) },
      { header: "NAME", shrink: true, min: 8 },
      { header: "CREATED" },
      { header: "LAST USED" },
    ],
    tokens.map((t) => [
      t.id,
      t.name,
      formatDateTime(t.createdAt, ui.timeZone),
      t.lastUsedAt === null ? "never" : formatDateTime(t.lastUsedAt, ui.timeZone),
    ]),
    { width: ui.width, style: ui.style, ascii: ui.ascii },
  ));
  return EXIT.OK;
}

/** `bonsai tokens revoke <id>`: the token stops working at once (logins made with it end). */
export async function revokeToken(world: World, id: string): Promise<number> {
  const ui = uiFor(world);
  using db = await openDb(world);
  const row = new Credentials(db, world.randomBytes).revoke(id.trim());
  ui.err(`Token '${row.name}' (id ${row.id}) revoked`);
  return EXIT.OK;
}

function tokenJson(t: ApiTokenRow): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    created_at: new Date(t.createdAt).toISOString(),
    last_used_at: t.lastUsedAt === null ? null : new Date(t.lastUsedAt).toISOString(),
  };
}
