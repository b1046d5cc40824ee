import { dirname } from "node:path";
import { confine } from "../agent/tools/paths.ts";
import { sha256 } from "../agent/tools/tool.ts";
import { messageOf } from "../errors.ts";
import { argPath } from "../session/rewind_plan.ts";
import type { ToolCallRecord } from "../storage/tool_calls.ts";

/** The project's files as a rewind sees them (a real adapter below; tests may pass another). */
export interface RevertFiles {
  /** The file's bytes, or null when it does not exist. `rel` is relative to `root`. */
  read(root: string, rel: string): Promise<Uint8Array | null>;
  /** Replaces or creates the file with `text`, atomically. */
  write(root: string, rel: string, text: string): Promise<void>;
  remove(root: string, rel: string): Promise<void>;
}

/** A file a rewind puts back: to `content`, or deleted when the session created it. */
export interface FileRestore {
  readonly path: string;
  readonly action: "restore" | "delete";
  /** The content before the first change after the step (null when deleting). */
  readonly content: string | null;
  readonly targetHash: string | null;
  /** The hash the session's last change left. */
  readonly expectedHash: string;
  /** The hash the file has now (null: missing). */
  readonly currentHash: string | null;
}

/** A file the tail changed that cannot be put back, and why. */
export interface Unrevertable {
  readonly path: string;
  readonly reason: string;
}

/** What reverting the tail's file changes would do, checked against the disk. */
export interface FileCheck {
  /** Files to put back (including ones changed since: written over only with force). */
  readonly restores: readonly FileRestore[];
  /** Files that no longer hold what bonsai left (edited by someone else, deleted). */
  readonly changedSince: readonly string[];
  /** Files already as they were before the step: nothing to do. */
  readonly unchanged: readonly string[];
  readonly unrevertable: readonly Unrevertable[];
}

/** What a revert did. */
export interface FileOutcome {
  readonly reverted: readonly { path: string; action: "restored" | "deleted" }[];
  readonly failed: readonly Unrevertable[];
}

/** Statuses of write/edit calls that may have changed a file without a checkpoint saying so. */
const UNKNOWN_OUTCOME = new Set(["ok", "lost", "timeout"]);

/**
 * Checks the tail's write and edit calls against the files on disk: per file, the content
 * before its first change in the tail and the hash its last change left. A file with a call
 * that has no usable checkpoint (recorded before checkpoints existed, too large, redacted,
 * an outcome never recorded) cannot be reverted.
 */
export async function checkFiles(
  root: string,
  calls: readonly ToolCallRecord[],
  files: RevertFiles,
): Promise<FileCheck> {
  const byPath = new Map<string, ToolCallRecord[]>();
  const unrevertable = new Map<string, string>();
  for (const c of calls) {
    const path = c.file?.path ?? (UNKNOWN_OUTCOME.has(c.status) ? argPath(c) : null);
    if (path === null) continue;
    byPath.set(path, [...(byPath.get(path) ?? []), c]);
  }
  const restores: FileRestore[] = [];
  const changedSince: string[] = [];
  const unchanged: string[] = [];
  for (const [path, list] of byPath) {
    const missing = list.find((c) => !c.file);
    if (missing) {
      unrevertable.set(
        path,
        missing.status === "ok"
          ? `changed by call ${missing.callId}, recorded before bonsai kept file contents`
          : `call ${missing.callId} may have changed it, but its outcome was not recorded (${missing.status})`,
      );
      continue;
    }
    const first = list[0]!.file!;
    const last = list[list.length - 1]!.file!;
    if (first.beforeHash !== null) {
      if (first.before === null) {
        unrevertable.set(path, "its content before the change was too large to keep (over 1 MiB)");
        continue;
      }
      if (await sha256(first.before) !== first.beforeHash) {
        unrevertable.set(
          path,
          "its stored content before the change is not exact (it held a secret, which is never stored, or was not UTF-8 text)",
        );
        continue;
      }
    }
    let bytes: Uint8Array | null;
    try {
      bytes = await files.read(root, path);
    } catch (err) {
      unrevertable.set(path, `it cannot be read: ${messageOf(err)}`);
      continue;
    }
    const currentHash = bytes === null ? null : await sha256(bytes);
    if (currentHash === first.beforeHash) {
      unchanged.push(path);
      continue;
    }
    if (currentHash !== last.afterHash) changedSince.push(path);
    restores.push({
      path,
      action: first.beforeHash === null ? "delete" : "restore",
      content: first.before,
      targetHash: first.beforeHash,
      expectedHash: last.afterHash,
      currentHash,
    });
  }
  return {
    restores,
    changedSince,
    unchanged,
    unrevertable: [...unrevertable].map(([path, reason]) => ({ path, reason })),
  };
}

/**
 * Puts the checked files back. A file that changed again since the check is left alone
 * unless `force` (then it was written over knowingly). Failures are reported, not thrown:
 * the transcript has already moved.
 */
export async function revertFiles(
  root: string,
  check: FileCheck,
  options: { force: boolean; files: RevertFiles },
): Promise<FileOutcome> {
  const { files, force } = options;
  const reverted: { path: string; action: "restored" | "deleted" }[] = [];
  const failed: Unrevertable[] = [];
  for (const r of check.restores) {
    try {
      const bytes = await files.read(root, r.path);
      const now = bytes === null ? null : await sha256(bytes);
      if (!force && now !== r.currentHash) {
        failed.push({ path: r.path, reason: "it changed again while the rewind ran" });
        continue;
      }
      if (r.action === "delete") {
        if (now !== null) await files.remove(root, r.path);
        reverted.push({ path: r.path, action: "deleted" });
      } else {
        await files.write(root, r.path, r.content!);
        reverted.push({ path: r.path, action: "restored" });
      }
    } catch (err) {
      failed.push({ path: r.path, reason: messageOf(err) });
    }
  }
  return { reverted, failed };
}

/** The real file system, confined to the project root as the tools are (X3). */
export const denoRevertFiles: RevertFiles = {
  async read(root, rel) {
    try {
      return await Deno.readFile(confine(root, rel).abs);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  },
  async write(root, rel, text) {
    const { abs } = confine(root, rel);
    const tmp = `${abs}.bonsai-${crypto.randomUUID().slice(0, 8)}.tmp`;
    let mode: number | null = null;
    try {
      mode = (await Deno.stat(abs)).mode;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      await Deno.mkdir(dirname(abs), { recursive: true });
    }
    await Deno.writeTextFile(tmp, text, mode === null ? {} : { mode });
    try {
      await Deno.rename(tmp, abs);
    } catch (err) {
      await Deno.remove(tmp).catch(() => undefined);
      throw err;
    }
  },
  async remove(root, rel) {
    await Deno.remove(confine(root, rel).abs);
  },
};
