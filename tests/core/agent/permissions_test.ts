import assert from "node:assert/strict";
import {
  denialReason,
  describeDecision,
  type PermissionAnswer,
  PermissionGate,
  type PermissionRequest,
  type PermissionRule,
  type PermissionRules,
} from "../../../core/agent/permissions.ts";
import type { RuleKind } from "../../../core/agent/rule_patterns.ts";

const ROOT = "/work/project";

/** Rules in memory, as the session host's PermissionAdmin gives them. */
class MemoryRules implements PermissionRules {
  readonly rules: PermissionRule[] = [];
  #seq = 0;
  add(
    effect: "allow" | "deny",
    kind: RuleKind,
    pattern: string,
    projectRoot: string | null = null,
  ) {
    const rule = { id: `01rule${++this.#seq}`.padEnd(26, "x"), effect, kind, pattern, projectRoot };
    this.rules.push(rule);
    return rule;
  }
  list() {
    return this.rules;
  }
  saveForProject(kind: RuleKind, patterns: readonly string[]) {
    return patterns.map((p) => this.add("allow", kind, p, ROOT));
  }
}

const exec = (command: string): PermissionRequest => ({
  tool: "exec",
  kind: "exec",
  summary: command,
  subject: command,
});
const write = (path: string): PermissionRequest => ({
  tool: "write",
  kind: "write",
  summary: path,
  subject: path,
});

function gate(
  rules: MemoryRules,
  options: { allow?: ("write" | "exec")[]; answers?: PermissionAnswer[] } = {},
) {
  const asked: PermissionRequest[] = [];
  const answers = options.answers;
  const g = new PermissionGate({
    allow: options.allow,
    rules,
    root: ROOT,
    ask: answers
      ? (request) => {
        asked.push(request);
        return Promise.resolve(answers.shift() ?? "deny");
      }
      : null,
  });
  const decide = (r: PermissionRequest) => g.decide(r, new AbortController().signal);
  return { decide, asked };
}

Deno.test("PermissionGate: an allow rule decides without asking, and the record names it", async () => {
  const rules = new MemoryRules();
  const rule = rules.add("allow", "exec", "npm test");
  const { decide, asked } = gate(rules, { answers: [] });
  const decision = await decide(exec("npm test"));
  assert.deepEqual(decision, { granted: true, by: "rule", answer: null, rules: [rule] });
  assert.equal(asked.length, 0);
  assert.equal(
    describeDecision(exec("npm test"), decision),
    "Permission to run (exec): npm test — allowed by saved rule 01rule1xxxxxxxxxxxxxxxxxxx (allow exec 'npm test', every project)",
  );
});

Deno.test("PermissionGate: deny rules win over allow rules, --allow flags and 'always' answers", async (t) => {
  await t.step("over an allow rule", async () => {
    const rules = new MemoryRules();
    rules.add("allow", "exec", "git *");
    const deny = rules.add("deny", "exec", "git push*", ROOT);
    const decision = await gate(rules).decide(exec("git status && git push"));
    assert.deepEqual(decision, { granted: false, by: "rule", answer: null, rules: [deny] });
    assert.match(
      describeDecision(exec("git push"), decision),
      /denied by saved rule 01rule2xxxxxxxxxxxxxxxxxxx \(deny exec 'git push\*', this project\)$/,
    );
    assert.equal(
      denialReason(exec("git push"), decision),
      "Permission denied by the user's saved rule: deny exec 'git push*'",
    );
  });
  await t.step("over --allow", async () => {
    const rules = new MemoryRules();
    rules.add("deny", "write", ".env");
    const { decide } = gate(rules, { allow: ["write", "exec"] });
    assert.equal((await decide(write("config/.env"))).by, "rule");
    assert.deepEqual(await decide(write("src/a.ts")), { granted: true, by: "flag", answer: null });
  });
  await t.step("over 'always for this session'", async () => {
    const rules = new MemoryRules();
    rules.add("deny", "exec", "rm *");
    const { decide, asked } = gate(rules, { answers: ["always"] });
    assert.equal((await decide(exec("ls"))).answer, "always");
    assert.equal((await decide(exec("echo"))).by, "session");
    assert.equal((await decide(exec("sudo rm -rf /"))).by, "rule");
    assert.equal(asked.length, 1);
  });
});

Deno.test("PermissionGate: headless runs honour rules; --allow adds to them", async () => {
  const rules = new MemoryRules();
  rules.add("allow", "exec", "npm test");
  const headless = gate(rules);
  assert.equal((await headless.decide(exec("npm test"))).granted, true);
  const denied = await headless.decide(exec("npm run build"));
  assert.deepEqual(denied, { granted: false, by: "headless", answer: null });
  assert.match(denialReason(exec("x"), denied), /--allow exec or save an allow rule/);
  const flagged = gate(rules, { allow: ["exec"] });
  assert.equal((await flagged.decide(exec("npm run build"))).by, "flag");
  assert.equal((await flagged.decide(exec("npm test"))).by, "rule");
});

Deno.test("PermissionGate: a command hiding parts from deny rules is not covered by --allow", async () => {
  const heredoc = "cat <<EOF\nrm -rf /\nEOF";
  assert.equal(
    (await gate(new MemoryRules(), { allow: ["exec"] }).decide(exec(heredoc))).by,
    "flag",
  );
  const rules = new MemoryRules();
  rules.add("deny", "exec", "rm *");
  const guarded = await gate(rules, { allow: ["exec"] }).decide(exec(heredoc));
  assert.deepEqual(guarded, { granted: false, by: "guard", answer: null });
  assert.match(describeDecision(exec(heredoc), guarded), /cannot read/);
  // With someone to ask, the person decides.
  const asking = gate(rules, { allow: ["exec"], answers: ["once"] });
  assert.equal((await asking.decide(exec(heredoc))).by, "user");
});

Deno.test("PermissionGate: 'always for this project' saves exact allow rules that decide next time", async () => {
  const rules = new MemoryRules();
  const { decide, asked } = gate(rules, { answers: ["project"] });
  const first = await decide(exec("npm test && npm run lint"));
  assert.deepEqual(asked[0]!.saves, ["npm test", "npm run lint"]);
  assert.equal(first.granted, true);
  assert.deepEqual(first.saved?.map((r) => [r.pattern, r.projectRoot]), [
    ["npm test", ROOT],
    ["npm run lint", ROOT],
  ]);
  assert.match(
    describeDecision(exec("npm test && npm run lint"), first),
    /allowed always for this project \(saved rules 01rule1xxxxxxxxxxxxxxxxxxx \(allow exec 'npm test', this project\) and 01rule2xxx/,
  );
  const second = await decide(exec("npm run lint"));
  assert.equal(second.by, "rule");
  assert.equal(asked.length, 1);
  // Not the same command: asked again (and with nothing left, denied).
  assert.equal((await decide(exec("npm test --watch"))).granted, false);
  assert.equal(asked.length, 2);
});

Deno.test("PermissionGate: a path 'always for this project' saves that path only", async () => {
  const rules = new MemoryRules();
  const { decide, asked } = gate(rules, { answers: ["project"] });
  await decide(write("./src/app.ts"));
  assert.deepEqual(rules.rules.map((r) => r.pattern), ["/src/app.ts"]);
  assert.equal((await decide(write("src/app.ts"))).by, "rule");
  assert.equal((await decide(write("lib/src/app.ts"))).by, "user");
  assert.equal(asked.length, 2);
});

Deno.test("PermissionGate: 'project' for a command that cannot be saved is allowed once, and says why", async () => {
  const rules = new MemoryRules();
  const { decide, asked } = gate(rules, { answers: ["project"] });
  const decision = await decide(exec("npm test $(date)"));
  assert.equal(asked[0]!.saves, null);
  assert.equal(decision.granted, true);
  assert.equal(rules.rules.length, 0);
  assert.match(
    describeDecision(exec("npm test $(date)"), decision),
    /allowed once \(always for this project was asked, but command substitution\)/,
  );
});

Deno.test("PermissionGate: a rule that cannot be saved still lets the answer through", async () => {
  const rules = new MemoryRules();
  rules.saveForProject = () => {
    throw new Error("disk full");
  };
  const decision = await gate(rules, { answers: ["project"] }).decide(exec("make"));
  assert.equal(decision.granted, true);
  assert.equal(decision.notSaved, "could not save the rule: disk full");
});

Deno.test("PermissionGate: a request without a subject is never matched by rules", async () => {
  const rules = new MemoryRules();
  rules.add("allow", "exec", "npm test");
  const decision = await gate(rules).decide({ tool: "exec", kind: "exec", summary: "npm test" });
  assert.equal(decision.by, "headless");
});
