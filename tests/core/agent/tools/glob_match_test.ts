import assert from "node:assert/strict";
import { BonsaiError } from "../../../../core/errors.ts";
import {
  expandBraces,
  type GlobOptions,
  globToRegExp,
  wildcardSource,
} from "../../../../core/agent/tools/glob_match.ts";

// The glob tool's patterns: wildmatch wildcards (as in .gitignore, see gitignore_test.ts)
// plus `{a,b}` alternatives. Paths are relative, with `/`.
const CASES: readonly {
  glob: string;
  options?: GlobOptions;
  match: readonly string[];
  noMatch: readonly string[];
}[] = [
  { glob: "*.ts", match: ["a.ts", ".hidden.ts", ".ts"], noMatch: ["d/a.ts", "a.tsx", "a.ts/b"] },
  { glob: "**/*.ts", match: ["a.ts", "d/a.ts", "d/e/a.ts"], noMatch: ["a.js", "d/a.ts.bak"] },
  {
    glob: "src/**/test_*.py",
    match: ["src/test_a.py", "src/x/test_b.py", "src/x/y/test_c.py"],
    noMatch: ["test_a.py", "src/x/a_test.py", "lib/src/test_a.py"],
  },
  { glob: "src/**", match: ["src/a", "src/x/y"], noMatch: ["src", "srcx/a", "a/src/b"] },
  { glob: "**", match: ["a", "a/b/c", ".x"], noMatch: [] },
  { glob: "a/**/b", match: ["a/b", "a/x/b", "a/x/y/b"], noMatch: ["a/bb", "xa/b", "a/b/c"] },
  { glob: "src/**.ts", match: ["src/a.ts"], noMatch: ["src/x/a.ts"] },
  { glob: "a**b", match: ["ab", "axxb"], noMatch: ["a/b"] },
  { glob: "?.md", match: ["a.md", "é.md"], noMatch: ["ab.md", ".md", "/.md"] },
  { glob: "a?b", match: ["axb"], noMatch: ["a/b", "ab"] },
  { glob: "[abc].txt", match: ["a.txt", "c.txt"], noMatch: ["d.txt", "ab.txt"] },
  { glob: "[!abc].txt", match: ["d.txt", "_.txt"], noMatch: ["a.txt", "/.txt"] },
  { glob: "[^abc].txt", match: ["d.txt"], noMatch: ["b.txt"] },
  { glob: "file[0-9][0-9]", match: ["file00", "file42"], noMatch: ["file4", "filea1"] },
  { glob: "[]x]", match: ["]", "x"], noMatch: ["y"] },
  { glob: "[a-]", match: ["a", "-"], noMatch: ["b"] },
  { glob: "[z-a]x", match: [], noMatch: ["ax", "zx", "mx"] },
  { glob: "d[/]e", match: [], noMatch: ["d/e"] },
  { glob: "[[:digit:]][[:alpha:]]", match: ["1a", "9Z"], noMatch: ["a1", "11"] },
  { glob: "*.{json,md}", match: ["a.json", "b.md"], noMatch: ["a.ts", "d/a.md", "a.{json,md}"] },
  {
    glob: "{src,test}/**/*.ts",
    match: ["src/a.ts", "test/x/b.ts"],
    noMatch: ["lib/a.ts", "srctest/a.ts"],
  },
  { glob: "{a,b{c,d}}.txt", match: ["a.txt", "bc.txt", "bd.txt"], noMatch: ["b.txt", "c.txt"] },
  { glob: "a{,.bak}", match: ["a", "a.bak"], noMatch: ["a.", "a,.bak"] },
  { glob: "{a}.txt", match: ["{a}.txt"], noMatch: ["a.txt"] },
  { glob: "{**/,}x", match: ["x", "d/x", "d/e/x"], noMatch: ["dx"] },
  { glob: "x{a,b", match: ["x{a,b"], noMatch: ["xa"] },
  { glob: "\\*.txt", match: ["*.txt"], noMatch: ["a.txt"] },
  { glob: "\\{a,b}", match: ["{a,b}"], noMatch: ["a", "b"] },
  { glob: "a\\?", match: ["a?"], noMatch: ["ab"] },
  { glob: "[ab", match: ["[ab"], noMatch: ["a", "b"] },
  { glob: "a+(b)|c.$^", match: ["a+(b)|c.$^"], noMatch: ["aa(b)|c.$^", "a+b|c.$^"] },
  { glob: "été*.txt", match: ["été.txt", "été 2.txt"], noMatch: ["ete.txt"] },
  { glob: "*.ts", options: { matchBase: true }, match: ["a.ts", "d/e/a.ts"], noMatch: ["a.js"] },
  {
    glob: "{*.md,src/*.ts}",
    options: { matchBase: true },
    match: ["a.md", "x/y/a.md", "src/a.ts"],
    noMatch: ["x/src/a.ts", "src/x/a.ts"],
  },
];

Deno.test("globToRegExp() matches the glob tool's syntax", async (t) => {
  for (const c of CASES) {
    const label = `${c.glob}${c.options?.matchBase ? " (match base)" : ""}`;
    await t.step(label, () => {
      const regex = globToRegExp(c.glob, c.options);
      for (const path of c.match) assert.ok(regex.test(path), `${c.glob} should match ${path}`);
      for (const path of c.noMatch) {
        assert.ok(!regex.test(path), `${c.glob} should not match ${path}`);
      }
    });
  }
});

Deno.test("expandBraces() expands groups in order and leaves the rest literal", async (t) => {
  const cases: [string, string[]][] = [
    ["a", ["a"]],
    ["{a,b}", ["a", "b"]],
    ["x{a,b}y{1,2}", ["xay1", "xay2", "xby1", "xby2"]],
    ["{a,{b,c}d}", ["a", "bd", "cd"]],
    ["{a}", ["{a}"]],
    ["{x{a,b}}", ["{xa}", "{xb}"]],
    ["{a,b", ["{a,b"]],
    ["\\{a,b}", ["\\{a,b}"]],
    ["{a\\,b,c}", ["a\\,b", "c"]],
    ["{,x}", ["", "x"]],
  ];
  for (const [glob, want] of cases) {
    await t.step(glob, () => assert.deepEqual(expandBraces(glob), want));
  }
});

Deno.test("expandBraces() refuses a glob with more than 1000 alternatives", () => {
  assert.equal(expandBraces("{a,b}".repeat(9)).length, 512);
  assert.throws(
    () => expandBraces("{a,b}".repeat(10)),
    (err) =>
      err instanceof BonsaiError && err.code === "USAGE" && /1000 alternatives/.test(err.message),
  );
});

Deno.test("wildcardSource() in git's strict mode matches nothing when malformed", () => {
  for (const pattern of ["x[", "x[ab", "[[:nope:]]", "x\\"]) {
    assert.equal(wildcardSource(pattern, { lenient: false }), null, pattern);
  }
  assert.notEqual(wildcardSource("x[", { lenient: true }), null);
});
