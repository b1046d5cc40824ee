import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { openai } from "../support/sse_scripts.ts";
import { baseEnv } from "../support/bonsai_process.ts";
import { hasTmux, Tmux } from "../support/tmux.ts";
import { tempDir } from "../support/temp.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test({
  name:
    "REPL in a real terminal: tool call, /perf, /ctx, /title, /new, /resume, /quit; bonsai -c restores context and cache key",
  ignore: !hasTmux(),
  async fn() {
    await using dir = await tempDir();
    await using server = await LoopbackServer.start();
    const home = join(dir.path, "home");
    const work = join(dir.path, "work");
    await Deno.mkdir(work);
    await Deno.writeTextFile(join(work, "notes.md"), "# notes\n");
    let listed = 0;
    server.route((_route, body) => {
      const messages = body.messages as { role: string; content: string | null }[];
      const last = messages.at(-1)!;
      if (last.role === "user" && String(last.content).includes("list the files")) {
        listed++;
        return {
          events: openai.reply({
            text: "Looking.",
            calls: [{ id: `c${listed}`, name: "glob", json: '{"pattern":"*.md"}' }],
          }),
        };
      }
      return { events: openai.reply({ text: `Answer number ${server.requests.length}.` }) };
    });
    const env = baseEnv(home, {
      OPENAI_BASE_URL: server.openaiUrl,
      BONSAI_MODEL: "gpt-4o",
      COLUMNS: "120",
    });
    const deno = Deno.execPath();
    {
      await using term = await Tmux.start([deno, "run", "-A", MAIN], { cwd: work, env });
      await term.waitFor(/Type a request/);
      await term.type("please list the files here");
      await term.waitFor(/● glob \*\.md[\s\S]*1 files[\s\S]*Answer number 2\./);
      await term.type("/perf");
      await term.waitFor(/LANE\s+MODEL[\s\S]*parent\s+gpt-4o-2024-08-06\s+2/);
      await term.type("/ctx");
      await term.waitFor(/Context [\d.k]+ of 128k tokens[\s\S]*tool results/);
      await term.type("/title Tmux session");
      await term.waitFor(/Session titled 'Tmux session'/);
      await term.type("/new");
      await term.waitFor(/New session/);
      await term.type("a second topic");
      await term.waitFor(/Answer number 3\./);
      const first = firstSession(home);
      await term.type(`/resume ${first.id}`);
      await term.waitFor(/Resumed Tmux session/);
      await term.type("back to the first topic");
      await term.waitFor(/Answer number 4\./);
      await term.type("/quit");
      await term.waitFor(/\[exit 0\]/);
    }
    const row = firstSession(home);
    assert.equal(row.status, "completed");
    assert.equal(row.end_reason, "quit");

    // bonsai -c: the most recently updated session (the one just quit) with its context and cache key.
    const before = server.requests.length;
    await using again = await Tmux.start([deno, "run", "-A", MAIN, "-c"], { cwd: work, env });
    await again.waitFor(/Resumed 'Tmux session'/);
    await again.type("and now?");
    await again.waitFor(/Answer number \d+\./);
    await again.keys("C-d");
    await again.waitFor(/\[exit 0\]/);
    const request = server.requests[before]!.body as {
      messages: { role: string }[];
      prompt_cache_key: string;
    };
    assert.equal(request.prompt_cache_key, row.cache_key, "the cache key is restored");
    // system, the first session's context (prompt, tool call, result, answer, prompt, answer), the new prompt
    assert.deepEqual(request.messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
  },
});

function firstSession(home: string) {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    return { ...db.prepare("SELECT * FROM sessions WHERE title = 'Tmux session'").get() } as {
      id: string;
      status: string;
      end_reason: string;
      cache_key: string;
    };
  } finally {
    db.close();
  }
}
