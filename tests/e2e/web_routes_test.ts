// The API routes the web view added: a transcript window and the Markdown download.
import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { call, ServeProcess } from "../support/serve_process.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("bonsai serve: GET transcript windows and GET markdown downloads, behind the login", async () => {
  await using dir = await tempDir();
  const env = baseEnv(join(dir.path, "home"));
  const made = await runBonsai(["tokens", "create", "--json"], { cwd: dir.path, env });
  const token = JSON.parse(made.stdout).token as string;
  await using server = await ServeProcess.start({ cwd: dir.path, env });
  const api = (path: string, c: Parameters<typeof call>[2] = {}) =>
    call(server.url, path, { token, ...c });
  const id = ((await api("/api/user/sessions", { method: "POST", body: { title: '日本 "q"' } }))
    .json as { id: string }).id;
  for (const text of ["one", "two", "three"]) {
    const res = await api(`/api/user/sessions/${id}/messages`, {
      method: "POST",
      body: { text, run: false },
    });
    assert.equal(res.status, 201, res.text);
  }
  const page = (await api(`/api/user/sessions/${id}/transcript?limit=2`)).json as {
    session: { id: string };
    first_seq: number;
    last_seq: number;
    messages: { text: string }[];
    running: { hosted: boolean };
  };
  assert.equal(page.session.id, id);
  assert.deepEqual(page.messages.map((m) => m.text), ["two", "three"]);
  assert.deepEqual([page.first_seq, page.last_seq], [1, 3]);
  const after = (await api(`/api/user/sessions/${id}/transcript?after=1&limit=1`)).json as {
    messages: { text: string }[];
  };
  assert.deepEqual(after.messages.map((m) => m.text), ["two"]);
  const both = await api(`/api/user/sessions/${id}/transcript?after=1&before=3`);
  assert.equal(both.status, 400);
  assert.equal((both.json as { error: { data: { field: string } } }).error.data.field, "before");
  assert.equal((await api(`/api/user/sessions/${id}/transcript?limit=-1`)).status, 400);
  assert.equal((await api("/api/user/sessions/zzz/transcript")).status, 404);

  const md = await api(`/api/user/sessions/${id}/markdown`);
  assert.equal(md.status, 200);
  assert.match(md.headers.get("content-type")!, /^text\/markdown/);
  const disposition = md.headers.get("content-disposition")!;
  assert.match(disposition, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
  assert.doesNotMatch(disposition.split(";")[1]!, /日本/);
  assert.match(decodeURIComponent(disposition.split("''")[1]!), /日本/);
  assert.match(md.text, /three/);
  // Rendered, not written: no export folder appears in the workspace.
  const workspace = join(dir.path, "home", "workspace");
  const entries = [...Deno.readDirSync(workspace)].map((e) => e.name);
  assert.deepEqual(entries, []);

  for (const path of [`/api/user/sessions/${id}/transcript`, `/api/user/sessions/${id}/markdown`]) {
    assert.equal((await call(server.url, path)).status, 401, path);
  }
});
