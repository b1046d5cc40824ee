// The web view in a real Chromium (playwright-core with the installed executable) against a
// real `bonsai serve` with the loopback LLM and a generated history. One browser and one
// server for every step, to keep the suite fast.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { homeAt } from "../../core/home.ts";
import { ulidSource } from "../../core/ids.ts";
import { createRedactor } from "../../core/secrets.ts";
import { openDatabase } from "../../core/storage/db.ts";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { generateHistory } from "../../scripts/gen_history.ts";
import { generateLedger } from "../../scripts/gen_ledger.ts";
import { ASSETS } from "../../web/assets.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { chromiumPath, launchBrowser } from "../support/browser.ts";
import { seededRandom } from "../support/db.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { call, ServeProcess } from "../support/serve_process.ts";
import { openai } from "../support/sse_scripts.ts";
import { tempDir } from "../support/temp.ts";

const XSS_TITLE = `<img src=x onerror="window.__xss='title'">`;
const XSS_TEXT = [
  "zebracorn: <script>window.__xss='script'</script>",
  "",
  "[click me](javascript:window.__xss='link') and <b onmouseover=\"window.__xss='b'\">bold</b>",
  "",
  "```html\n<script>window.__xss='fence'</script>\n```",
].join("\n");

/** Writes a session with hostile content through the storage layer (as an import would). */
async function seedHostile(home: string, project: string): Promise<string> {
  const clock = { now: () => Date.UTC(2026, 9, 20, 12) };
  const db = await openDatabase({ home: homeAt(home), clock, redactor: createRedactor() });
  try {
    const ids = ulidSource(clock, seededRandom(16));
    const sessions = new SessionStore(db, ids);
    const messages = new MessageStore(db);
    return db.write(() => {
      const s = sessions.create({ projectPath: project, title: XSS_TITLE, status: "completed" });
      messages.append(s.id, [
        { role: "user", text: XSS_TEXT },
        { role: "assistant", kind: "thinking", text: "Hidden <script>thinking</script>" },
        {
          role: "assistant",
          kind: "tool_call",
          text: "read",
          toolCallId: "c1",
          toolName: "read",
          toolArgs: '{"path":"<svg onload=alert(1)>"}',
        },
        {
          role: "tool",
          kind: "tool_result",
          text: "<iframe src=javascript:alert(1)>",
          toolCallId: "c1",
          toolName: "read",
          toolResult: "<iframe src=javascript:alert(1)>",
        },
        { role: "assistant", text: `Reply with ${XSS_TEXT}` },
      ]);
      return s.id;
    });
  } finally {
    db.close();
  }
}

async function noOverflow(page: Page): Promise<number> {
  return await page.evaluate<number>("document.documentElement.scrollWidth - innerWidth");
}

Deno.test({
  name: "web view: a person logs in, reads, searches, prompts, approves, cancels, rewinds, exports",
  ignore: chromiumPath() === null,
  async fn(t) {
    await using dir = await tempDir();
    await using llm = await LoopbackServer.start();
    const home = join(dir.path, "home");
    const project = join(dir.path, "project");
    await Deno.mkdir(project);
    await generateHistory({ home, sessions: 120, messages: 12, seed: 7 });
    await generateLedger({ home, rows: 3000, seed: 7 });
    const hostile = await seedHostile(home, await Deno.realPath(project));
    const env = baseEnv(home, { OPENAI_BASE_URL: llm.openaiUrl, BONSAI_MODEL: "gpt-4o" });
    const created = await runBonsai(["tokens", "create", "--json"], { cwd: dir.path, env });
    assert.equal(created.code, 0, created.stderr);
    const token = JSON.parse(created.stdout).token as string;
    await using server = await ServeProcess.start({ cwd: dir.path, env });
    const api = (path: string, c: Parameters<typeof call>[2] = {}) =>
      call(server.url, path, { token, ...c });
    const newSession = async (title: string) =>
      ((await api("/api/user/sessions", {
        method: "POST",
        body: { title, project_path: project },
      })).json as { id: string }).id;

    await using browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: "UTC",
      acceptDownloads: true,
    });
    const problems: string[] = [];
    context.on("console", (m) => {
      // The one failed request a person makes on purpose: the wrong token at login.
      if (m.location().url.endsWith("/api/login") && /\b401\b/.test(m.text())) return;
      if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    context.on("weberror", (e) => problems.push(`page error: ${e.error().message}`));
    const page = await context.newPage();
    const at = (path: string) => page.goto(`${server.url}${path}`);

    await t.step(
      "logged out, every page and asset but the login answers 401 or redirects",
      async () => {
        for (const path of ["/", "/sessions", "/usage", `/session/${hostile}`]) {
          const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
          await res.body?.cancel();
          assert.equal(res.status, 303, path);
          assert.match(res.headers.get("location")!, /^\/login\?next=/);
        }
        for (const [name, asset] of ASSETS) {
          const res = await fetch(`${server.url}/assets/${name}`);
          await res.body?.cancel();
          assert.equal(res.status, asset.public ? 200 : 401, name);
        }
        for (const path of ["/nothing", "/assets/nothing.js"]) {
          const res = await fetch(`${server.url}${path}`);
          await res.body?.cancel();
          assert.equal(res.status, 401, path);
        }
        const login = await fetch(`${server.url}/login`);
        assert.equal(login.status, 200);
        const csp = login.headers.get("content-security-policy")!;
        assert.match(csp, /script-src 'self'/);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
        assert.doesNotMatch(await login.text(), /<script>|<script [^>]*>[^<]/, "no inline script");
      },
    );

    await t.step("log in with a token and come back to the page asked for", async () => {
      await at("/usage");
      assert.match(page.url(), /\/login\?next=%2Fusage$/);
      await page.fill("#secret", "bonsai_wrong");
      await page.press("#secret", "Enter");
      await page.getByRole("status").filter({ hasText: "not valid" }).waitFor();
      await page.fill("#secret", token);
      await page.press("#secret", "Enter");
      await page.waitForURL(/\/usage$/);
      await page.getByRole("tablist").waitFor();
    });

    await t.step("list, page and filter the sessions", async () => {
      await at("/");
      const rows = page.locator("table.sessions tbody tr");
      await rows.first().waitFor();
      assert.equal(await rows.count(), 50);
      await page.getByRole("button", { name: "Older →" }).click();
      await page.getByText("51–100").waitFor();
      await page.getByRole("button", { name: "Older →" }).click();
      await page.getByText(/^101–/).waitFor();
      assert.ok(await page.getByRole("button", { name: "Older →" }).isDisabled());
      await page.getByLabel("Project").fill("/home/dev/src/docs");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/project=/);
      await rows.first().waitFor();
      const projects = await page.locator("table.sessions tbody tr td:nth-child(2)")
        .allTextContents();
      assert.ok(projects.length > 0 && projects.every((p) => p === "docs"), projects.join(","));
      await page.getByLabel("Status").selectOption("failed");
      await page.getByText("No sessions match.").waitFor();
    });

    await t.step(
      "search shows highlighted snippets, and a hit opens the session there",
      async () => {
        await at("/");
        await page.getByLabel("Search messages").fill("zebracorn");
        await page.getByLabel("Search messages").press("Enter");
        const hit = page.locator("ol.hits li").first();
        await hit.waitFor();
        assert.equal(await hit.locator("mark").first().textContent(), "zebracorn");
        await hit.locator("a").click();
        await page.waitForURL(new RegExp(`/session/${hostile}\\?seq=\\d+`));
        await page.locator("li.msg.hit").waitFor();
      },
    );

    await t.step("a hostile transcript stays inert", async () => {
      await at(`/session/${hostile}`);
      await page.locator("ol.transcript li").first().waitFor();
      assert.equal(await page.locator("h1").first().textContent(), XSS_TITLE);
      await page.locator("details.tool summary").first().click();
      await page.locator("li.msg.thinking summary").first().click();
      assert.equal(await page.evaluate<string | undefined>("window.__xss"), undefined);
      assert.equal(await page.locator("main script, main iframe, main img, main svg b").count(), 0);
      const hrefs = await page.locator("main a").evaluateAll((as) =>
        as.map((a) => a.getAttribute("href") ?? "")
      );
      assert.ok(hrefs.every((h) => !/^\s*javascript:/i.test(h)), hrefs.join(" "));
      assert.ok(
        (await page.locator("ol.transcript").textContent())!.includes("[click me]") ||
          (await page.locator("ol.transcript").textContent())!.includes("click me"),
      );
      assert.equal(await page.locator("main [onmouseover], main [onerror]").count(), 0);
    });

    const live = await newSession("Live from the browser");
    await t.step("send a prompt with the keyboard and see the answer stream in", async () => {
      llm.openai({
        events: openai.reply({ text: "Streaming answer about **bonsai** trees.", split: 3 }),
        delayMs: 40,
      });
      await at(`/session/${live}`);
      await page.getByRole("textbox", { name: "Message" }).fill("Tell me about bonsai");
      await page.getByRole("textbox", { name: "Message" }).press("Control+Enter");
      await page.locator(".live .streaming").waitFor();
      const answer = page.locator("ol.transcript li.msg.assistant").filter({
        hasText: "Streaming answer about bonsai trees.",
      });
      await answer.waitFor();
      assert.equal(await answer.locator("strong").textContent(), "bonsai");
      await page.locator("ol.transcript li.turn-usage").first().waitFor();
      assert.ok(await page.getByRole("button", { name: "Send" }).isEnabled());
    });

    await t.step("approve a write permission in the page and see the file written", async () => {
      llm.openai(
        {
          events: openai.reply({
            calls: [{
              id: "call_w1",
              name: "write",
              json: '{"path":"notes.txt","content":"hi\\n"}',
            }],
          }),
        },
        { events: openai.reply({ text: "I wrote notes.txt." }) },
      );
      await page.getByRole("textbox", { name: "Message" }).fill("Write notes.txt");
      await page.getByRole("button", { name: "Send" }).click();
      const allow = page.getByRole("button", { name: "Allow once" });
      await allow.waitFor();
      // Keyboard only: the first answer has the focus.
      assert.equal(
        await page.evaluate<string>("document.activeElement?.textContent"),
        "Allow once",
      );
      await page.keyboard.press("Enter");
      await page.locator("ol.transcript").getByText("I wrote notes.txt.").waitFor();
      assert.equal(await Deno.readTextFile(join(project, "notes.txt")), "hi\n");
      const tool = page.locator("details.tool").filter({ hasText: "write" }).last();
      await tool.locator("summary").click();
      assert.match((await tool.textContent())!, /notes\.txt/);
    });

    await t.step("cancel a running turn", async () => {
      llm.openai({
        events: openai.reply({ text: "This goes on and on and on", split: 2 }),
        hangAfter: 3,
      });
      await page.getByRole("textbox", { name: "Message" }).fill("Go on forever");
      await page.getByRole("button", { name: "Send" }).click();
      const cancel = page.getByRole("button", { name: "Cancel turn" });
      await cancel.waitFor();
      await page.locator(".live .streaming").waitFor();
      await cancel.click();
      await page.getByText(/Turn ended: cancelled/).waitFor();
      assert.ok(await page.getByRole("button", { name: "Send" }).isEnabled());
    });

    await t.step("rewind to an earlier prompt, reverting the file", async () => {
      const prompts = page.locator("ol.transcript li.msg.user");
      assert.equal(await prompts.count(), 3);
      await prompts.nth(1).getByRole("button", { name: /Rewind/ }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("cannot be undone").waitFor();
      await dialog.getByLabel(/revert the files/).check();
      await dialog.getByRole("button", { name: "Rewind" }).click();
      await page.getByText(/Rewound; the later messages are in session/).waitFor();
      await page.waitForFunction(
        'document.querySelectorAll("ol.transcript li.msg.user").length === 1',
      );
      assert.equal(
        await page.getByRole("textbox", { name: "Message" }).inputValue(),
        "Write notes.txt",
      );
      await assert.rejects(Deno.stat(join(project, "notes.txt")), Deno.errors.NotFound);
    });

    await t.step("export downloads the Markdown", async () => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.locator("header.session-head").getByRole("link", { name: /Export/ }).click(),
      ]);
      assert.match(download.suggestedFilename(), /Live-from-the-browser-\w{8}\.md$/);
      const text = await Deno.readTextFile((await download.path())!);
      assert.match(text, /Tell me about bonsai/);
    });

    await t.step(
      "the usage page draws the period and its numbers are `bonsai usage --json`'s",
      async () => {
        const cli = await runBonsai(
          ["usage", "--json", "--since", "2026-02-01", "--until", "2026-04-30"],
          { cwd: dir.path, env },
        );
        assert.equal(cli.code, 0, cli.stderr);
        const usage = JSON.parse(cli.stdout);
        await at("/usage?since=2026-02-01&until=2026-04-30");
        await page.locator("svg.calendar").waitFor();
        const cells = await page.locator("svg.calendar rect.cell").evaluateAll((rs) =>
          rs.map((r) => [r.getAttribute("data-date"), Number(r.getAttribute("data-tokens"))])
        );
        assert.equal(cells.length, 89, "one cell per day from February 1 to April 30");
        const expected =
          (usage.activity.heatmap.calendar.weeks as ({ date: string; tokens: number } | null)[][])
            .flat().filter((c) => c !== null && c.date >= "2026-02-01")
            .map((c) => [c!.date, c!.tokens]);
        assert.deepEqual(cells, expected);
        await page.getByText("Numbers: per day").click();
        await page.locator("#table-days tbody tr").first().waitFor();
        const days = await page.locator("#table-days tbody tr").evaluateAll((trs) =>
          trs.map((tr) => tr.children[6]!.textContent!.replace(/\D/g, ""))
        );
        assert.deepEqual(
          days,
          usage.activity.days.map((d: { total_tokens: number }) => String(d.total_tokens)),
        );
        const total = await page.locator("#usage-totals div").filter({ hasText: "Tokens" })
          .locator("dd").textContent();
        assert.equal(total!.replace(/\D/g, ""), String(usage.activity.totals.total_tokens));
        await page.getByRole("tab", { name: "Models" }).focus();
        await page.keyboard.press("ArrowRight");
        await page.getByRole("tabpanel").filter({ hasText: "Total" }).waitFor();
        await page.getByText("Numbers: per month").click();
        await page.locator("#table-months tbody tr").first().waitFor();
        const months = await page.locator("#table-months tbody tr td:first-child")
          .allTextContents();
        assert.deepEqual(months, usage.cost.months.map((m: { period: string }) => m.period));
        await page.getByRole("tab", { name: "Models" }).click();
        await page.getByText("Numbers: models").click();
        await page.locator("#table-models tbody tr").first().waitFor();
        const shares = await page.locator("#table-models tbody tr td:last-child").allTextContents();
        assert.deepEqual(
          shares,
          usage.models.models.map((m: { share: number }) => `${(m.share * 100).toFixed(1)}%`),
        );
        const shot = Deno.env.get("BONSAI_WEB_SCREENSHOTS");
        if (shot) {
          await page.getByRole("tab", { name: "Activity" }).click();
          await page.screenshot({ path: join(shot, "web_usage.png") });
          await at("/");
          await page.locator("table.sessions tbody tr").first().waitFor();
          await page.screenshot({ path: join(shot, "web_sessions.png") });
        }
      },
    );

    await t.step("no horizontal overflow at 390 px", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      for (
        const path of ["/", `/session/${live}`, `/session/${hostile}`, "/usage", "/?q=zebracorn"]
      ) {
        await at(path);
        await page.locator("main h1").first().waitFor();
        await page.waitForLoadState("networkidle").catch(() => {});
        assert.ok((await noOverflow(page)) <= 0, `${path} overflows at 390 px`);
      }
    });

    await t.step("log out: the pages are closed again", async () => {
      await at("/");
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(/\/login/);
      await at("/usage");
      assert.match(page.url(), /\/login\?next=/);
    });

    await t.step("no console errors on any page", () => {
      assert.deepEqual(problems, []);
    });
    await context.close();
  },
});
