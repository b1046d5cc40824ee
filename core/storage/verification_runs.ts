import type { Db } from "./db.ts";

/** A verification command run or a self-review pass (A4). */
export interface VerificationRun {
  readonly id: number;
  readonly kind: "verify" | "self-review";
  readonly command: string | null;
  readonly exitCode: number | null;
  readonly durationMs: number | null;
  readonly output: string | null;
  /** JSON findings of a self-review. */
  readonly findings: string | null;
  readonly ledgerId: number | null;
  readonly createdAt: number;
}

interface VerificationRecord {
  id: number;
  kind: "verify" | "self-review";
  command: string | null;
  exit_code: number | null;
  duration_ms: number | null;
  output: string | null;
  findings: string | null;
  ledger_id: number | null;
  created_at: number;
}

/** Verification and self-review runs of sessions. */
export class VerificationStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records a run; output and findings are redacted. */
  add(sessionId: string, run: Omit<VerificationRun, "id">): VerificationRun {
    const db = this.#db;
    const r = db.redactor;
    const { lastInsertRowid } = db.prepare(
      `INSERT INTO verification_runs (session_id, kind, command, exit_code, duration_ms, output, findings, ledger_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      sessionId,
      run.kind,
      r.redactOptional(run.command),
      run.exitCode,
      run.durationMs,
      r.redactOptional(run.output),
      r.redactOptional(run.findings),
      run.ledgerId,
      run.createdAt,
    );
    return { ...run, id: Number(lastInsertRowid) };
  }

  /** The session's runs in order. */
  list(sessionId: string): VerificationRun[] {
    const rows = this.#db.prepare(
      "SELECT * FROM verification_runs WHERE session_id = ? ORDER BY id",
    ).all(sessionId) as unknown as VerificationRecord[];
    return rows.map((v) => ({
      id: v.id,
      kind: v.kind,
      command: v.command,
      exitCode: v.exit_code,
      durationMs: v.duration_ms,
      output: v.output,
      findings: v.findings,
      ledgerId: v.ledger_id,
      createdAt: v.created_at,
    }));
  }
}
