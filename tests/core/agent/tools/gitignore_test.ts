import assert from "node:assert/strict";
import {
  type IgnoreRule,
  isIgnored,
  parseGitignore,
} from "../../../../core/agent/tools/gitignore.ts";

/**
 * A tree's ignore files (directory → .gitignore text, "" for the root) and paths that git
 * reports as ignored or not (`git check-ignore`; a trailing `/` marks a directory). Every
 * case was checked against git 2.39 by building the tree in a scratch repository.
 */
interface IgnoreCase {
  readonly name: string;
  readonly gitignores: Readonly<Record<string, string>>;
  readonly ignored: readonly string[];
  readonly kept: readonly string[];
}

const CASES: readonly IgnoreCase[] = [
  {
    name: "comments and blank lines match nothing",
    gitignores: { "": "# comment\n\n   \nfoo\n" },
    ignored: ["foo", "a/foo"],
    kept: ["# comment", "#", "bar"],
  },
  {
    name: "a space before # makes a pattern",
    gitignores: { "": " #x\n" },
    ignored: [" #x"],
    kept: ["#x"],
  },
  {
    name: "\\# starts a pattern with a hash",
    gitignores: { "": "\\#hash\n" },
    ignored: ["#hash", "a/#hash"],
    kept: ["hash"],
  },
  {
    name: "\\! starts a pattern with an exclamation mark",
    gitignores: { "": "\\!important!.txt\n" },
    ignored: ["!important!.txt"],
    kept: ["important!.txt"],
  },
  {
    name: "trailing spaces are trimmed",
    gitignores: { "": "foo   \n" },
    ignored: ["foo"],
    kept: ["foo "],
  },
  {
    name: "an escaped trailing space is kept, spaces after it are trimmed",
    gitignores: { "": "foo\\ \nbar\\  \n" },
    ignored: ["foo ", "bar "],
    kept: ["foo", "bar", "bar  "],
  },
  {
    name: "trailing tabs are not trimmed",
    gitignores: { "": "tab\t\n" },
    ignored: ["tab\t"],
    kept: ["tab"],
  },
  {
    name: "CRLF line ends",
    gitignores: { "": "foo\r\nbar\r\n" },
    ignored: ["foo", "bar"],
    kept: ["baz"],
  },
  {
    name: "a byte order mark is skipped",
    gitignores: { "": "\uFEFFfoo\n" },
    ignored: ["foo"],
    kept: ["bar"],
  },
  {
    name: "\\* \\? \\[ are literal",
    gitignores: { "": "\\*.txt\nq\\?\n\\[x]\n" },
    ignored: ["*.txt", "q?", "[x]"],
    kept: ["a.txt", "qa", "x"],
  },
  {
    name: "a backslash before an ordinary character is dropped",
    gitignores: { "": "\\a\\b\n" },
    ignored: ["ab"],
    kept: ["a"],
  },
  {
    name: "negation re-includes",
    gitignores: { "": "*.log\n!keep.log\n" },
    ignored: ["a.log", "sub/b.log"],
    kept: ["keep.log", "sub/keep.log", "a.txt"],
  },
  {
    name: "the last matching pattern wins",
    gitignores: { "": "!keep.log\n*.log\n" },
    ignored: ["keep.log", "a.log"],
    kept: ["a.txt"],
  },
  {
    name: "a file cannot be re-included when its directory is excluded",
    gitignores: { "": "build/\n!build/keep.txt\n!keep.txt\n" },
    ignored: ["build/", "build/keep.txt", "build/x.txt", "build/d/keep.txt"],
    kept: ["keep.txt"],
  },
  {
    name: "excluding a directory's contents lets a file be re-included",
    gitignores: { "": "build/*\n!build/keep.txt\n" },
    ignored: ["build/x.txt", "build/d/"],
    kept: ["build/", "build/keep.txt"],
  },
  {
    name: "everything but .ts files and directories",
    gitignores: { "": "*\n!*/\n!*.ts\n" },
    ignored: ["a.js", "d/b.js", ".gitignore"],
    kept: ["a.ts", "d/", "d/e/b.ts"],
  },
  {
    name: "foo/ matches only directories, at any depth",
    gitignores: { "": "foo/\n" },
    ignored: ["foo/", "a/foo/", "a/foo/x"],
    kept: ["b/foo", "foox/"],
  },
  {
    name: "a leading slash anchors",
    gitignores: { "": "/foo\n/*.c\n" },
    ignored: ["foo", "cat-file.c"],
    kept: ["a/foo", "mozilla-sha1/sha1.c"],
  },
  {
    name: "a slash in the middle anchors",
    gitignores: { "": "doc/frotz\n" },
    ignored: ["doc/frotz/", "doc/frotz/x"],
    kept: ["a/doc/frotz"],
  },
  {
    name: "a trailing slash alone does not anchor",
    gitignores: { "": "frotz/\n" },
    ignored: ["frotz/", "a/frotz/"],
    kept: ["b/frotz"],
  },
  {
    name: "leading **/ matches in every directory",
    gitignores: { "": "**/foo\n**/bar/baz\n" },
    ignored: ["foo", "a/foo", "a/b/foo", "bar/baz", "a/bar/baz"],
    kept: ["foox", "baz", "bar/x/baz"],
  },
  {
    name: "trailing /** matches everything inside, not the directory",
    gitignores: { "": "abc/**\n" },
    ignored: ["abc/x", "abc/d/y"],
    kept: ["abc/", "x/abc/y"],
  },
  {
    name: "/**/ matches zero or more directories",
    gitignores: { "": "a/**/b\n" },
    ignored: ["a/b", "a/x/b", "a/x/y/b"],
    kept: ["x/a/b", "a/bb", "ab"],
  },
  {
    name: "other runs of stars are a single star",
    gitignores: { "": "foo**bar\nx/**y\n" },
    ignored: ["foobar", "fooXbar", "d/foobar", "x/y", "x/zy"],
    kept: ["x/z/y"],
  },
  {
    name: "* and ? do not match a slash",
    gitignores: { "": "doc/*.html\nx/a?c\n" },
    ignored: ["doc/git.html", "x/abc"],
    kept: ["doc/ppc/ppc.html", "tools/doc/perf.html", "x/a/c"],
  },
  {
    name: "? matches exactly one character",
    gitignores: { "": "?.c\n" },
    ignored: ["a.c", "d/b.c"],
    kept: ["ab.c", ".c"],
  },
  {
    name: "character classes and ranges",
    gitignores: { "": "[abc].txt\n[m-o]x\nx[]]y\n" },
    ignored: ["a.txt", "c.txt", "nx", "x]y"],
    kept: ["d.txt", "px", "xy"],
  },
  {
    name: "negated classes with ! and ^",
    gitignores: { "": "[!abc].txt\n[^m-o]x\n" },
    ignored: ["d.txt", "px"],
    kept: ["a.txt", "nx"],
  },
  {
    name: "a class never matches a slash",
    gitignores: { "": "a[/]b\nc[!x]d\n" },
    ignored: [],
    kept: ["a/b", "c/d"],
  },
  {
    name: "escapes and a dash inside classes",
    gitignores: { "": "[\\]]1\n[-z]2\n[a\\-c]3\n" },
    ignored: ["]1", "-2", "z2", "-3", "a3", "c3"],
    kept: ["b3", "y2"],
  },
  {
    name: "POSIX classes",
    gitignores: { "": "[[:digit:]]*.log\n[[:upper:][:space:]]z\n" },
    ignored: ["1.log", "42.log", "Az", " z"],
    kept: ["a.log", "az"],
  },
  {
    name: "an unclosed [ or an unknown class matches nothing",
    gitignores: { "": "x[\n[[:nope:]]y\n" },
    ignored: [],
    kept: ["x[", "ny", "[y"],
  },
  {
    name: "braces are literal in gitignore",
    gitignores: { "": "{a,b}.txt\n" },
    ignored: ["{a,b}.txt"],
    kept: ["a.txt", "b.txt"],
  },
  {
    name: "regex characters are literal",
    gitignores: { "": "a+b(c).$\n" },
    ignored: ["a+b(c).$"],
    kept: ["aab(c).$", "a+bc.$"],
  },
  {
    name: "patterns in a nested .gitignore are relative to its directory",
    gitignores: { "sub": "/only\n*.tmp\nd/e\n" },
    ignored: ["sub/only", "sub/a.tmp", "sub/x/a.tmp", "sub/d/e"],
    kept: ["only", "a.tmp", "other/a.tmp", "sub/x/only", "sub/x/d/e", "d/e"],
  },
  {
    name: "a deeper .gitignore overrides a higher one",
    gitignores: { "": "*.log\n", "sub": "!*.log\n" },
    ignored: ["a.log", "other/a.log"],
    kept: ["sub/a.log", "sub/d/b.log"],
  },
  {
    name: "a deeper negation cannot re-include inside an excluded directory",
    gitignores: { "": "sub/\n", "sub": "!x\n" },
    ignored: ["sub/", "sub/x"],
    kept: ["x"],
  },
  {
    name: "negating a directory-only pattern",
    gitignores: { "": "*\n!d/\n" },
    ignored: ["x", "d/x"],
    kept: ["d/"],
  },
];

/**
 * The walk's answer for `path`: ignored when it or any directory above it is ignored by
 * the .gitignore files from the root down to that directory.
 */
function walkIgnores(gitignores: Readonly<Record<string, string>>, path: string): boolean {
  const isDir = path.endsWith("/");
  const parts = (isDir ? path.slice(0, -1) : path).split("/");
  let rules: IgnoreRule[] = [];
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    rules = [...rules, ...parseGitignore(gitignores[dir] ?? "", dir)];
    if (isIgnored(rules, parts.slice(0, i + 1).join("/"), i < parts.length - 1 || isDir)) {
      return true;
    }
  }
  return false;
}

Deno.test("parseGitignore() and isIgnored() agree with git", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, () => {
      for (const path of c.ignored) {
        assert.equal(walkIgnores(c.gitignores, path), true, `${JSON.stringify(path)} ignored`);
      }
      for (const path of c.kept) {
        assert.equal(walkIgnores(c.gitignores, path), false, `${JSON.stringify(path)} kept`);
      }
    });
  }
});

Deno.test("parseGitignore() reads negation and directory-only flags", () => {
  const rules = parseGitignore("# c\n\n!keep/\nbuild\n", "");
  assert.deepEqual(rules.map((r) => [r.negate, r.dirOnly]), [[true, true], [false, false]]);
});

Deno.test("isIgnored() checks only the path itself, not its parents", () => {
  const rules = parseGitignore("build/\n", "");
  assert.equal(isIgnored(rules, "build", true), true);
  assert.equal(isIgnored(rules, "build/x.txt", false), false);
});
