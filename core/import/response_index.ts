import { BonsaiError } from "../errors.ts";
import type { ImportedRow, LedgerKey, LedgerStore } from "../storage/ledger.ts";

const EMPTY = 0; // ledger ids start at 1
const MAX_LOAD = 0.75;
const INITIAL_SLOTS = 1 << 10;
const PAGE_ROWS = 10_000;

/**
 * Which ledger row holds an imported response, by its external id: an in-memory stand-in
 * for the `ledger_external` index while a big import runs without it (or finds it dropped
 * by another import). Response ids are random, so at a million rows every commit rewrote a
 * few thousand scattered index pages: a third of the import's writes.
 *
 * It keeps a 32-bit hash and the row id of every imported row (8 bytes a slot, 16 MiB at a
 * million rows). A hash match is checked against the row itself, so a collision costs one
 * read, never a wrong answer. `catchUp()`, run inside each commit's write transaction, adds
 * the rows written since (by this import or any other process), and starts over if the
 * newest row it knew was deleted, since SQLite then hands its id out again.
 */
export class ResponseIndex {
  readonly #ledger: LedgerStore;
  #hashes = new Uint32Array(INITIAL_SLOTS);
  #ids = new Uint32Array(INITIAL_SLOTS);
  #size = 0;
  /**
   * The newest row read so far, to notice its deletion: rows go only with their session,
   * so a row that took its id over belongs to another session.
   */
  #last: LedgerKey | null = null;
  readonly #pageRows: number;

  /** `pageRows`: how many rows `catchUp` reads per query. */
  constructor(ledger: LedgerStore, options: { pageRows?: number } = {}) {
    this.#ledger = ledger;
    this.#pageRows = options.pageRows ?? PAGE_ROWS;
  }

  /**
   * Reads the rows added since the last call. Inside the write transaction it sees every
   * row there is; before it (a first read of a big ledger, kept out of the lock), the next
   * call inside catches up on what changed meanwhile.
   */
  catchUp(): void {
    const last = this.#last;
    const now = last && this.#ledger.importedRow(last.id);
    if (last && (now?.sessionId !== last.sessionId || now?.externalId !== last.externalId)) {
      this.#clear(); // the newest row is gone: its id (and later ones) may now name others
    }
    // In pages, so that starting on a big ledger never holds it all in memory at once.
    for (;;) {
      const rows = this.#ledger.externalIdsAfter(this.#last?.id ?? 0, this.#pageRows);
      for (const row of rows) if (row.externalId !== null) this.#add(row.externalId, row.id);
      const newest = rows.at(-1);
      if (newest) this.#last = newest;
      if (rows.length < this.#pageRows) return;
    }
  }

  /** The row imported under `externalId`, or null. */
  find(externalId: string): ImportedRow | null {
    const mask = this.#ids.length - 1;
    const hash = hashKey(externalId);
    for (let slot = hash & mask; this.#ids[slot] !== EMPTY; slot = (slot + 1) & mask) {
      if (this.#hashes[slot] !== hash) continue;
      const row = this.#ledger.importedRow(this.#ids[slot]!);
      if (row?.externalId === externalId) return row;
    }
    return null;
  }

  #add(externalId: string, id: number): void {
    if (id > 0xffff_ffff) {
      throw new BonsaiError("INTERNAL", `ledger row id ${id} is beyond what an import can index`);
    }
    if ((this.#size + 1) > this.#ids.length * MAX_LOAD) this.#grow();
    this.#place(hashKey(externalId), id);
    this.#size++;
  }

  #place(hash: number, id: number): void {
    const mask = this.#ids.length - 1;
    let slot = hash & mask;
    while (this.#ids[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.#hashes[slot] = hash;
    this.#ids[slot] = id;
  }

  #grow(): void {
    const hashes = this.#hashes;
    const ids = this.#ids;
    this.#hashes = new Uint32Array(ids.length * 2);
    this.#ids = new Uint32Array(ids.length * 2);
    for (let slot = 0; slot < ids.length; slot++) {
      if (ids[slot] !== EMPTY) this.#place(hashes[slot]!, ids[slot]!);
    }
  }

  #clear(): void {
    this.#hashes = new Uint32Array(INITIAL_SLOTS);
    this.#ids = new Uint32Array(INITIAL_SLOTS);
    this.#size = 0;
    this.#last = null;
  }
}

/** FNV-1a over the UTF-16 code units, as an unsigned 32-bit number. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
