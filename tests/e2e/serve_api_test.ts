// `bonsai serve` as a real process on port 0 (X4): login on every route, tokens, cookies,
// Host and Origin checks, and a whole session driven over HTTP with the loopback provider.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { call, readEvents, ServeProcess, type ServerEvent } from "../support/serve_process.ts";
import { openai } from "../support/sse_scripts.ts";
import { tempDir } from "../support/temp.ts";
import { cli, ScriptedPrompter, testWorld } from "../support/world.ts";

async function newToken(dir: string, env: Record<string, string>, name = "test"): Promise<
  { id: string; token: string }
> {
  const out = await runBonsai(["tokens", "create", "--name", name, "--json"], { cwd: dir, env });
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

Deno.test("bonsai serve: every route but login, logout and health answers 401 without credentials", async () => {
  await using dir = await tempDir();
  const env = baseEnv(join(dir.path, "home"));
  const { token } = await newToken(dir.path, env);
  await using server = await ServeProcess.start({ cwd: dir.path, env });
  const doc = (await call(server.url, "/api/openapi.json", { token })).json as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, public: op.security?.length === 0 }))
  );
  assert.ok(routes.length >= 15, `the route table has ${routes.length} routes`);
  assert.deepEqual(
    routes.filter((r) => r.public).map((r) => r.path).sort(),
    ["/api/health", "/api/login", "/api/logout"],
  );
  for (const route of routes.filter((r) => !r.public)) {
    const path = route.path.replace("{id}", "01abc").replace("{request_id}", "1");
    for (
      const credentials of [{}, { token: "bonsai_not-a-token" }, { cookie: "bonsai_session=x" }]
    ) {
      const res = await call(server.url, path, {
        method: route.method.toUpperCase(),
        body: route.method === "get" || route.method === "delete" ? undefined : {},
        ...credentials,
      });
      assert.equal(res.status, 401, `${route.method} ${path} ${JSON.stringify(credentials)}`);
      assert.equal((res.json as { error: { code: string } }).error.code, "UNAUTHENTICATED");
    }
  }
  assert.equal((await call(server.url, "/api/health")).status, 200);
  assert.equal((await call(server.url, "/api/user/sessions", { token })).status, 200);
});

Deno.test("bonsai serve: token and password logins, cookies, logout, revocation, rate limit, Host and Origin", async (t) => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const env = baseEnv(home);
  const { token, id } = await newToken(dir.path, env, "laptop");
  const spare = await newToken(dir.path, env, "spare");
  // The password is set as a person would, through the prompter (twice, the same).
  const { world } = testWorld({
    home,
    prompter: new ScriptedPrompter(true, ["correct horse battery", "correct horse battery"]),
  });
  assert.equal(await cli(world, "serve", "--set-password"), 0);
  await using server = await ServeProcess.start({ cwd: dir.path, env });
  const origin = server.url;

  await t.step(
    "the token and the password give a cookie; the cookie works until logout",
    async () => {
      for (const body of [{ token }, { password: "correct horse battery" }]) {
        const login = await call(server.url, "/api/login", { method: "POST", body });
        assert.equal(login.status, 200, login.text);
        const setCookie = login.headers.get("set-cookie")!;
        assert.match(
          setCookie,
          /^bonsai_session=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/,
        );
        const cookie = setCookie.split(";")[0]!;
        assert.equal((await call(server.url, "/api/user/sessions", { cookie })).status, 200);
        const out = await call(server.url, "/api/logout", { method: "POST", cookie, origin });
        assert.equal(out.status, 204);
        assert.match(out.headers.get("set-cookie")!, /Max-Age=0/);
        assert.equal((await call(server.url, "/api/user/sessions", { cookie })).status, 401);
      }
    },
  );

  await t.step("a change made with a cookie needs the server's own Origin (CSRF)", async () => {
    const login = await call(server.url, "/api/login", { method: "POST", body: { token } });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const create = (o?: string) =>
      call(server.url, "/api/user/sessions", {
        method: "POST",
        cookie,
        origin: o,
        body: { title: "csrf" },
      });
    assert.equal((await create()).status, 403);
    assert.equal((await create("http://evil.example")).status, 403);
    assert.equal((await create(origin)).status, 201);
    // Reads by cookie and changes by token need no Origin.
    assert.equal((await call(server.url, "/api/user/sessions", { cookie })).status, 200);
    const byToken = await call(server.url, "/api/user/sessions", {
      method: "POST",
      token,
      body: { title: "by token" },
    });
    assert.equal(byToken.status, 201);
  });

  await t.step("a Host that is not the server's is refused (DNS rebinding)", async () => {
    // fetch() always sends the URL's host, so these go over a raw connection.
    assert.match(
      await rawGet(server.port, "/api/user/sessions", `rebound.example:${server.port}`, token),
      /^HTTP\/1\.1 403 /,
    );
    assert.match(await rawGet(server.port, "/api/health", "evil.example"), /^HTTP\/1\.1 403 /);
    assert.match(
      await rawGet(server.port, "/api/health", `localhost:${server.port}`),
      /^HTTP\/1\.1 200 /,
    );
    assert.match(
      await rawGet(server.port, "/api/health", `127.0.0.1:${server.port}`),
      /^HTTP\/1\.1 200 /,
    );
  });

  await t.step("a revoked token stops working at once, and so do logins made with it", async () => {
    const login = await call(server.url, "/api/login", {
      method: "POST",
      body: { token: spare.token },
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    assert.equal(
      (await call(server.url, "/api/user/sessions", { token: spare.token })).status,
      200,
    );
    const revoked = await runBonsai(["tokens", "revoke", spare.id.slice(0, 8)], {
      cwd: dir.path,
      env,
    });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(
      (await call(server.url, "/api/user/sessions", { token: spare.token })).status,
      401,
    );
    assert.equal((await call(server.url, "/api/user/sessions", { cookie })).status, 401);
    assert.equal((await call(server.url, "/api/user/sessions", { token })).status, 200);
  });

  await t.step("failed logins are rate-limited per client (429 with Retry-After)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await call(server.url, "/api/login", {
        method: "POST",
        body: i % 2 ? { password: "wrong password" } : { token: "bonsai_wrong" },
      });
      statuses.push(res.status);
      if (res.status === 429) assert.match(res.headers.get("retry-after") ?? "", /^\d+$/);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    // Even the right token waits out the limit.
    assert.equal(
      (await call(server.url, "/api/login", { method: "POST", body: { token } })).status,
      429,
    );
  });

  await t.step(
    "tokens list shows ids and names, never a token; secrets reach no file",
    async () => {
      const list = await runBonsai(["tokens", "list", "--json"], { cwd: dir.path, env });
      const rows = JSON.parse(list.stdout) as {
        id: string;
        name: string;
        last_used_at: string | null;
      }[];
      assert.deepEqual(rows.map((r) => r.name), ["laptop"]);
      assert.equal(rows[0]!.id, id);
      assert.ok(rows[0]!.last_used_at, "use is stamped");
      await server.stop();
      for (const file of ["bonsai.db", "bonsai.db-wal"]) {
        let bytes = "";
        try {
          bytes = new TextDecoder("latin1").decode(await Deno.readFile(join(home, file)));
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        }
        assert.ok(!bytes.includes(token), `${file} holds no token`);
        assert.ok(!bytes.includes("correct horse battery"), `${file} holds no password`);
      }
      assert.ok(!server.stderr.join("\n").includes(token), "the log holds no token");
    },
  );
});

Deno.test("bonsai serve: a session driven over HTTP — create, prompt, events, permission, export, rewind, delete", async () => {
  await using dir = await tempDir();
  await using llm = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  const env = baseEnv(home, { OPENAI_BASE_URL: llm.openaiUrl, BONSAI_MODEL: "gpt-4o" });
  const { token } = await newToken(dir.path, env);
  llm.openai(
    {
      events: openai.reply({
        calls: [{
          id: "call_w1",
          name: "write",
          json: '{"path":"notes.txt","content":"hello\\n"}',
        }],
      }),
    },
    { events: openai.reply({ text: "I wrote notes.txt." }) },
    { events: openai.reply({ text: "Second answer." }) },
  );
  await using server = await ServeProcess.start({ cwd: dir.path, env });
  const api = (path: string, c: Parameters<typeof call>[2] = {}) =>
    call(server.url, path, { token, ...c });

  const created = await api("/api/user/sessions", {
    method: "POST",
    body: { title: "Over HTTP", project_path: project },
  });
  assert.equal(created.status, 201, created.text);
  const id = (created.json as { id: string }).id;
  assert.equal(
    (created.json as { project_path: string }).project_path,
    await Deno.realPath(project),
  );

  // Subscribe first, then prompt; answer the permission request from the stream.
  const stream = readEvents(
    `${server.url}/api/user/sessions/${id}/events?until=turn_end`,
    token,
    async (e) => {
      if (e.event === "permission_request") {
        const answered = await api(`/api/user/sessions/${id}/permissions/${e.data.id}`, {
          method: "POST",
          body: { answer: "once" },
        });
        assert.equal(answered.status, 204, answered.text);
      }
    },
  );
  await stream.connected;
  const posted = await api(`/api/user/sessions/${id}/messages`, {
    method: "POST",
    body: { text: "write notes.txt please" },
  });
  assert.equal(posted.status, 202, posted.text);
  const busy = await api(`/api/user/sessions/${id}/messages`, {
    method: "POST",
    body: { text: "again" },
  });
  assert.equal(busy.status, 409, "a second prompt while a turn runs is refused");
  const events = await stream.events;
  const kinds = events.map((e: ServerEvent) => e.event);
  for (
    const kind of ["permission_request", "tool_start", "tool_end", "text", "usage", "turn_end"]
  ) {
    assert.ok(kinds.includes(kind), `the stream carried ${kind}: ${kinds.join(",")}`);
  }
  assert.equal(kinds.at(-1), "turn_end");
  assert.equal(await Deno.readTextFile(join(project, "notes.txt")), "hello\n");

  // A second turn, read the same way.
  const second = readEvents(`${server.url}/api/user/sessions/${id}/events?until=turn_end`, token);
  await second.connected;
  assert.equal(
    (await api(`/api/user/sessions/${id}/messages`, {
      method: "POST",
      body: { text: "and then?" },
    })).status,
    202,
  );
  assert.equal((await second.events).at(-1)!.event, "turn_end");

  const detail = (await api(`/api/user/sessions/${id}`)).json as {
    title: string;
    messages: { seq: number; role: string; text: string }[];
    running: { hosted: boolean; busy: boolean };
  };
  assert.equal(detail.title, "Over HTTP");
  assert.deepEqual(detail.running, { hosted: true, busy: false });
  const prompts = detail.messages.filter((m) => m.role === "user");
  assert.deepEqual(prompts.map((m) => m.text), ["write notes.txt please", "and then?"]);

  // The CLI sees the same data.
  const cliList = await runBonsai(["sessions", "--all", "--json"], { cwd: dir.path, env });
  const apiList = (await api("/api/user/sessions")).json as {
    sessions: { id: string; message_count: number }[];
  };
  const cliRows = JSON.parse(cliList.stdout) as { id: string; message_count: number }[];
  assert.deepEqual(
    cliRows.map((r) => [r.id, r.message_count]),
    apiList.sessions.map((r) => [r.id, r.message_count]),
  );

  const exported = await api(`/api/user/sessions/${id}/export`, { method: "POST" });
  assert.equal(exported.status, 200, exported.text);
  const file = (exported.json as { path: string; messages: number; bytes: number }).path;
  assert.ok(file.startsWith(join(await Deno.realPath(project), "对话")), file);
  assert.match(await Deno.readTextFile(file), /write notes\.txt please/);

  // Rewind to before the second prompt, with the file left alone (that turn wrote nothing).
  const rewound = await api(`/api/user/sessions/${id}`, {
    method: "PUT",
    body: { rewind_to: prompts[1]!.seq, pinned: true },
  });
  assert.equal(rewound.status, 200, rewound.text);
  const after = (await api(`/api/user/sessions/${id}`)).json as {
    pinned: boolean;
    messages: { role: string; text: string }[];
  };
  assert.equal(after.pinned, true);
  assert.deepEqual(after.messages.filter((m) => m.role === "user").map((m) => m.text), [
    "write notes.txt please",
  ]);
  const linked =
    (rewound.json as { rewind: { linked_session: { id: string } } }).rewind.linked_session.id;
  const undo = (await api(`/api/user/sessions/${linked}`)).json as { messages: { role: string }[] };
  assert.equal(
    undo.messages.filter((m) => m.role === "user").length,
    2,
    "the linked session holds it all",
  );

  // Delete: the session and everything recorded with it.
  assert.equal((await api(`/api/user/sessions/${id}`, { method: "DELETE" })).status, 204);
  assert.equal((await api(`/api/user/sessions/${id}`)).status, 404);
  await server.stop();
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    for (const table of ["messages", "tool_calls", "ledger"]) {
      const row = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE session_id = ?`).get(id) as {
        n: number;
      };
      assert.equal(row.n, 0, `${table} rows of the deleted session`);
    }
  } finally {
    db.close();
  }
});

Deno.test("bonsai serve: SIGTERM during a turn saves it and ends the session with a reason; a session live elsewhere is 409", async () => {
  await using dir = await tempDir();
  await using llm = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  const env = baseEnv(home, { OPENAI_BASE_URL: llm.openaiUrl, BONSAI_MODEL: "gpt-4o" });
  const { token } = await newToken(dir.path, env);
  llm.openai({
    events: openai.reply({ text: "A long answer that never ends", split: 4 }),
    hangAfter: 3,
  });
  const first = await ServeProcess.start({ cwd: dir.path, env });
  const api = (base: string, path: string, c: Parameters<typeof call>[2] = {}) =>
    call(base, path, { token, ...c });
  const id = ((await api(first.url, "/api/user/sessions", {
    method: "POST",
    body: { project_path: project },
  })).json as { id: string }).id;
  const stream = readEvents(`${first.url}/api/user/sessions/${id}/events`, token);
  await stream.connected;
  assert.equal(
    (await api(first.url, `/api/user/sessions/${id}/messages`, {
      method: "POST",
      body: { text: "go on" },
    })).status,
    202,
  );
  // Wait until the reply is streaming, then see that another server refuses the session.
  for (let i = 0; i < 200 && llm.framesSent < 2; i++) await new Promise((r) => setTimeout(r, 25));
  await using second = await ServeProcess.start({ cwd: dir.path, env });
  const refused = await api(second.url, `/api/user/sessions/${id}/messages`, {
    method: "POST",
    body: { text: "me too" },
  });
  assert.equal(refused.status, 409, refused.text);
  assert.match(
    (refused.json as { error: { message: string } }).error.message,
    /live in process \d+/,
  );

  const status = await first.stop("SIGTERM");
  assert.equal(status.code, 0);
  const events = await stream.events;
  assert.equal(
    events.at(-1)!.event,
    "turn_end",
    "the stream saw the turn end before the server went",
  );
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT status, end_reason FROM sessions WHERE id = ?").get(id) as {
      status: string;
      end_reason: string;
    };
    assert.deepEqual({ ...row }, { status: "interrupted", end_reason: "sigterm" });
    const texts = db.prepare("SELECT role, status FROM messages WHERE session_id = ? ORDER BY seq")
      .all(id);
    assert.deepEqual(texts.map((m) => m.role), ["user", "assistant"]);
    assert.equal(texts[1]!.status, "cancelled", "the partial reply is kept, marked cancelled");
  } finally {
    db.close();
  }
});

/** A GET over a raw connection, with the Host header given; returns the response head. */
async function rawGet(port: number, path: string, host: string, token?: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const auth = token ? `Authorization: Bearer ${token}\r\n` : "";
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${auth}Connection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buf = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return text;
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the server already
    }
  }
}
