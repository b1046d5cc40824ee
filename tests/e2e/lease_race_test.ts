// P2 with real processes: writers of one project serialise through its write lease; no
// update is lost, and a holder paused past its lease commits nothing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Prng } from "../../scripts/lib/prng.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { tempDir } from "../support/temp.ts";

const HOLDER = new URL("../support/lease_holder.ts", import.meta.url).pathname;

/**
 * A scripted model per writer: read shared.txt, put "line N" before END, and when the write
 * is refused (the file changed, the lease was lost), read again and redo it.
 */
function writerScript(server: LoopbackServer, attempts: Map<number, number>) {
  let ids = 0;
  server.route((_route, body) => {
    const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
    const first = messages[0]!.content.find((b) => b.type === "text")!.text as string;
    const n = Number(/append line (\d+)/.exec(first)![1]);
    const last = messages.at(-1)!.content.find((b) => b.type === "tool_result");
    const asked = messages.at(-2)?.content.find((b) => b.type === "tool_use")?.name;
    const call = (name: string, input: unknown) => ({
      events: anthropic.reply({
        calls: [{ id: `toolu_${++ids}`, name, json: JSON.stringify(input) }],
      }),
    });
    const read = () => call("read", { path: "shared.txt" });
    if (!last) return read();
    const result = String(last.content);
    if (asked === "read") {
      attempts.set(n, (attempts.get(n) ?? 0) + 1);
      return call("edit", { path: "shared.txt", old_string: "END", new_string: `line ${n}\nEND` });
    }
    if (/read it again/.test(result)) return read();
    return { events: anthropic.reply({ text: `done ${n}` }) };
  });
}

Deno.test("8 processes edit one file through the write lease: every edit lands on the latest content, none is lost", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(work, "shared.txt"), "END\n");
  const attempts = new Map<number, number>();
  writerScript(server, attempts);
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  // A first run makes the database, so the eight start together on an existing one.
  assert.equal((await runBonsai(["sessions"], { cwd: work, env })).code, 0);
  const runs = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) =>
        runBonsai(
          ["-p", `append line ${i + 1}`, "--allow", "write", "--json", "--max-turns", "40"],
          {
            cwd: work,
            env,
          },
        ),
    ),
  );
  for (const [i, r] of runs.entries()) {
    assert.equal(r.code, 0, `writer ${i + 1}: ${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).result, `done ${i + 1}`);
  }
  const lines = (await Deno.readTextFile(join(work, "shared.txt"))).trim().split("\n");
  assert.equal(lines.at(-1), "END");
  assert.deepEqual(
    lines.slice(0, -1).sort(),
    Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).sort(),
    "every writer's line is there exactly once",
  );
  const tries = [...attempts.values()].reduce((a, b) => a + b, 0);
  assert.ok(tries >= 8, `${tries} edit attempts`);
});

Deno.test("a lease holder stopped (SIGSTOP) past its lease while another writer commits: its late commit is refused, every time", async (t) => {
  const rng = new Prng(Number(Deno.env.get("BONSAI_CRASH_SEED") ?? 20261201));
  for (let trial = 0; trial < 3; trial++) {
    await t.step(`trial ${trial + 1}`, async () => {
      await using dir = await tempDir();
      await using server = await LoopbackServer.start();
      const home = join(dir.path, "home");
      const work = await Deno.realPath(
        await Deno.mkdir(join(dir.path, "work")).then(() => join(dir.path, "work")),
      );
      const file = join(work, "shared.txt");
      await Deno.writeTextFile(file, "END\n");
      writerScript(server, new Map());
      const env = baseEnv(home, {
        ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
        ANTHROPIC_BASE_URL: server.url,
      });
      const ttl = 400;
      const holder = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", HOLDER, home, work, file, String(ttl)],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      while (true) {
        try {
          await Deno.stat(join(home, "held"));
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      holder.kill("SIGSTOP");
      await new Promise((r) => setTimeout(r, ttl + 100 + Math.floor(rng.next() * 300)));
      const writer = await runBonsai(["-p", "append line 1", "--allow", "write", "--json"], {
        cwd: work,
        env,
      });
      assert.equal(writer.code, 0, writer.stderr);
      await Deno.writeTextFile(join(home, "go"), "");
      holder.kill("SIGCONT");
      const out = await holder.output();
      const decoded = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const verdict = JSON.parse(decoded) as { committed: boolean; refused: string };
      assert.equal(verdict.committed, false);
      assert.match(verdict.refused, /write lease was taken by another process/);
      assert.equal(
        await Deno.readTextFile(file),
        "line 1\nEND\n",
        "the other writer's edit stands",
      );
    });
  }
});
