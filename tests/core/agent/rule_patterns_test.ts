import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionRule } from "../../../core/agent/permissions.ts";
import { compileRulePattern, type RuleKind } from "../../../core/agent/rule_patterns.ts";
import { RuleVerdicts } from "../../../core/agent/rule_verdict.ts";
import { tempDir } from "../../support/temp.ts";

const ROOT = "/work/project";
let seq = 0;

function rule(effect: "allow" | "deny", kind: RuleKind, pattern: string): PermissionRule {
  return { id: `rule${++seq}`.padEnd(26, "0"), effect, kind, pattern, projectRoot: null };
}

function judge(root: string, kind: RuleKind, subject: string, rules: PermissionRule[]) {
  return new RuleVerdicts(root).judge({ kind, subject }, rules);
}

/** [allow pattern, command line, allowed?] */
const COMMANDS: [string, string, boolean][] = [
  ["npm test", "npm test", true],
  ["npm test", '"npm" test', true],
  ["npm test", "npm   test", true],
  ["npm test", "npm test 2>&1", true],
  ["npm test", "npm test > /dev/null", true],
  ["npm test", "(npm test)", true],
  ["npm test", "npm test && npm test", true],
  ["npm test", "npm test # why", true],
  ["npm test", "npm tests", false],
  ["npm test", "npm test --watch", false],
  ["npm test", "npm test; rm -rf /", false],
  ["npm test", "npm test && curl x | sh", false],
  ["npm test", "npm test || rm x", false],
  ["npm test", "npm test & rm x", false],
  ["npm test", "npm test\nrm x", false],
  ["npm test", "npm test $(rm x)", false],
  ["npm test", "npm test `rm x`", false],
  ["npm test", "bash -c 'npm test'", false],
  ["npm test", "sh -c 'npm test; rm -rf /'", false],
  ["npm test", "npm test > file", false],
  ["npm test", "FOO=1 npm test", false],
  ["npm test", "sudo npm test", false],
  ["npm test", "npm test <<EOF\nrm x\nEOF", false],
  ["npm test", "npm test 'unclosed", false],
  ["npm test", "", false],
  ["npm run *", "npm run", true],
  ["npm run *", "npm run build", true],
  ["npm run *", "npm run build -- --watch", true],
  ["npm run *", "npm run 'a; rm x'", true],
  ["npm run *", "npm runx", false],
  ["npm run *", "npm run build; rm x", false],
  ["npm run *", "npm run $(rm x)", false],
  ["npm run *", "npm run build | sh", false],
  ["npm run *", "npm run x > ~/.bashrc", false],
  ["git diff*", "git diff", true],
  ["git diff*", "git diff --stat", true],
  ["git diff*", "git diff-tree HEAD", true],
  ["git diff*", "git log", false],
  ["git diff*", "git diff && git push", false],
  ["npm run test:*", "npm run test", true],
  ["npm run test:*", "npm run test --coverage", true],
  ["npm run test:*", "npm run testx", false],
  ["ls \\*.ts", "ls *.ts", true],
  ["ls \\*.ts", "ls a.ts", false],
  ["FOO=1 npm test", "FOO=1 npm test", true],
  ["git commit -m *", "git commit -m 'fix: a bug'", true],
];

Deno.test("Command patterns match the whole command line, every part of it", async (t) => {
  for (const [pattern, line, allowed] of COMMANDS) {
    await t.step(`${pattern} vs ${JSON.stringify(line)}`, () => {
      const r = rule("allow", "exec", pattern);
      const verdict = judge(ROOT, "exec", line, [r]);
      assert.equal(verdict.allow !== null, allowed);
      if (allowed) assert.deepEqual(verdict.allow, [r]);
    });
  }
});

Deno.test("A compound command is allowed when its parts are, and names each deciding rule", () => {
  const test = rule("allow", "exec", "npm test");
  const lint = rule("allow", "exec", "npm run lint");
  assert.deepEqual(judge(ROOT, "exec", "npm test && npm run lint", [test, lint]).allow, [
    test,
    lint,
  ]);
  assert.equal(judge(ROOT, "exec", "npm test && npm run build", [test, lint]).allow, null);
});

/** [deny pattern, command line, denied?] */
const DENIES: [string, string, boolean][] = [
  ["rm *", "rm -rf /", true],
  ["rm *", "npm test && rm -rf /", true],
  ["rm *", "echo $(rm x)", true],
  ["rm *", "echo `rm x`", true],
  ["rm *", "(cd a; rm x)", true],
  ["rm *", "bash -c 'rm -rf /'", true],
  ["rm *", "sh -ec 'echo; rm -rf /'", true],
  ["rm *", "eval rm -rf /", true],
  ["rm *", "sudo rm -rf /", true],
  ["rm *", "FOO=1 rm x", true],
  ["rm *", "env -i FOO=1 rm x", true],
  ["rm *", "timeout 5 rm x", true],
  ["rm *", "xargs rm", true],
  ["rm *", "/bin/rm x", true],
  ["rm *", '"rm" x', true],
  ["rm *", "r''m x", true],
  ["rm *", "echo rm x", false],
  ["rm *", "npm test", false],
  ["git push*", "git push --force", true],
  ["git push*", "git status && git push", true],
];

Deno.test("Deny patterns match any part, through wrappers, sh -c and substitutions", async (t) => {
  for (const [pattern, line, denied] of DENIES) {
    await t.step(`${pattern} vs ${JSON.stringify(line)}`, () => {
      const r = rule("deny", "exec", pattern);
      assert.equal(judge(ROOT, "exec", line, [r]).deny === r, denied);
    });
  }
});

Deno.test("Deny wins over allow", () => {
  const allow = rule("allow", "exec", "npm *");
  const deny = rule("deny", "exec", "npm publish*");
  assert.equal(judge(ROOT, "exec", "npm publish --tag x", [allow, deny]).deny, deny);
  assert.equal(judge(ROOT, "exec", "npm test && npm publish", [allow, deny]).deny, deny);
  assert.deepEqual(judge(ROOT, "exec", "npm test", [allow, deny]).allow, [allow]);
});

Deno.test("A command line hiding parts from deny rules is flagged only when deny rules exist", () => {
  const line = "cat <<EOF\nrm -rf /\nEOF";
  assert.equal(judge(ROOT, "exec", line, []).hidesFromDeny, false);
  assert.equal(judge(ROOT, "exec", line, [rule("deny", "exec", "curl *")]).hidesFromDeny, true);
  assert.equal(judge(ROOT, "exec", line, [rule("deny", "write", ".env")]).hidesFromDeny, false);
});

/** [pattern, path as the model gives it, matches?] */
const PATHS: [string, string, boolean][] = [
  ["src/**", "src/a.ts", true],
  ["src/**", "./src/a.ts", true],
  ["src/**", "src/x/y/z.ts", true],
  ["src/**", `${ROOT}/src/a.ts`, true],
  ["src/**", "srcx/a.ts", false],
  ["src/**", "lib/src/a.ts", false],
  ["src/**", "src/../secrets.txt", false],
  ["src/**", "../other/src/a.ts", false],
  ["src/**", "/etc/src/a.ts", false],
  ["src/", "lib/src/a.ts", true],
  ["/src/*.ts", "src/a.ts", true],
  ["/src/*.ts", "src/x/a.ts", false],
  ["*.md", "README.md", true],
  ["*.md", "docs/guide/a.md", true],
  ["*.md", "a.mdx", false],
  [".env", "config/.env", true],
  ["**/*.{ts,tsx}", "web/app.tsx", true],
  ["**/*.{ts,tsx}", "web/app.js", false],
  ["docs/[a-c]*.md", "docs/b1.md", true],
  ["docs/[a-c]*.md", "docs/d1.md", false],
  ["/package.json", "package.json", true],
  ["/package.json", "web/package.json", false],
];

Deno.test("Write patterns match project-relative paths like .gitignore", async (t) => {
  for (const [pattern, path, matches] of PATHS) {
    await t.step(`${pattern} vs ${path}`, () => {
      const r = rule("allow", "write", pattern);
      assert.equal(judge(ROOT, "write", path, [r]).allow !== null, matches);
    });
  }
});

Deno.test("A write through a symbolic link is judged by where it lands too", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await Deno.mkdir(join(root, "src"));
  await Deno.mkdir(join(root, "secrets"));
  await Deno.symlink(join(root, "secrets"), join(root, "src", "link"));
  const allowSrc = rule("allow", "write", "src/**");
  assert.equal(judge(root, "write", "src/link/key", [allowSrc]).allow, null);
  const denySecrets = rule("deny", "write", "secrets/**");
  assert.equal(judge(root, "write", "src/link/key", [allowSrc, denySecrets]).deny, denySecrets);
  assert.deepEqual(judge(root, "write", "src/a.ts", [allowSrc]).allow, [allowSrc]);
});

Deno.test("What 'always for this project' saves is exact", () => {
  assert.deepEqual(judge(ROOT, "exec", '"npm" test && ls *.ts', []).saves, [
    "npm test",
    "ls \\*.ts",
  ]);
  assert.deepEqual(judge(ROOT, "exec", "git commit -m 'a b'", []).saves, ["git commit -m 'a b'"]);
  assert.equal(judge(ROOT, "exec", "npm test $(rm x)", []).saves, null);
  assert.deepEqual(judge(ROOT, "write", "./src/a[1].ts", []).saves, ["/src/a\\[1\\].ts"]);
  assert.equal(judge(ROOT, "write", "../x", []).saves, null);
  // Each saved pattern matches what it was saved for, and only that.
  for (
    const [kind, subject, other] of [
      ["exec", "ls *.ts", "ls a.ts"],
      ["exec", 'git commit -m "it\'s"', "git commit -m its"],
      ["write", "src/a[1].ts", "src/a1.ts"],
      ["write", "docs/*.md", "docs/a.md"],
    ] as const
  ) {
    const saved = judge(ROOT, kind, subject, []).saves!;
    const rules = saved.map((p) => rule("allow", kind, p));
    assert.ok(judge(ROOT, kind, subject, rules).allow, `${saved} allows ${subject}`);
    assert.equal(judge(ROOT, kind, other, rules).allow, null, `${saved} refuses ${other}`);
  }
});

/** [kind, pattern] that are refused. */
const BAD: [RuleKind, string][] = [
  ["exec", ""],
  ["exec", "   "],
  ["exec", "*"],
  ["exec", "npm*"],
  ["exec", "npm test; rm x"],
  ["exec", "npm test && npm run lint"],
  ["exec", "npm test | tee x"],
  ["exec", "npm $(whoami)"],
  ["exec", "npm test > out"],
  ["exec", "echo 'unclosed"],
  ["write", ""],
  ["write", "../secrets/**"],
  ["write", "src/../../x"],
  ["write", "~/.ssh/*"],
  ["write", "/"],
  ["write", "src/[a"],
  ["write", "src/[[:nope:]]"],
];

Deno.test("compileRulePattern() refuses bad patterns with one clear line", async (t) => {
  for (const [kind, pattern] of BAD) {
    await t.step(`${kind} ${JSON.stringify(pattern)}`, () => {
      assert.throws(
        () => compileRulePattern(kind, pattern),
        (err: Error & { code?: string }) =>
          err.code === "USAGE" && /^Bad permission pattern '.*': [^\n]+$/s.test(err.message) &&
          !err.message.includes("\n"),
      );
    });
  }
});

Deno.test("Command patterns match in linear time, even with many wildcards and long commands", () => {
  const pattern = compileRulePattern("exec", "echo * a*b*c*d*e*f*g*h*i*z");
  const long = `echo ${"a".repeat(50_000)}`;
  const started = performance.now();
  assert.equal(pattern.matches(long), false);
  assert.ok(performance.now() - started < 2000);
  assert.throws(() => compileRulePattern("exec", "echo * * * * * * * * * * *"), /more than 10/);
});
