// A small tmpfs to put BONSAI_HOME on, so tests can fill the disk under bonsai and free it
// again. It is mounted in a private user and mount namespace (`unshare -r -m`, no root
// needed where unprivileged user namespaces are allowed) that lives as long as a holder
// process; bonsai runs inside it through `nsenter`. The test itself reaches the files
// through /proc/<holder>/root, for plain file operations only: SQLite resolves that link
// and would open the host's path instead, so databases are copied out to be read.
import { statfsSync } from "node:fs";
import { join } from "node:path";
import { type ProcessResult, runToEnd } from "./bonsai_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

let availability: Promise<string | null> | null = null;

/**
 * Why a tmpfs home cannot be had here (not Linux, no `unshare`/`nsenter`, user namespaces
 * not permitted), or null when it can. Tests skip with this reason.
 */
export function tmpfsUnavailable(): Promise<string | null> {
  return availability ??= probe();
}

async function probe(): Promise<string | null> {
  if (Deno.build.os !== "linux") return `tmpfs homes need Linux (this is ${Deno.build.os})`;
  const dir = await Deno.makeTempDir({ prefix: "bonsai-tmpfs-probe-" });
  try {
    for (
      const [tool, label, args] of [
        ["nsenter", "nsenter", ["--version"]],
        ["unshare", "a tmpfs mount in 'unshare -r -m'", [
          "-r",
          "-m",
          "sh",
          "-c",
          'mount -t tmpfs -o size=65536 tmpfs "$0"',
          dir,
        ]],
      ] as const
    ) {
      let out: Deno.CommandOutput;
      try {
        out = await new Deno.Command(tool, { args: [...args], stdout: "null", stderr: "piped" })
          .output();
      } catch (err) {
        return `'${tool}' cannot run here (${err instanceof Error ? err.message : err})`;
      }
      if (!out.success) {
        const why = new TextDecoder().decode(out.stderr).trim() || `exit code ${out.code}`;
        return `${label} is not permitted here: ${why}`;
      }
    }
    return null;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Registers a test that is skipped, saying why, where a tmpfs home cannot be had. */
export async function tmpfsTest(
  name: string,
  fn: (t: Deno.TestContext) => Promise<void>,
): Promise<void> {
  const reason = await tmpfsUnavailable();
  if (reason !== null) console.log(`skipping "${name}": ${reason}`);
  Deno.test({ name, ignore: reason !== null, fn });
}

/** A BONSAI_HOME on a tmpfs of a given size: `await using tmpfs = await TmpfsHome.mount(...)`. */
export class TmpfsHome implements AsyncDisposable {
  /** BONSAI_HOME as bonsai sees it: a folder on the tmpfs. */
  readonly home: string;
  /** The tmpfs itself, as programs run inside the namespace see it. */
  readonly root: string;
  readonly #holder: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;

  private constructor(mountPoint: string, holder: Deno.ChildProcess) {
    this.root = mountPoint;
    this.home = join(mountPoint, "home");
    this.#holder = holder;
    this.#stdin = holder.stdin.getWriter();
  }

  /** Mounts a tmpfs of `sizeBytes` (rounded up to pages) in a new namespace. */
  static async mount(options: { sizeBytes: number }): Promise<TmpfsHome> {
    const mountPoint = await Deno.makeTempDir({ prefix: "bonsai-tmpfs-" });
    // The holder mounts, says so, and keeps the namespace alive until its stdin closes.
    const holder = new Deno.Command("unshare", {
      args: [
        "-r",
        "-m",
        "sh",
        "-c",
        `mount -t tmpfs -o size=${options.sizeBytes},mode=0755 tmpfs "$0" && echo ready && read -r _ || true`,
        mountPoint,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const tmpfs = new TmpfsHome(mountPoint, holder);
    const reader = holder.stdout.getReader();
    const first = await reader.read();
    reader.releaseLock();
    if (new TextDecoder().decode(first.value ?? new Uint8Array()).trim() !== "ready") {
      const status = await tmpfs.#close();
      throw new Error(`Mounting a tmpfs failed (${status})`);
    }
    return tmpfs;
  }

  /** A path on the tmpfs as this process reaches it (file operations only, not SQLite). */
  outside(...parts: string[]): string {
    return join(`/proc/${this.#holder.pid}/root${this.root}`, ...parts);
  }

  /** Bytes free on the tmpfs. */
  freeBytes(): number {
    const s = statfsSync(this.outside());
    return Number(s.bavail) * Number(s.bsize);
  }

  /** Fills the tmpfs with a filler file until at most `leaveBytes` are free. */
  async fill(leaveBytes: number): Promise<void> {
    using file = await Deno.open(this.outside("filler"), { create: true, append: true });
    for (let free = this.freeBytes(); free > leaveBytes; free = this.freeBytes()) {
      const want = Math.max(4096, Math.min(1 << 20, free - leaveBytes));
      try {
        await file.write(new Uint8Array(want));
      } catch (err) {
        if ((err as { code?: string }).code === "ENOSPC") return;
        throw err;
      }
    }
  }

  /** Frees the space `fill` took. */
  async free(): Promise<void> {
    await Deno.remove(this.outside("filler")).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }

  /** Runs bonsai (`deno run -A main.ts ...args`) inside the namespace, to the end. */
  run(
    args: string[],
    options: { cwd: string; env: Record<string, string>; stdin?: string },
  ): Promise<ProcessResult> {
    return this.deno(["run", "-A", MAIN, ...args], {
      ...options,
      env: { ...options.env, BONSAI_HOME: this.home },
    });
  }

  /** Runs `deno ...args` inside the namespace, to the end (only the given environment). */
  deno(
    args: string[],
    options: { cwd: string; env: Record<string, string>; stdin?: string },
  ): Promise<ProcessResult> {
    const enter = [
      `--target=${this.#holder.pid}`,
      "--user",
      "--mount",
      "--preserve-credentials",
      `--wd=${options.cwd}`,
      "--",
    ];
    return runToEnd("nsenter", [...enter, Deno.execPath(), ...args], {
      env: options.env,
      stdin: options.stdin,
    });
  }

  /**
   * Copies the database files of the home (no bonsai may have it open) into `dir` and
   * returns the copy's path, for SQLite to open.
   */
  async copyDatabase(dir: string): Promise<string> {
    await Deno.mkdir(dir, { recursive: true });
    for (const suffix of ["", "-wal"]) {
      try {
        await Deno.copyFile(
          this.outside("home", `bonsai.db${suffix}`),
          join(dir, `bonsai.db${suffix}`),
        );
      } catch (err) {
        // No WAL: the last connection checkpointed it away.
        if (!(suffix && err instanceof Deno.errors.NotFound)) throw err;
      }
    }
    return join(dir, "bonsai.db");
  }

  /** Ends the holder (and with it the namespace and the tmpfs); returns how it ended. */
  async #close(): Promise<string> {
    try {
      await this.#stdin.close();
    } catch (err) {
      // A holder that failed to mount has exited already: its stdin is a broken pipe.
      if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
    }
    const status = await this.#holder.status;
    const stderr = await new Response(this.#holder.stderr).text();
    await this.#holder.stdout.cancel();
    // Outside the namespace the mount point was never anything but an empty folder.
    await Deno.remove(this.root);
    return `exit code ${status.code}${stderr.trim() ? `: ${stderr.trim()}` : ""}`;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#close();
  }
}
