import { Command, CommanderError } from "commander";
import { BonsaiError } from "../core/errors.ts";
import { importLater } from "../core/modules.ts";
import { closest } from "../core/suggest.ts";
import { BUDGET_OPTIONS as BUDGET_FLAGS } from "../core/agent/budget_settings.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

/** The command modules, each loaded only when its command runs (see core/modules.ts). */
interface Commands {
  run: typeof import("./run.ts");
  repl: typeof import("./repl.ts");
  sessions: typeof import("./sessions.ts");
  search: typeof import("./search.ts");
  usage: typeof import("./usage.ts");
  import: typeof import("./import.ts");
  settings: typeof import("./settings.ts");
  db: typeof import("./db.ts");
  prices: typeof import("./prices.ts");
  peers: typeof import("./peers.ts");
  export: typeof import("./export.ts");
  serve: typeof import("./serve.ts");
  tokens: typeof import("./tokens.ts");
  permissions: typeof import("./permissions.ts");
}

function command<K extends keyof Commands>(name: K): Promise<Commands[K]> {
  return importLater(new URL(`./${name}.ts`, import.meta.url));
}

// The command-line grammar. Command modules are imported only when their command runs, so
// `bonsai --version` and `bonsai --help` start fast.

type Action = () => Promise<number> | number;

/** Parses argv, runs the chosen command and returns its exit code. Errors propagate. */
export async function runCli(argv: readonly string[], world: World): Promise<number> {
  let code: number = EXIT.OK;
  const run = (action: Action) => async () => {
    code = await action();
  };
  const program = buildProgram(world, run);
  // --debug is global: it may appear anywhere, and main.ts reads it from argv itself.
  const args = argv.filter((a) => a !== "--debug");
  const first = args[0];
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (first !== undefined && !first.startsWith("-") && !names.includes(first) && first !== "help") {
    const guess = closest(first, names);
    throw new BonsaiError(
      "USAGE",
      `Unknown command '${first}'${
        guess ? ` (did you mean '${guess}'?)` : ""
      }; 'bonsai --help' lists the commands`,
    );
  }
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end with exit code 0; parse errors were already printed.
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    throw err;
  }
  return code;
}

/** Options shared by `bonsai -p` and `bonsai run`. */
function addRunOptions(command: Command): Command {
  command
    .option(
      "--json",
      "print one JSON object (status, session_id, result, usage, cost, budget_exhaustion, error)",
    )
    .option(
      "--provider <name>",
      "anthropic or openai (default: BONSAI_PROVIDER, saved setting, or the API key found)",
    )
    .option("--model <id>", "model id (default: BONSAI_MODEL or the provider's default)")
    .option("--reasoning <level>", "off, low, medium or high")
    .option(
      "--allow <kinds>",
      "let tools write files and/or run commands without asking: write, exec or write,exec",
    )
    .option("--allow-all", "same as --allow write,exec")
    .option(
      "--verify <command>",
      "after a run that changed files, run this check command in the project root",
    )
    .option(
      "--self-review",
      "after a run that changed files, have the model review the session's own diff",
    )
    .option(
      "--context-window <tokens>",
      "the model's context window (default: known per model, else 128000)",
    )
    .option(
      "--compact-at <percent>",
      "summarise older turns once the context passes this share of the window (default 70)",
    )
    .option(
      "--compaction <mode>",
      "rule (deterministic summary, default) or model (the model writes it)",
    );
  for (const b of BUDGET_FLAGS) {
    command.option(
      `--${b.flag} <${b.kind === "count" ? "n" : b.kind === "usd" ? "usd" : "time"}>`,
      b.description,
    );
  }
  return command;
}

function buildProgram(world: World, run: (action: Action) => () => Promise<void>): Command {
  const program = new Command("bonsai")
    .description("A terminal AI coding agent whose sessions live in one SQLite database.")
    .version(`bonsai ${world.version}`, "-v, --version", "print the version")
    .option("--debug", "show stack traces and internal details on errors")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    .showSuggestionAfterError(true)
    // Options belong to the command they follow, so `sessions show x --json` reaches `show`.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => world.stdout.write(s),
      writeErr: (s) => world.stderr.write(s),
      outputError: (s, write) => write(`bonsai: ${s.replace(/^error: /, "")}`),
    });
  program.configureHelp({ helpWidth: world.stdout.columns ?? 100, sortSubcommands: false });

  addRunOptions(program)
    .option(
      "-p, --print <prompt>",
      "run one prompt headless, print the answer and exit ('-' reads stdin)",
    )
    .option(
      "-c, --continue [id]",
      "continue the project's latest session, or the session with this id (prefix)",
    );
  program.addHelpText(
    "after",
    "\nWith no command, bonsai opens the interactive REPL for the project at the current directory.",
  );
  program.action(run(async () => {
    const opts = program.opts();
    if (opts.print !== undefined) {
      return (await command("run")).runHeadless(world, opts.print, opts);
    }
    return (await command("repl")).runRepl(world, opts);
  }));

  const runCommand = addRunOptions(program.command("run <prompt...>"))
    .description(
      "run one prompt headless (like -p): print the answer, or one JSON object with --json",
    )
    .option(
      "-c, --continue [id]",
      "continue the project's latest session, or the session with this id (prefix)",
    )
    .action((words: string[]) =>
      run(async () =>
        (await command("run")).runHeadless(world, words.join(" "), runCommand.opts())
      )()
    );

  const sessions = program.command("sessions")
    .description("list this project's sessions (pinned first, then most recently updated)")
    .enablePositionalOptions()
    .option("--project <path>", "list the sessions of the project at PATH")
    .option("--all", "list the sessions of every project")
    .option("--limit <n>", "show at most N sessions")
    .option("--json", "print a JSON array")
    .action(run(async () => (await command("sessions")).listSessions(world, sessions.opts())));
  const show = sessions.command("show <id>")
    .description("show a session: details, episodes and transcript (any unique id prefix)")
    .option("--all", "print every message, not just the last 40")
    .option("--json", "print one JSON object with every message")
    .action((id: string) =>
      run(async () => (await command("sessions")).showSession(world, id, show.opts()))()
    );
  sessions.command("rename <id> <title...>")
    .description("rename a session")
    .action((id: string, title: string[]) =>
      run(async () => (await command("sessions")).renameSession(world, id, title.join(" ")))()
    );
  sessions.command("pin <id>")
    .description("pin a session to the top of listings")
    .action((id: string) =>
      run(async () => (await command("sessions")).pinSession(world, id, true))()
    );
  sessions.command("unpin <id>")
    .description("unpin a session")
    .action((id: string) =>
      run(async () => (await command("sessions")).pinSession(world, id, false))()
    );
  const forget = sessions.command("forget <id>")
    .description("delete a session and everything recorded with it")
    .option("-y, --yes", "do not ask for confirmation")
    .action((id: string) =>
      run(async () => (await command("sessions")).forgetSession(world, id, forget.opts()))()
    );

  const exportCommand = program.command("export <id>")
    .description(
      "write a session as Markdown to <project>/对话/<date>-<title>-<id8>.md (any unique id prefix)",
    )
    .option("--out <dir>", "write into DIR instead (created if needed)")
    .option("--stdout", "print the Markdown instead of writing a file")
    .option("--full", "keep long tool outputs, arguments and diffs whole (default: start and end)")
    .option("--json", "print one JSON object: path, messages, bytes (with --stdout: also markdown)")
    .action((id: string) =>
      run(async () => (await command("export")).exportMarkdown(world, id, exportCommand.opts()))()
    );

  const serveCommand = program.command("serve")
    .description("serve the session API over HTTP (loopback by default), behind login")
    .option("--host <address>", "address to listen on (default 127.0.0.1; others print a warning)")
    .option("--port <n>", "port to listen on (default 7420; 0 lets the system choose)")
    .option("--allow <kinds>", "run write and/or exec tools without asking (write,exec)")
    .option("--allow-all", "run every tool without asking")
    .option("--json", "print one line {url, host, port} once listening")
    .option("--set-password", "set the login password (read from the terminal) and exit")
    .option("--remove-password", "remove the login password and exit (tokens still work)")
    .action(run(async () => (await command("serve")).serve(world, serveCommand.opts())));

  const tokens = program.command("tokens")
    .description("bearer tokens for bonsai serve: create, list, revoke");
  const tokenCreate = tokens.command("create")
    .description("create a token (shown once; stored only as a hash)")
    .option("--name <name>", "what the token is for")
    .option("--json", "print one JSON object: id, name, token")
    .action(run(async () => (await command("tokens")).createToken(world, tokenCreate.opts())));
  const tokenList = tokens.command("list")
    .description("list tokens: id, name, created, last used (never the tokens)")
    .option("--json", "print a JSON array")
    .action(run(async () => (await command("tokens")).listTokens(world, tokenList.opts())));
  tokens.command("revoke <id>")
    .description("revoke a token at once (any unique id prefix)")
    .action((id: string) => run(async () => (await command("tokens")).revokeToken(world, id))());

  const rewind = sessions.command("rewind <id>")
    .description(
      "roll a session back to before one of its prompts; the rest moves to a new linked session",
    )
    .requiredOption(
      "--to <seq>",
      "the user prompt to go back to before (its seq, as `sessions show --json` lists it)",
    )
    .option("--files", "also revert what this session's write and edit calls changed since")
    .option("--force", "revert files even if they changed since bonsai wrote them")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print one JSON object: what moved, the linked session, files, exec calls")
    .action((id: string) =>
      run(async () => (await command("sessions")).rewindSession(world, id, rewind.opts()))()
    );

  const search = program.command("search <query...>")
    .description('search every session\'s messages: words (all must match), "phrases", prefix*')
    .option("--project <path>", "only the project at PATH")
    .option("--since <when>", "only messages since a date (YYYY-MM-DD) or span (7d, 12h, 2w, 12m)")
    .option("--until <when>", "only messages before a date or span")
    .option("--limit <n>", "at most N results (default 20)")
    .option("--json", "print a JSON array, best match first")
    .action((words: string[]) =>
      run(async () => (await command("search")).search(world, words, search.opts()))()
    );

  const usageCommand = program.command("usage [tab]")
    .description(
      "usage dashboard across projects: activity (default), models, cost, sessions, tools, cache",
    )
    .option("--since <when>", "from a date (YYYY-MM-DD) or span back from now (7d, 30d, 12m)")
    .option("--until <when>", "up to and including a date, or a span back from now")
    .option("--project <path>", "only the project at PATH")
    .option("--tz <zone>", "time zone for days and hours (default: TZ or the system's)")
    .option("--breakdown", "per model inside each day")
    .option("--json", "print one JSON object (every tab when no tab is given)")
    .action((tab: string | undefined) =>
      run(async () => (await command("usage")).usage(world, tab, usageCommand.opts()))()
    );

  const importCommand = program.command("import <source>")
    .description(
      "bring existing history into bonsai: claude-code or codex (re-running adds nothing new)",
    )
    .option(
      "--path <dir...>",
      "where the history is (default: CLAUDE_CONFIG_DIR or ~/.claude and ~/.config/claude; CODEX_HOME or ~/.codex)",
    )
    .option(
      "--json",
      "print a JSON summary (files, sessions, messages, ledger_rows, duplicates, malformed)",
    )
    .action((source: string) =>
      run(async () =>
        (await command("import")).importHistory(world, source, importCommand.opts())
      )()
    );

  const peers = program.command("peers")
    .description("the other live bonsai sessions of this project: what they do, what they claim")
    .option("--project <path>", "the project at PATH")
    .option("--json", "print a JSON array")
    .action(run(async () => (await command("peers")).listPeers(world, peers.opts())));

  const settings = program.command("settings")
    .description("saved budget presets and defaults (flags override them for a run)")
    .enablePositionalOptions()
    .option("--json", "print a JSON object of every setting (null when unset)")
    .action(run(async () => (await command("settings")).listSettings(world, settings.opts())));
  settings.command("set <key> <value...>")
    .description("save a setting, e.g. 'settings set budget.max_turns 40'")
    .action((key: string, value: string[]) =>
      run(async () => (await command("settings")).setSetting(world, key, value.join(" ")))()
    );
  settings.command("unset <key>")
    .description("remove a saved setting")
    .action((key: string) =>
      run(async () => (await command("settings")).unsetSetting(world, key))()
    );

  const permissions = program.command("permissions")
    .description(
      "saved allow/deny rules for write paths and exec commands, per project or for all",
    )
    .enablePositionalOptions()
    .option("--project <path>", "the rules in force in the project at PATH (default: here)")
    .option("--all", "every rule of every project")
    .option("--json", "print a JSON array")
    .action(run(async () => (await command("permissions")).listRules(world, permissions.opts())));
  const permissionsList = permissions.command("list")
    .description("list the rules in force here: this project's and every project's")
    .option("--project <path>", "the rules in force in the project at PATH")
    .option("--all", "every rule of every project")
    .option("--json", "print a JSON array")
    .action(
      run(async () => (await command("permissions")).listRules(world, permissionsList.opts())),
    );
  const permissionsAdd = permissions.command("add <effect> <kind> <pattern>")
    .description(
      "save a rule: allow|deny, write (a path glob like 'src/**') or exec (a command like 'npm run *'); quote the pattern",
    )
    .option("--project [path]", "only for the project at PATH (default: the one here)")
    .option("--json", "print the rule as one JSON object")
    .action((effect: string, kind: string, pattern: string) =>
      run(async () =>
        (await command("permissions")).addRule(
          world,
          { effect, kind, pattern },
          permissionsAdd.opts(),
        )
      )()
    );
  const permissionsRemove = permissions.command("remove <id>")
    .alias("rm")
    .description("remove a rule (any unique id prefix)")
    .option("--json", "print the removed rule as one JSON object")
    .action((id: string) =>
      run(async () =>
        (await command("permissions")).removeRule(world, id, permissionsRemove.opts())
      )()
    );

  const pricesCommand = program.command("prices [model...]")
    .description(
      "the price of each model (USD per million tokens): saved prices, else the bundled table",
    )
    .option("--json", "print one JSON object")
    .action((models: string[]) =>
      run(async () => (await command("prices")).prices(world, models, pricesCommand.opts()))()
    );

  const db = program.command("db").description(
    "inspect, back up, restore, scrub and reprice the database",
  );
  const status = db.command("status")
    .description("path, schema version, size, counts and backups (never changes anything)")
    .option("--check", "also run SQLite's integrity_check")
    .option("--json", "print a JSON object")
    .action(run(async () => (await command("db")).dbStatus(world, status.opts())));
  const backups = db.command("backups")
    .description("list backups, newest first")
    .option("--json", "print a JSON array")
    .action(run(async () => (await command("db")).dbBackups(world, backups.opts())));
  const restore = db.command("restore <name>")
    .description("replace the database with a backup (the current one is backed up first)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--force", "restore even while other bonsai processes are live")
    .action((name: string) =>
      run(async () => (await command("db")).dbRestore(world, name, restore.opts()))()
    );
  const scrub = db.command("scrub")
    .description(
      "remove a stored secret from every table, the search index and the file (and backups)",
    )
    .requiredOption(
      "--value-from-env <name>",
      "the environment variable holding the secret (never the secret itself)",
    )
    .option("--backups", "also scrub the backup files that hold it")
    .option("--force", "scrub even while other bonsai processes are live")
    .option("--json", "print a JSON object")
    .action(run(async () => (await command("db")).dbScrub(world, scrub.opts())));
  const reprice = db.command("reprice")
    .description(
      "recompute stored costs with the current price table and saved prices",
    )
    .option("--since <when>", "only responses since a date (YYYY-MM-DD) or span (7d, 12m)")
    .option("--unpriced-only", "only responses that have no price yet")
    .option("--force", "reprice even while other bonsai processes are live")
    .option("--json", "print a JSON object")
    .action(run(async () => (await command("db")).dbReprice(world, reprice.opts())));

  return program;
}
