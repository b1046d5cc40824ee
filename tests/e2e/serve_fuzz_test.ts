// 1,200 malformed or random requests against a real `bonsai serve`: bad JSON, wrong types,
// huge bodies, path tricks, unknown ids, odd methods and headers. None may get a 5xx, the
// server must stay up, and the database must pass integrity_check afterwards.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Prng } from "../../scripts/lib/prng.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { call, ServeProcess } from "../support/serve_process.ts";
import { tempDir } from "../support/temp.ts";

const REQUESTS = 1_200;

Deno.test("bonsai serve: 1,200 malformed or random requests get no 5xx, and the database stays whole", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  // No provider: a well-formed prompt is refused with 400 instead of calling a model.
  const env = baseEnv(home);
  const created = await runBonsai(["tokens", "create", "--json"], { cwd: dir.path, env });
  const { token } = JSON.parse(created.stdout) as { token: string };
  await using server = await ServeProcess.start({ cwd: dir.path, env });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call(server.url, "/api/user/sessions", {
      method: "POST",
      token,
      body: { title: `fuzz ${i}`, project_path: project },
    });
    ids.push((res.json as { id: string }).id);
  }

  const random = new Prng(20261201);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const request = randomRequest(random, ids, project);
    let status: number;
    try {
      const headers: Record<string, string> = { ...request.headers };
      if (random.int(0, 9) > 0) headers.authorization = `Bearer ${token}`;
      const res = await fetch(`${server.url}${request.path}`, {
        method: request.method,
        headers,
        body: request.body,
      });
      await res.body?.cancel();
      status = res.status;
    } catch (err) {
      failures.push(`${request.method} ${request.path}: ${(err as Error).message}`);
      continue;
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status >= 500) failures.push(`${request.method} ${request.path} -> ${status}`);
  }
  assert.deepEqual(failures, [], `statuses: ${JSON.stringify([...statuses])}`);
  assert.ok(
    (statuses.get(400) ?? 0) > 200,
    `many bad requests were refused: ${JSON.stringify([...statuses])}`,
  );
  assert.equal((await call(server.url, "/api/health")).status, 200, "the server is still up");
  assert.equal((await call(server.url, "/api/user/sessions", { token })).status, 200);
  await server.stop();
  const db = new DatabaseSync(join(home, "bonsai.db"));
  try {
    const check = db.prepare("PRAGMA integrity_check").all().map((r) => ({ ...r }));
    assert.deepEqual(check, [{ integrity_check: "ok" }]);
  } finally {
    db.close();
  }
});

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: BodyInit;
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
const TEMPLATES: [method: string, path: string][] = [
  ["GET", "/api/user/sessions"],
  ["POST", "/api/user/sessions"],
  ["GET", "/api/user/sessions/{id}"],
  ["PUT", "/api/user/sessions/{id}"],
  ["DELETE", "/api/user/sessions/{id}"],
  ["POST", "/api/user/sessions/{id}/messages"],
  ["GET", "/api/user/sessions/{id}/events"],
  ["POST", "/api/user/sessions/{id}/permissions/{n}"],
  ["POST", "/api/user/sessions/{id}/cancel"],
  ["POST", "/api/user/sessions/{id}/export"],
  ["GET", "/api/user/search"],
  ["GET", "/api/user/usage"],
  ["POST", "/api/login"],
  ["POST", "/api/logout"],
  ["GET", "/api/openapi.json"],
  ["GET", "/api/health"],
  ["GET", "/api/nope"],
  ["GET", "/"],
];

function randomRequest(random: Prng, ids: readonly string[], project: string): FuzzRequest {
  const pick = <T>(xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!;
  const idChoices = [
    ...ids,
    ...ids.map((id) => id.slice(0, 6)),
    "01zzzzzzzzzzzzzzzzzzzzzzzz",
    "..%2F..%2Fetc%2Fpasswd",
    "%00",
    "%zz",
    "a".repeat(300),
    "💥",
    "0",
    "",
  ];
  const [routeMethod, template] = pick(TEMPLATES);
  let path = template
    .replace("{id}", pick(idChoices))
    .replace("{n}", pick(["0", "1", "-1", "1e99", "abc", "99999999999999999999"]));
  if (random.int(0, 2) === 0) path += `?${randomQuery(random)}`;
  if (random.int(0, 20) === 0) {
    path = pick(["/api/../../etc/passwd", "/api//user//sessions", "/%2e%2e/api"]);
  }
  // Mostly the route's own method, so the requests reach validation; sometimes any.
  const method = random.int(0, 5) > 0 ? routeMethod : pick(METHODS);
  const headers: Record<string, string> = {};
  let body: BodyInit | undefined;
  if (method !== "GET" && method !== "HEAD" && random.int(0, 5) > 0) {
    headers["content-type"] = pick([
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
    ]);
    body = randomBody(random, project, pick);
  }
  if (random.int(0, 15) === 0) {
    headers.cookie = pick(["bonsai_session=", "bonsai_session=abc; x=1", "=;;="]);
  }
  if (random.int(0, 15) === 0) headers.origin = pick(["http://evil.example", "null", ""]);
  return { method, path, headers, body };
}

function randomQuery(random: Prng): string {
  const keys = [
    "q",
    "limit",
    "offset",
    "since",
    "until",
    "project",
    "tab",
    "tz",
    "status",
    "source",
    "until",
    "x",
  ];
  const values = [
    "",
    "abc",
    "-1",
    "1e9",
    "20",
    "7d",
    "2026-13-45",
    "activity",
    "nope",
    "Mars/Olympus",
    "/tmp",
    "%",
    "null",
    "[]",
  ];
  const parts: string[] = [];
  for (let i = random.int(1, 4); i > 0; i--) {
    parts.push(
      `${keys[random.int(0, keys.length - 1)]}=${
        encodeURIComponent(values[random.int(0, values.length - 1)]!)
      }`,
    );
  }
  return parts.join("&");
}

function randomBody(
  random: Prng,
  project: string,
  pick: <T>(xs: readonly T[]) => T,
): BodyInit {
  switch (random.int(0, 9)) {
    case 0:
      return pick(["{", '{"title":', "nul", "[1,2", '"unterminated', "{'a':1}", "\u0000\u0001"]);
    case 1:
      return new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]); // not UTF-8
    case 2:
      return "x".repeat(random.int(0, 1) ? 1_100_000 : 2_000_000); // over the limit
    case 3:
      return `${"[".repeat(5000)}${"]".repeat(5000)}`; // deep nesting
    case 4:
      return JSON.stringify(pick([null, 1, "text", [], true, { a: { b: [1, 2, { c: null }] } }]));
    default: {
      const fields: Record<string, unknown> = {};
      const values: unknown[] = [
        null,
        -1,
        1.5,
        "",
        "ok",
        "x".repeat(300_000),
        true,
        [],
        {},
        project,
        "relative/path",
        "/does/not/exist",
        "once",
        "always",
        "deny",
        3,
      ];
      const keys = [
        "title",
        "project_path",
        "text",
        "run",
        "answer",
        "pinned",
        "rewind_to",
        "files",
        "force",
        "token",
        "password",
        "extra",
      ];
      for (let i = random.int(0, 4); i > 0; i--) fields[pick(keys)] = pick(values);
      return JSON.stringify(fields);
    }
  }
}
