// The tally of an import, shared by the writer and the parsing workers.

/** What an import did (`--json` summary). */
export interface ImportStats {
  files: number;
  skippedFiles: number;
  sessions: number;
  messages: number;
  ledgerRows: number;
  /** Rows replaced by a later, fuller copy of the same response (streamed lines). */
  updatedRows: number;
  /** Usage lines dropped because the same response was already counted. */
  duplicates: number;
  /** Lines that were not JSON, or not a record bonsai understands. */
  malformed: number;
  /** Well-formed records of a type bonsai does not know (a newer tool version, say). */
  unknownRecords: number;
  unreadable: number;
  /**
   * Codex forks and spawned sub-agents whose parent rollout was not among the files: the
   * history they copied from it is skipped by timing alone (ccusage 20's rule).
   */
  forksWithoutParent: number;
  /** Codex rollouts from before the record envelope (no usage) imported as sessions. */
  legacyRollouts: number;
  /** Legacy rollouts skipped because they hold no message. */
  legacyNoMessages: number;
  /** Legacy rollouts skipped because their header has no usable start time. */
  legacyNoTimestamp: number;
}

/** A new, empty tally. */
export function emptyStats(): ImportStats {
  return {
    files: 0,
    skippedFiles: 0,
    sessions: 0,
    messages: 0,
    ledgerRows: 0,
    updatedRows: 0,
    duplicates: 0,
    malformed: 0,
    unknownRecords: 0,
    unreadable: 0,
    forksWithoutParent: 0,
    legacyRollouts: 0,
    legacyNoMessages: 0,
    legacyNoTimestamp: 0,
  };
}
