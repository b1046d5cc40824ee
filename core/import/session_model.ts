// The provider and model an imported session is listed with: the one that answered most
// of its turns. Sub-agents (Claude Code's warm-ups and searches, Codex's spawned agents)
// often run a smaller model many times, so the session's own lane decides when it has turns.
import type { Db } from "../storage/db.ts";
import { LedgerStore } from "../storage/ledger.ts";
import { SessionStore } from "../storage/sessions.ts";

/** Turns of one provider and model in a session, by lane. */
export interface ModelTurns {
  readonly provider: string;
  readonly model: string;
  /** Turns in the session's own lane. */
  readonly parentTurns: number;
  /** Turns in every lane. */
  readonly turns: number;
  /** Tokens of every lane (breaks ties). */
  readonly tokens: number;
}

/**
 * The model with the most turns in the session's own lane (with none there, in any lane);
 * ties go to the one with more tokens, then to the first name. Null without turns.
 */
export function sessionModel(
  rows: readonly ModelTurns[],
): { provider: string; model: string } | null {
  const own = rows.some((r) => r.parentTurns > 0);
  let best: ModelTurns | null = null;
  const count = (r: ModelTurns) => own ? r.parentTurns : r.turns;
  for (const r of rows) {
    if (count(r) <= 0) continue;
    if (
      !best || count(r) > count(best) ||
      (count(r) === count(best) &&
        (r.tokens > best.tokens || (r.tokens === best.tokens && r.model < best.model)))
    ) best = r;
  }
  return best ? { provider: best.provider, model: best.model } : null;
}

/** Adds one turn to a per-model tally keyed by provider and model. */
export function addTurn(
  tally: Map<string, ModelTurns>,
  turn: { provider: string; model: string; lane: string; tokens: number },
): void {
  const key = `${turn.provider}\0${turn.model}`;
  const r = tally.get(key);
  const parent = turn.lane === "parent" ? 1 : 0;
  tally.set(key, {
    provider: turn.provider,
    model: turn.model,
    parentTurns: (r?.parentTurns ?? 0) + parent,
    turns: (r?.turns ?? 0) + 1,
    tokens: (r?.tokens ?? 0) + turn.tokens,
  });
}

/**
 * The turns an import writes, tallied per session and model, and the provider and model they
 * give each session once the import is done.
 */
export class SessionModels {
  readonly #db: Db;
  readonly #turns = new Map<string, Map<string, ModelTurns>>();
  readonly #hints = new Map<string, { provider: string; model: string }>();

  constructor(db: Db) {
    this.#db = db;
  }

  /** Counts one written turn of a session. */
  add(sessionId: string, turn: { provider: string; model: string; lane: string; tokens: number }) {
    let tally = this.#turns.get(sessionId);
    if (!tally) this.#turns.set(sessionId, tally = new Map());
    addTurn(tally, turn);
  }

  /** The model a session ran by its source's word, used when none of its turns says. */
  hint(sessionId: string, provider: string, model: string): void {
    this.#hints.set(sessionId, { provider, model });
  }

  /**
   * Gives each session this import wrote to its provider and model: from this import's tally
   * for a session it created (`fresh`), from the ledger for one that had turns before. Call
   * it after the last commit; it starts a new tally.
   */
  save(fresh: (sessionId: string) => boolean): void {
    const ledger = new LedgerStore(this.#db);
    const changes: { id: string; provider: string; model: string }[] = [];
    for (const id of new Set([...this.#turns.keys(), ...this.#hints.keys()])) {
      const tally = this.#turns.get(id);
      const rows = !tally ? [] : fresh(id) ? [...tally.values()] : ledgerTurns(ledger, id);
      const chosen = sessionModel(rows) ?? this.#hints.get(id) ?? null;
      if (chosen) changes.push({ id, ...chosen });
    }
    this.#turns.clear();
    this.#hints.clear();
    if (changes.length === 0) return;
    const sessions = new SessionStore(this.#db);
    this.#db.write(() => {
      for (const c of changes) {
        const s = sessions.find(c.id);
        if (!s || (s.provider === c.provider && s.model === c.model)) continue;
        sessions.setModel(c.id, c.provider, c.model);
      }
    });
  }
}

/** A session's turns per model, from every row it holds. */
function ledgerTurns(ledger: LedgerStore, sessionId: string): ModelTurns[] {
  const tally = new Map<string, ModelTurns>();
  for (const b of ledger.breakdown(sessionId)) {
    const key = `${b.provider}\0${b.model}`;
    const r = tally.get(key);
    tally.set(key, {
      provider: b.provider,
      model: b.model,
      parentTurns: (r?.parentTurns ?? 0) + (b.lane === "parent" ? b.turns : 0),
      turns: (r?.turns ?? 0) + b.turns,
      tokens: (r?.tokens ?? 0) + b.inputTokens + b.outputTokens + b.cacheReadTokens +
        b.cacheWriteTokens,
    });
  }
  return [...tally.values()];
}
