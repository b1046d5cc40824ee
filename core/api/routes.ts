import { isAbsolute } from "node:path";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import { findProjectRoot } from "../project_root.ts";
import type { HostPool, PoolEvent } from "../service/host_pool.ts";
import { rewindJson } from "../service/rewind_json.ts";
import type { SessionAdmin } from "../service/session_admin.ts";
import { realTimers, type Timers } from "../session/persister.ts";
import { searchHitJson, sessionJson } from "../session/session_json.ts";
import type { Session } from "../storage/sessions.ts";
import { checkTimeZone, parseTimeBound, parseUntilBound } from "../time.ts";
import { exportFileName } from "../export/file_name.ts";
import { TABS } from "../usage/dashboard.ts";
import { dashboardJson } from "../usage/dashboard_json.ts";
import type { Gate } from "./gate.ts";
import { json, type Route } from "./router.ts";
import { sseResponse } from "./sse.ts";

/** What the routes need: session admin, the sessions this process runs, the login gate. */
export interface RouteDeps {
  readonly admin: SessionAdmin;
  readonly pool: HostPool;
  readonly gate: Gate;
  readonly clock: Clock;
  /** The keepalive of event streams runs on these (default: real ones). */
  readonly timers?: Timers;
  /** Aborted when the server stops (open event streams end). */
  readonly stopping: AbortSignal;
  /** Where a session created without a project works (`$BONSAI_HOME/workspace`). */
  readonly defaultWorkspace: string;
  readonly timeZone: string;
  readonly version: string;
}

const STATUSES = ["active", "completed", "interrupted", "budget_exhausted", "failed"] as const;
const SOURCES = ["bonsai", "claude-code", "codex"] as const;

const Id = z.string().min(1).max(64).regex(/^[0-9a-z]+$/i, "must be a session id (or prefix)");
const TimeText = z.string().min(1).max(64);
const Count = (max: number, fallback: number) =>
  z.coerce.number().int().min(0).max(max).default(fallback);

export const Login = z.object({
  token: z.string().min(1).max(200).optional(),
  password: z.string().min(1).max(1024).optional(),
}).strict().refine((v) => (v.token === undefined) !== (v.password === undefined), {
  message: "give either 'token' or 'password'",
});

const ListQuery = z.object({
  project: z.string().min(1).max(4096).optional(),
  status: z.enum(STATUSES).optional(),
  source: z.enum(SOURCES).optional(),
  limit: Count(1000, 100),
  offset: Count(10_000_000, 0),
}).strict();

const CreateBody = z.object({
  title: z.string().max(200).optional(),
  project_path: z.string().min(1).max(4096).optional(),
}).strict();

const UpdateBody = z.object({
  title: z.string().min(1).max(200).optional(),
  pinned: z.boolean().optional(),
  rewind_to: z.number().int().min(0).optional(),
  files: z.boolean().optional(),
  force: z.boolean().optional(),
}).strict();

const MessageBody = z.object({
  text: z.string().min(1).max(200_000),
  run: z.boolean().optional(),
}).strict();

const TranscriptQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  before: z.coerce.number().int().min(0).optional(),
  limit: Count(1000, 200),
}).strict();

const AnswerBody = z.object({ answer: z.enum(["once", "always", "project", "deny"]) }).strict();

const EventsQuery = z.object({ until: z.enum(["turn_end"]).optional() }).strict();

const SearchQuery = z.object({
  q: z.string().min(1).max(1000),
  project: z.string().min(1).max(4096).optional(),
  since: TimeText.optional(),
  until: TimeText.optional(),
  limit: Count(1000, 20),
}).strict();

const UsageQuery = z.object({
  tab: z.enum(TABS).optional(),
  project: z.string().min(1).max(4096).optional(),
  since: TimeText.optional(),
  until: TimeText.optional(),
  tz: z.string().min(1).max(64).optional(),
}).strict();

/** Every route of the API (X4), in the order the OpenAPI document lists them. */
export function apiRoutes(deps: RouteDeps): Route[] {
  const { admin, pool, gate } = deps;
  const session = (id: string): Session => admin.resolve(idParam(id));
  const withRunning = (s: Session) => ({ ...sessionJson(s), running: pool.state(s.id) });
  return [
    {
      method: "GET",
      path: "/api/health",
      summary: "Whether the server is up (no login needed)",
      public: true,
      returns: "{ok, version}",
      handle: () => json(200, { ok: true, version: deps.version }),
    },
    {
      method: "POST",
      path: "/api/login",
      summary: "Log in with a token or the password; sets an HttpOnly session cookie",
      public: true,
      body: Login,
      returns: "{expires_at} and a Set-Cookie header",
      async handle(req) {
        const body = req.body as z.infer<typeof Login>;
        try {
          const { cookie, expiresAt } = await gate.login(req.client, body);
          return json(200, { expires_at: new Date(expiresAt).toISOString() }, {
            "set-cookie": cookie,
          });
        } catch (err) {
          if (err instanceof BonsaiError && err.code === "TOO_MANY_REQUESTS") {
            return json(429, { error: err.toJSON() }, {
              "retry-after": String(err.data?.retry_after ?? 60),
            });
          }
          throw err;
        }
      },
    },
    {
      method: "POST",
      path: "/api/logout",
      summary: "End the login of this cookie",
      public: true,
      returns: "204 and a Set-Cookie header that clears the cookie",
      handle: (req) =>
        new Response(null, { status: 204, headers: { "set-cookie": gate.logout(req.raw) } }),
    },
    {
      method: "GET",
      path: "/api/user/sessions",
      summary: "Sessions of every project, pinned first, then by last change",
      query: ListQuery,
      returns: "{sessions: [session], offset}",
      handle(req) {
        const q = req.query as z.infer<typeof ListQuery>;
        const sessions = admin.list({
          projectPath: q.project === undefined ? undefined : findProjectRoot(q.project),
          status: q.status,
          source: q.source,
          limit: q.limit,
          offset: q.offset,
        });
        return json(200, { sessions: sessions.map(withRunning), offset: q.offset });
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions",
      summary:
        "Create a session in project_path (an existing directory; default $BONSAI_HOME/workspace)",
      body: CreateBody,
      returns: "201 {session}",
      async handle(req) {
        const body = req.body as z.infer<typeof CreateBody>;
        const root = body.project_path === undefined
          ? await ensureDir(deps.defaultWorkspace)
          : projectRoot(body.project_path);
        const created = admin.create(root, body.title ?? null);
        return json(201, withRunning(created));
      },
    },
    {
      method: "GET",
      path: "/api/user/sessions/{id}",
      summary: "One session whole: its row, usage, changed files and every message",
      returns: "{...session, messages, usage, running, pending_permissions}",
      handle(req) {
        const s = session(req.params.id!);
        return json(200, {
          ...admin.detail(s).json,
          running: pool.state(s.id),
          pending_permissions: pool.pending(s.id).map(eventJson),
        });
      },
    },
    {
      method: "GET",
      path: "/api/user/sessions/{id}/transcript",
      summary:
        "One window of the transcript (after a seq, before one, or the last ones) with tool outcomes and usage",
      query: TranscriptQuery,
      returns: "{session, first_seq, last_seq, messages, running, pending_permissions}",
      handle(req) {
        const s = session(req.params.id!);
        const q = req.query as z.infer<typeof TranscriptQuery>;
        if (q.after !== undefined && q.before !== undefined) {
          throw new BonsaiError("BAD_REQUEST", "before: give 'after' or 'before', not both", {
            data: { field: "before" },
          });
        }
        const page = admin.transcriptPage(s, { after: q.after, before: q.before, limit: q.limit });
        return json(200, {
          ...page,
          running: pool.state(s.id),
          pending_permissions: pool.pending(s.id).map(eventJson),
        });
      },
    },
    {
      method: "GET",
      path: "/api/user/sessions/{id}/markdown",
      summary: "The session's Markdown export as a download (written nowhere)",
      returns: "text/markdown with a Content-Disposition naming the export's file",
      async handle(req) {
        const s = session(req.params.id!);
        const done = await admin.export(s.id, { write: false });
        const name = exportFileName(done.session);
        return new Response(done.markdown, {
          status: 200,
          headers: {
            "content-type": "text/markdown; charset=utf-8",
            "content-disposition": `attachment; filename="${asciiName(name)}"; filename*=UTF-8''${
              encodeURIComponent(name)
            }`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
    },
    {
      method: "PUT",
      path: "/api/user/sessions/{id}",
      summary: "Rename, pin or unpin, or rewind to a step ({rewind_to: seq, files: bool})",
      body: UpdateBody,
      returns: "{session, rewind?}",
      async handle(req) {
        const body = req.body as z.infer<typeof UpdateBody>;
        let s = session(req.params.id!);
        const host = pool.host(s.id);
        if (body.title !== undefined) {
          if (host) host.rename(body.title);
          else admin.rename(s.id, body.title);
        }
        if (body.pinned !== undefined) {
          if (host) host.setPinned(body.pinned);
          else admin.setPinned(s.id, body.pinned);
        }
        let rewind: unknown;
        if (body.rewind_to !== undefined) {
          await pool.release(s.id);
          rewind = rewindJson(
            await admin.rewind(s.id, {
              to: body.rewind_to,
              files: body.files ?? false,
              force: body.force ?? false,
            }),
          );
        }
        s = admin.resolve(s.id);
        return json(200, { session: withRunning(s), ...(rewind ? { rewind } : {}) });
      },
    },
    {
      method: "DELETE",
      path: "/api/user/sessions/{id}",
      summary: "Delete a session and everything recorded with it",
      returns: "204",
      async handle(req) {
        const s = admin.forgettable(idParam(req.params.id!));
        await pool.release(s.id);
        admin.forget(s);
        return new Response(null, { status: 204 });
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions/{id}/messages",
      summary:
        "Append a user message; unless run is false, start an agent turn on it in the session's workspace",
      body: MessageBody,
      returns:
        "202 {session_id, running} (events on /events), or 201 {session_id, seq} with run false",
      async handle(req) {
        const body = req.body as z.infer<typeof MessageBody>;
        const s = session(req.params.id!);
        if (body.run === false) {
          return json(201, { session_id: s.id, seq: await pool.addPrompt(s.id, body.text) });
        }
        await pool.prompt(s.id, body.text);
        return json(202, { session_id: s.id, running: true });
      },
    },
    {
      method: "GET",
      path: "/api/user/sessions/{id}/events",
      summary:
        "Server-Sent Events of the session's host: text deltas, tool calls, permission requests, usage, turn end",
      query: EventsQuery,
      returns: "text/event-stream; with until=turn_end the stream ends after the next turn ends",
      handle(req) {
        const s = session(req.params.id!);
        const until = (req.query as z.infer<typeof EventsQuery>).until;
        return sseResponse(
          (send) =>
            pool.subscribe(s.id, (event) =>
              send(
                { event: event.type, data: eventJson(event) },
                until === "turn_end" && (event.type === "turn_end" || event.type === "error"),
              )),
          // A client that goes away cancels the stream (and unsubscribes) by itself.
          { signal: deps.stopping, timers: deps.timers ?? realTimers },
        );
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions/{id}/permissions/{request_id}",
      summary:
        "Answer a permission request: once, always (for this session), project (save an allow rule for this project) or deny",
      body: AnswerBody,
      returns: "204",
      handle(req) {
        const s = session(req.params.id!);
        const requestId = Number(req.params.request_id);
        if (!Number.isSafeInteger(requestId) || requestId < 0) {
          throw new BonsaiError("BAD_REQUEST", "request_id: must be a whole number", {
            data: { field: "request_id" },
          });
        }
        pool.answer(s.id, requestId, (req.body as z.infer<typeof AnswerBody>).answer);
        return new Response(null, { status: 204 });
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions/{id}/cancel",
      summary: "Cancel the running turn (what was written so far is kept, marked cancelled)",
      returns: "{cancelled: bool}",
      handle(req) {
        const s = session(req.params.id!);
        return json(200, { cancelled: pool.cancel(s.id) });
      },
    },
    {
      method: "POST",
      path: "/api/user/sessions/{id}/export",
      summary: "Export the session to Markdown in its workspace (对话/<date>-<title>-<id8>.md)",
      returns: "{path, messages, bytes}",
      async handle(req) {
        const s = session(req.params.id!);
        const done = await admin.export(s.id);
        return json(200, { path: done.path, messages: done.messages, bytes: done.bytes });
      },
    },
    {
      method: "GET",
      path: "/api/user/search",
      summary: "Full-text search over every session's messages (as `bonsai search --json`)",
      query: SearchQuery,
      returns: "[hit]",
      handle(req) {
        const q = req.query as z.infer<typeof SearchQuery>;
        const now = deps.clock.now();
        const hits = admin.search(q.q, {
          projectPath: q.project === undefined ? undefined : findProjectRoot(q.project),
          since: q.since === undefined ? undefined : bound(parseTimeBound, q.since, now, "since"),
          until: q.until === undefined ? undefined : bound(parseUntilBound, q.until, now, "until"),
          limit: q.limit,
        });
        return json(200, hits.map(searchHitJson));
      },
    },
    {
      method: "GET",
      path: "/api/user/usage",
      summary: "The usage dashboard (as `bonsai usage --json`): one tab, or all",
      query: UsageQuery,
      returns: "{activity, models, cost, sessions, tools, cache} or one tab's object",
      handle(req) {
        const q = req.query as z.infer<typeof UsageQuery>;
        const now = deps.clock.now();
        const timeZone = q.tz === undefined ? deps.timeZone : zone(q.tz);
        const dashboard = admin.usage({
          since: q.since === undefined
            ? undefined
            : bound(parseTimeBound, q.since, now, "since", timeZone),
          until: q.until === undefined
            ? undefined
            : bound(parseUntilBound, q.until, now, "until", timeZone),
          projectId: q.project === undefined
            ? undefined
            : admin.projectId(findProjectRoot(q.project)),
        }, { timeZone, now, tabs: q.tab ? [q.tab] : undefined });
        return json(200, dashboardJson(dashboard, q.tab));
      },
    },
  ];

  function bound(
    parse: (text: string, now: number, timeZone: string) => number,
    text: string,
    now: number,
    field: string,
    timeZone = deps.timeZone,
  ): number {
    try {
      return parse(text, now, timeZone);
    } catch (err) {
      throw badField(field, err);
    }
  }
}

/** A file name for the plain `filename=` parameter: ASCII without quotes or backslashes. */
function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/g, "_");
}

/** A session id (or unique prefix) from the path; anything else is a 400 naming `id`. */
function idParam(text: string): string {
  const parsed = Id.safeParse(text);
  if (parsed.success) return parsed.data;
  throw new BonsaiError("BAD_REQUEST", `id: ${parsed.error.issues[0]!.message}`, {
    data: { field: "id" },
  });
}

function zone(tz: string): string {
  try {
    return checkTimeZone(tz);
  } catch (err) {
    throw badField("tz", err);
  }
}

function badField(field: string, err: unknown): BonsaiError {
  const message = err instanceof Error ? err.message : String(err);
  return new BonsaiError("BAD_REQUEST", `${field}: ${message}`, { data: { field } });
}

/** A project path from a request: absolute, an existing directory; its canonical root. */
function projectRoot(path: string): string {
  const refuse = (why: string) =>
    new BonsaiError("BAD_REQUEST", `project_path: ${why}`, { data: { field: "project_path" } });
  if (!isAbsolute(path) || path.includes("\0")) throw refuse("must be an absolute path");
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    throw refuse(`'${path}' does not exist`);
  }
  if (!info.isDirectory) throw refuse(`'${path}' is not a directory`);
  return findProjectRoot(path);
}

async function ensureDir(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  return findProjectRoot(dir);
}

/** A pool event as JSON for a client (the same shape on the stream and in a session's state). */
export function eventJson(event: PoolEvent): Record<string, unknown> {
  return JSON.parse(JSON.stringify(event));
}
