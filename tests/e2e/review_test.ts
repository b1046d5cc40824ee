import assert from "node:assert/strict";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { existsSync } from "node:fs";
import { baseEnv, runBonsai, spawnBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";
import { query, until } from "../support/tool_turn.ts";

async function setup(dir: string, server: LoopbackServer) {
  const home = join(dir, "home");
  const work = join(dir, "work");
  await Deno.mkdir(work);
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  return { home, work: await Deno.realPath(work), env };
}

const writeTurn = (path: string, content: string) => ({
  events: anthropic.reply({
    calls: [{ id: `w_${path}`, name: "write", json: JSON.stringify({ path, content }) }],
  }),
});

Deno.test("--verify runs after a run that changed files; --self-review reviews the session's own diff; both stored", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  const findings = JSON.stringify([{
    severity: "medium",
    path: "calc.sh",
    message: "no input validation",
  }]);
  server.anthropic(
    writeTurn("calc.sh", "echo $((1 + 1))\n"),
    { events: anthropic.reply({ text: "Wrote calc.sh." }) },
    {
      events: anthropic.reply({
        text: `Here is my review:\n${findings}`,
        usage: { input_tokens: 300, output_tokens: 40 },
      }),
    },
  );
  const out = await runBonsai(
    [
      "-p",
      "write a calculator",
      "--json",
      "--allow",
      "write",
      "--verify",
      "sh calc.sh | grep -q 2",
      "--self-review",
    ],
    { cwd: s.work, env: s.env },
  );
  assert.equal(out.code, 0, out.stderr);
  const json = JSON.parse(out.stdout);
  assert.equal(json.verification.passed, true);
  assert.equal(json.verification.exit_code, 0);
  assert.deepEqual(json.self_review.findings, [{
    severity: "medium",
    path: "calc.sh",
    message: "no input validation",
  }]);
  // The review request carried the session's diff and no tools.
  const reviewRequest = server.requests[2]!.body as {
    tools?: unknown;
    messages: { content: { text: string }[] }[];
  };
  assert.equal(reviewRequest.tools, undefined);
  assert.match(reviewRequest.messages[0]!.content[0]!.text, /\+\+\+ b\/calc.sh/);
  assert.equal(
    json.usage.input_tokens,
    10 + 10 + 300,
    "the review's tokens count in the run's usage",
  );

  const show = await runBonsai(["sessions", "show", json.session_id, "--json"], {
    cwd: s.work,
    env: s.env,
  });
  const detail = JSON.parse(show.stdout);
  const [verify, review] = detail.verification_runs;
  assert.equal(verify.kind, "verify");
  assert.equal(verify.command, "sh calc.sh | grep -q 2");
  assert.equal(verify.exit_code, 0);
  assert.ok(verify.duration_ms >= 0);
  assert.equal(review.kind, "self-review");
  assert.deepEqual(review.findings, [{
    severity: "medium",
    path: "calc.sh",
    message: "no input validation",
  }]);
  assert.deepEqual(detail.changed_files.map((f: { path: string }) => f.path), ["calc.sh"]);
  const lanes = await runBonsai(["sessions", "show", json.session_id], { cwd: s.work, env: s.env });
  assert.match(lanes.stdout, /verify\s+sh calc.sh \| grep -q 2 → passed/);
  assert.match(lanes.stdout, /review\s+1 finding/);
});

Deno.test("a failing verification exits 8; a run that changed nothing is not verified", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  server.anthropic(writeTurn("a.txt", "a\n"), { events: anthropic.reply({ text: "done" }) });
  const failing = await runBonsai([
    "-p",
    "change",
    "--json",
    "--allow",
    "write",
    "--verify",
    "exit 3",
  ], { cwd: s.work, env: s.env });
  assert.equal(failing.code, 8, failing.stderr);
  const json = JSON.parse(failing.stdout);
  assert.equal(json.status, "completed");
  assert.deepEqual([json.verification.passed, json.verification.exit_code], [false, 3]);
  server.anthropic({ events: anthropic.reply({ text: "just talking" }) });
  const idle = await runBonsai(["-p", "talk", "--json", "--verify", "exit 3"], {
    cwd: s.work,
    env: s.env,
  });
  assert.equal(idle.code, 0);
  assert.equal(JSON.parse(idle.stdout).verification, null);
});

Deno.test("a signal during verification cancels it: no verdict is stored, the exit code and end state are the signal's", async (t) => {
  for (
    const [signal, exit, status, reason] of [
      ["SIGTERM", 143, "interrupted", "sigterm"],
      ["SIGINT", 130, "cancelled", "sigint"],
    ] as const
  ) {
    await t.step(signal, async () => {
      await using dir = await tempDir();
      await using server = await LoopbackServer.start();
      const s = await setup(dir.path, server);
      server.anthropic(writeTurn("a.txt", "a\n"), {
        events: anthropic.reply({ text: "Wrote a.txt." }),
      });
      const child = spawnBonsai(
        ["-p", "write a", "--allow", "write", "--verify", "touch checking && sleep 8", "--json"],
        { cwd: s.work, env: s.env },
      );
      await until(() => existsSync(join(s.work, "checking")), "the check to start");
      child.kill(signal);
      const out = await child.output();
      assert.equal(out.code, exit, new TextDecoder().decode(out.stderr));
      if (signal === "SIGINT") {
        assert.equal(JSON.parse(new TextDecoder().decode(out.stdout)).status, "cancelled");
      }
      assert.deepEqual(query(s.home, "SELECT count(*) AS n FROM verification_runs"), [{ n: 0 }]);
      assert.deepEqual(query(s.home, "SELECT status, end_reason FROM sessions"), [{
        status,
        end_reason: reason,
      }]);
    });
  }
});
