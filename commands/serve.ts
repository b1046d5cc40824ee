import { join } from "node:path";
import { z } from "zod";
import { createApp } from "../core/api/app.ts";
import type { Router } from "../core/api/router.ts";
import { Credentials } from "../core/api/credentials.ts";
import { Gate } from "../core/api/gate.ts";
import { BonsaiError, messageOf } from "../core/errors.ts";
import { homeFrom } from "../core/home.ts";
import { HostPool } from "../core/service/host_pool.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { parseAllow } from "./run.ts";
import { hostDeps, sessionAdmin, withSignals } from "./service.ts";
import { webPages } from "../web/pages.ts";
import type { World } from "./world.ts";

const ServeOptions = z.object({
  host: z.string().min(1).max(255).default("127.0.0.1"),
  port: z.coerce.number().int().min(0).max(65_535).default(7420),
  allow: z.string().optional(),
  allowAll: z.boolean().optional(),
  json: z.boolean().optional(),
  setPassword: z.boolean().optional(),
  removePassword: z.boolean().optional(),
});

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * `bonsai serve`: the session API (X4) on Deno's HTTP server, loopback unless asked, behind
 * login, until SIGINT or SIGTERM; running turns are cancelled and saved before it exits.
 */
export async function serve(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ServeOptions, raw);
  if (opts.allow && opts.allowAll) {
    throw new BonsaiError("USAGE", "--allow and --allow-all cannot be combined");
  }
  const allow = parseAllow(opts.allow, opts.allowAll);
  const ui = uiFor(world);
  using db = await openDb(world);
  const credentials = new Credentials(db, world.randomBytes);
  if (opts.setPassword || opts.removePassword) {
    return await setPassword(world, credentials, Boolean(opts.removePassword));
  }
  const stop = new AbortController();
  const pool = new HostPool(hostDeps(world, db), {
    providerFlags: {},
    allow,
    budgetFlags: {},
    context: {},
    interactive: true,
    providerOptional: true,
  });
  // Assigned before the first request can be handled (nothing awaits in between).
  let app: Router | null = null;
  const server = Deno.serve({
    hostname: opts.host,
    port: opts.port,
    onListen: () => {},
    handler: (req, info) => {
      const client = "hostname" in info.remoteAddr ? info.remoteAddr.hostname : "local";
      return app!.handle(req, client);
    },
  });
  const { port } = server.addr as Deno.NetAddr;
  const gate = new Gate({
    credentials,
    clock: world.clock,
    random: world.randomBytes,
    hosts: allowedHosts(opts.host, port, world.hostname),
  });
  app = createApp({
    admin: sessionAdmin(world, db),
    pool,
    gate,
    clock: world.clock,
    stopping: stop.signal,
    defaultWorkspace: join(homeFrom(world.env).dir, "workspace"),
    timeZone: ui.timeZone,
    version: world.version,
    pages: webPages(),
    onError: (err) => ui.err(`bonsai serve: internal error: ${messageOf(err)}`),
  });
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
  if (!LOOPBACK.has(opts.host)) {
    ui.err(
      `Warning: listening on ${opts.host}, not loopback: anyone who can reach it can try to log in. Use a token or a strong password, and a firewall`,
    );
  }
  if (opts.json) ui.out(JSON.stringify({ url, host: opts.host, port }));
  else {
    ui.out(`bonsai serve listening on ${url}`);
    if (credentials.tokens().length === 0 && !credentials.hasPassword) {
      ui.err(
        "No login exists yet: create a token with `bonsai tokens create`, or a password with `bonsai serve --set-password`",
      );
    }
  }
  // Running turns are cancelled and saved first (their event streams see them end), then
  // the server stops.
  let closing: Promise<void> | null = null;
  await withSignals((signal) => {
    closing ??= (async () => {
      try {
        await pool.closeAll(signal === "SIGINT" ? "sigint" : "sigterm");
      } finally {
        stop.abort(); // event streams end, after the turns' last events
        await server.shutdown(); // and are delivered before the process goes
      }
    })();
  }, () => server.finished);
  await closing;
  return EXIT.OK;
}

async function setPassword(
  world: World,
  credentials: Credentials,
  remove: boolean,
): Promise<number> {
  const ui = uiFor(world);
  if (remove) {
    await credentials.setPassword(null);
    ui.err("The login password is removed; tokens still work");
    return EXIT.OK;
  }
  if (!world.prompter.interactive) {
    throw new BonsaiError("USAGE", "--set-password reads the password from a terminal");
  }
  const first = await world.prompter.password("New password for bonsai serve");
  const again = await world.prompter.password("The same password again");
  if (first !== again) throw new BonsaiError("USAGE", "The two passwords differ; nothing changed");
  await credentials.setPassword(first);
  ui.err(
    "Password saved (as a scrypt hash); log in with it on the server's page or POST /api/login",
  );
  return EXIT.OK;
}

/** The Host header values this server answers to (anything else may be DNS rebinding). */
function allowedHosts(host: string, port: number, hostname: string): string[] {
  const names = new Set<string>();
  const add = (name: string) =>
    names.add(name.includes(":") ? `[${name}]:${port}` : `${name}:${port}`);
  add(host);
  if (LOOPBACK.has(host)) {
    for (const name of LOOPBACK) add(name);
  } else if (host === "0.0.0.0" || host === "::") {
    for (const name of LOOPBACK) add(name);
    add(hostname);
    for (const nic of Deno.networkInterfaces()) add(nic.address);
  } else {
    add(hostname);
  }
  return [...names];
}
