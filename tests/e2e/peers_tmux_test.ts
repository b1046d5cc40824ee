// P3/P4 in two real terminals: two REPLs of one project see each other, a message reaches
// the idle one within 2 s, and a wake registered on a peer fires once when its turn ends.
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
    "two REPLs in tmux: A messages B, B's idle prompt shows it within 2 s; B waits on A and is woken once",
  ignore: !hasTmux(),
  async fn() {
    await using dir = await tempDir();
    await using server = await LoopbackServer.start();
    const home = join(dir.path, "home");
    const work = join(dir.path, "work");
    await Deno.mkdir(work);
    const wakes: string[] = [];
    server.route((_route, body) => {
      const messages = body.messages as { role: string; content: string | null }[];
      const last = String(messages.at(-1)!.content);
      if (last.includes("[Wake from peer session")) {
        wakes.push(last);
        return { events: openai.reply({ text: "Beta carries on after the wake." }) };
      }
      if (last.includes("finish the parser")) {
        return { events: openai.reply({ text: "Alpha finished the parser." }) };
      }
      return { events: openai.reply({ text: `Answer ${server.requests.length}.` }) };
    });
    const env = baseEnv(home, {
      OPENAI_BASE_URL: server.openaiUrl,
      BONSAI_MODEL: "gpt-4o",
      COLUMNS: "120",
    });
    const deno = Deno.execPath();
    await using a = await Tmux.start([deno, "run", "-A", MAIN], { cwd: work, env });
    await a.waitFor(/Type a request/);
    await a.type("/title Alpha");
    await a.waitFor(/Session titled 'Alpha'/);
    await using b = await Tmux.start([deno, "run", "-A", MAIN], { cwd: work, env });
    await b.waitFor(/Type a request/);
    await b.type("/title Beta");
    await b.waitFor(/Session titled 'Beta'/);
    const alpha = sessionId(home, "Alpha");
    const beta = sessionId(home, "Beta");

    // Each sees the other.
    await a.type("/peers");
    await a.waitFor(/Beta/);
    await a.keys("q");

    // A sends; B is idle at its prompt and shows the message within 2 s.
    await a.type(`/peers send ${beta.slice(0, 8)} please look at the lexer next`);
    await a.waitFor(/Sent to 'Beta'/);
    const sent = performance.now();
    await b.waitFor(/message from 'Alpha'.*please look at the lexer next/, 2_000);
    const shownAfter = performance.now() - sent;
    assert.ok(shownAfter < 2_000, `shown after ${Math.round(shownAfter)} ms`);

    // B waits on A; A finishes a turn; B is woken once and carries on by itself.
    await b.type(`/peers wait ${alpha.slice(0, 8)}`);
    await b.waitFor(/will be woken once when 'Alpha'/);
    await a.type("please finish the parser");
    await a.waitFor(/Alpha finished the parser\./);
    await b.waitFor(/woken by 'Alpha'.*finished its turn/);
    await b.waitFor(/Beta carries on after the wake\./);
    // A second turn of A wakes no one: the wake was one-shot.
    await a.type("and one more thing");
    await a.waitFor(/Answer \d+\./);
    await new Promise((r) => setTimeout(r, 1_500));
    const screen = await b.screen();
    assert.equal(screen.match(/woken by 'Alpha'/g)?.length, 1, screen);
    assert.equal(wakes.length, 1, "B's model saw the wake once");
    assert.match(wakes[0]!, /Alpha finished the parser/);

    // The mailbox holds one message and one wake, both acknowledged by B.
    const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
    try {
      const rows = db.prepare(
        `SELECT m.kind, d.consumer, d.acked_at IS NOT NULL AS acked FROM mailbox m
         JOIN deliveries d ON d.message_id = m.id ORDER BY m.id`,
      ).all().map((r) => ({ ...r }));
      assert.deepEqual(rows, [
        { kind: "message", consumer: beta, acked: 1 },
        { kind: "wake", consumer: beta, acked: 1 },
      ]);
    } finally {
      db.close();
    }
    await a.type("/quit");
    await b.type("/quit");
    await a.waitFor(/\[exit 0\]/);
    await b.waitFor(/\[exit 0\]/);
  },
});

function sessionId(home: string, title: string): string {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT id FROM sessions WHERE title = ?").get(title) as
      | { id: string }
      | undefined;
    assert.ok(row, `a session titled '${title}'`);
    return row.id;
  } finally {
    db.close();
  }
}
