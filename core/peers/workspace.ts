import { dirname } from "node:path";
import { BonsaiError, isBonsaiError } from "../errors.ts";
import type { WriteLease } from "./write_lease.ts";

/**
 * The project's files as a workspace shared with peers (P2): a write goes through the
 * project's write lease and only lands on the content the tool based it on.
 */
export interface Workspace {
  /**
   * Replaces (or creates) the file at `target` with `content`, atomically, if it still holds
   * `expected` (null: it must not exist), under the project's write lease. Returns null
   * when written, else why not, in words for the model (the file changed since, the lease
   * was lost or stayed with a peer).
   */
  replaceFile(
    target: { readonly abs: string; readonly rel: string },
    content: string,
    expected: string | null,
    signal: AbortSignal,
  ): Promise<string | null>;
}

/** The file changed between the tool's read and the commit. */
class ChangedSince extends Error {}

/**
 * The shared workspace under a write lease (P2). A file is replaced by writing a temporary
 * file beside it, then, in one database transaction that first confirms the lease token,
 * checking the file still holds what the tool based its change on and renaming the
 * temporary file over it. Every writer goes through the lease, and the rename happens
 * while the transaction holds the database's write lock, so no peer can take the lease and
 * write between the check and the rename; a writer that was paused past its lease changes
 * nothing and tells the model to read the file again.
 */
export function leasedWorkspace(lease: WriteLease): Workspace {
  return {
    async replaceFile(target, content, expected, signal) {
      let token: number;
      try {
        token = await lease.acquire(signal);
      } catch (err) {
        if (isBonsaiError(err, "LEASE_BUSY")) return `Not written: ${err.message}`;
        throw err;
      }
      const tmp = `${target.abs}.bonsai-${crypto.randomUUID().slice(0, 8)}.tmp`;
      try {
        await Deno.mkdir(dirname(target.abs), { recursive: true });
        const mode = modeOf(target.abs);
        await Deno.writeTextFile(tmp, content, mode === null ? {} : { mode });
        if (mode !== null) await Deno.chmod(tmp, mode);
        lease.commit(token, () => {
          if (contentOf(target.abs) !== expected) throw new ChangedSince();
          Deno.renameSync(tmp, target.abs);
        });
        return null;
      } catch (err) {
        if (err instanceof ChangedSince) {
          return `Not written: ${target.rel} changed since you read it (another process or the user wrote it); read it again and redo the change`;
        }
        if (isBonsaiError(err, "LEASE_LOST")) {
          return `Not written: ${err.message}; ${target.rel} may have changed since you read it: read it again and redo the change`;
        }
        throw err;
      } finally {
        await Deno.remove(tmp).catch((err) => {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        });
        lease.release(token);
      }
    },
  };
}

/** A workspace for places with no session to hold a lease (a verification command's context). */
export const noWorkspace: Workspace = {
  replaceFile() {
    return Promise.reject(new BonsaiError("INTERNAL", "No workspace writes here"));
  },
};

/** The permission bits of an existing file (a replaced file keeps them), or null. */
function modeOf(path: string): number | null {
  try {
    const mode = Deno.statSync(path).mode;
    return mode === null ? null : mode & 0o7777;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

function contentOf(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
