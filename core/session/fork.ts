import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { type Owner, startSession } from "./lifecycle.ts";
import type { LedgerRef, SessionRuntime } from "./runtime.ts";

/**
 * Carries a runtime's work on in a new session after another process took its session over
 * (P2 fencing): what was not saved — the transcript entries, ledger rows, tool calls, reads
 * and changed files — moves to a new session linked by `parent_id`, which also gets the
 * whole context the model had, the plan and what it knew of the files, so the work goes on
 * where it stopped. Nothing is written to the session that was taken. Returns the new
 * runtime, owned by `owner` and saved.
 */
export function forkUnsaved(
  db: Db,
  ids: Ids,
  from: SessionRuntime,
  input: { owner: Owner; title: string },
): SessionRuntime {
  const s = from.session;
  const state = from.unsaved();
  const fork = startSession(db, ids, {
    projectPath: s.projectPath,
    owner: input.owner,
    provider: s.provider,
    model: s.model,
    reasoning: s.reasoning,
    parentId: s.id,
  });
  fork.setTitle(input.title, "derived");
  const refs = new Map<LedgerRef, LedgerRef>();
  for (const ref of state.ledger) {
    refs.set(ref, fork.addLedger({ ...ref.entry, sessionId: fork.id }));
  }
  const seqs = new Map<number, number>();
  for (const entry of state.transcript) {
    // A ledger row already saved with the old session stays there; the entry points at it.
    const ledger = entry.ledger ? refs.get(entry.ledger) ?? null : null;
    const ledgerId = ledger ? null : entry.ledger?.id ?? entry.input.ledgerId ?? null;
    seqs.set(entry.seq, fork.addMessage({ ...entry.input, ledgerId }, ledger));
  }
  const seq = (old: number | null) => (old === null ? null : seqs.get(old) ?? null);
  for (const c of state.context) fork.addContext(c.message, seq(c.messageSeq));
  for (const call of state.toolCalls) {
    fork.putToolCall({ ...call, messageSeq: seq(call.messageSeq) });
  }
  for (const read of state.reads) fork.recordRead(read);
  for (const file of state.changed) fork.adoptChanged(file);
  fork.setPlan(state.plan);
  fork.adoptFileHashes(state.fileHashes);
  fork.flush();
  return fork;
}
