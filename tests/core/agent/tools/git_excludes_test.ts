import assert from "node:assert/strict";
import { join } from "node:path";
import {
  excludesFileSetting,
  globalExcludesPath,
  infoExcludePath,
} from "../../../../core/agent/tools/git_excludes.ts";
import { tempDir } from "../../../support/temp.ts";

Deno.test("excludesFileSetting() reads core.excludesFile from git config text", async (t) => {
  const cases: [string, string, string | null][] = [
    ["plain", "[core]\n\texcludesFile = ~/.gitignore_global\n", "~/.gitignore_global"],
    ["names are case-insensitive", "[Core]\n  EXCLUDESFILE=/x\n", "/x"],
    ["quotes keep spaces", '[core]\n excludesfile = "/a b/ig" # comment\n', "/a b/ig"],
    ["a ; comment", "[core]\nexcludesfile = /x ; why\n", "/x"],
    ["escapes", '[core]\nexcludesfile = "/a\\"b\\\\c"\n', '/a"b\\c'],
    ["inner spaces are kept", "[core]\nexcludesfile = /a  b  \n", "/a  b"],
    ["a key on the header line", "[core] excludesfile = /x\n", "/x"],
    ["the last one wins", "[core]\nexcludesfile=/a\n[core]\nexcludesfile=/b\n", "/b"],
    ["CRLF", "[core]\r\nexcludesfile = /x\r\n", "/x"],
    ["another section", "[user]\nexcludesfile = /x\n", null],
    ["a subsection", '[core "x"]\nexcludesfile = /x\n', null],
    ["commented out", "[core]\n# excludesfile = /x\n;excludesfile = /y\n", null],
    ["a boolean key has no path", "[core]\nexcludesfile\n", null],
    ["another key", "[core]\nexcludesfiles = /x\nautocrlf = true\n", null],
    ["empty text", "", null],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => assert.equal(excludesFileSetting(text), want));
  }
});

Deno.test("globalExcludesPath() finds the file as git does", async (t) => {
  await using dir = await tempDir();
  const root = join(dir.path, "repo");
  const home = join(dir.path, "home");
  const xdg = join(dir.path, "xdg");
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  await Deno.mkdir(join(home, ".config", "git"), { recursive: true });
  await Deno.mkdir(join(xdg, "git"), { recursive: true });
  const write = (path: string, value: string) =>
    Deno.writeTextFile(path, `[core]\n\texcludesFile = ${value}\n`);
  const clear = async () => {
    for (
      const p of [
        join(home, ".gitconfig"),
        join(xdg, "git", "config"),
        join(root, ".git", "config"),
      ]
    ) {
      await Deno.remove(p).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    }
  };

  await t.step("default: ~/.config/git/ignore", async () => {
    await clear();
    assert.equal(await globalExcludesPath(root, { HOME: home }), join(home, ".config/git/ignore"));
  });
  await t.step("default with XDG_CONFIG_HOME", async () => {
    assert.equal(
      await globalExcludesPath(root, { HOME: home, XDG_CONFIG_HOME: xdg }),
      join(xdg, "git/ignore"),
    );
  });
  await t.step("an empty XDG_CONFIG_HOME counts as unset", async () => {
    assert.equal(
      await globalExcludesPath(root, { HOME: home, XDG_CONFIG_HOME: "" }),
      join(home, ".config/git/ignore"),
    );
  });
  await t.step("no HOME and no XDG_CONFIG_HOME: none", async () => {
    assert.equal(await globalExcludesPath(root, {}), null);
  });
  await t.step("core.excludesFile in ~/.gitconfig, ~ expanded from the env's HOME", async () => {
    await write(join(home, ".gitconfig"), "~/global_ignore");
    assert.equal(await globalExcludesPath(root, { HOME: home }), join(home, "global_ignore"));
  });
  await t.step("~/.gitconfig wins over the XDG config", async () => {
    await write(join(xdg, "git", "config"), "/from/xdg");
    assert.equal(
      await globalExcludesPath(root, { HOME: home, XDG_CONFIG_HOME: xdg }),
      join(home, "global_ignore"),
    );
  });
  await t.step("the XDG config alone", async () => {
    await Deno.remove(join(home, ".gitconfig"));
    assert.equal(
      await globalExcludesPath(root, { HOME: home, XDG_CONFIG_HOME: xdg }),
      "/from/xdg",
    );
  });
  await t.step("the repository's config wins over both", async () => {
    await write(join(root, ".git", "config"), "ignores.txt");
    assert.equal(
      await globalExcludesPath(root, { HOME: home, XDG_CONFIG_HOME: xdg }),
      join(root, "ignores.txt"),
    );
  });
});

Deno.test("infoExcludePath() follows a .git directory or a .git file", async (t) => {
  await using dir = await tempDir();
  await t.step("no .git: none", async () => {
    assert.equal(await infoExcludePath(dir.path), null);
  });
  await t.step(".git directory", async () => {
    const root = join(dir.path, "plain");
    await Deno.mkdir(join(root, ".git"), { recursive: true });
    assert.equal(await infoExcludePath(root), join(root, ".git/info/exclude"));
  });
  await t.step("linked worktree: gitdir, then commondir", async () => {
    const root = join(dir.path, "wt");
    const gitdir = join(dir.path, "main/.git/worktrees/wt");
    await Deno.mkdir(root, { recursive: true });
    await Deno.mkdir(gitdir, { recursive: true });
    await Deno.writeTextFile(join(root, ".git"), `gitdir: ${gitdir}\n`);
    await Deno.writeTextFile(join(gitdir, "commondir"), "../..\n");
    assert.equal(await infoExcludePath(root), join(dir.path, "main/.git/info/exclude"));
  });
  await t.step("submodule: a relative gitdir without commondir", async () => {
    const root = join(dir.path, "sub");
    await Deno.mkdir(root, { recursive: true });
    await Deno.writeTextFile(join(root, ".git"), "gitdir: ../main/.git/modules/sub\n");
    assert.equal(await infoExcludePath(root), join(dir.path, "main/.git/modules/sub/info/exclude"));
  });
});
