import type { Db } from "./db.ts";

/** A message or wake between sessions of one project (P3). */
export interface MailItem {
  readonly id: number;
  readonly projectId: number;
  readonly fromSession: string;
  readonly fromTitle: string;
  /** Null: sent to every peer. */
  readonly toSession: string | null;
  readonly kind: "message" | "wake";
  readonly body: string;
  /** How many automatic wakes led to this one (wakes only). */
  readonly hops: number;
  readonly createdAt: number;
}

interface MailRecord {
  id: number;
  project_id: number;
  from_session: string;
  from_title: string;
  to_session: string | null;
  kind: "message" | "wake";
  body: string;
  hops: number;
  created_at: number;
}

const SELECT_MAIL = `SELECT m.id, m.project_id, m.from_session, s.title AS from_title, m.to_session,
  m.kind, m.body, m.hops, m.created_at
  FROM mailbox m JOIN sessions s ON s.id = m.from_session`;

/**
 * The durable mailbox (P3): messages and wakes, and one delivery per consumer. A consumer
 * leases a delivery for a while, applies its effect, and acknowledges it in the same
 * transaction as the effect; a crash before the acknowledgement lets the lease run out and
 * the delivery comes again, and an acknowledged one never does.
 */
export class MailboxStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Posts a message (or wake) with a delivery for each consumer; returns its id. Redacted. */
  post(
    item: Omit<MailItem, "id" | "fromTitle">,
    consumers: readonly string[],
  ): number {
    const db = this.#db;
    return db.write(() => {
      const { id } = db.prepare(
        `INSERT INTO mailbox (project_id, from_session, to_session, kind, body, hops, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).get(
        item.projectId,
        item.fromSession,
        item.toSession,
        item.kind,
        db.redactor.redact(item.body),
        item.hops,
        item.createdAt,
      ) as { id: number };
      const deliver = db.prepare("INSERT INTO deliveries (message_id, consumer) VALUES (?, ?)");
      for (const c of consumers) deliver.run(id, c);
      return id;
    });
  }

  /** Messages `from` sent since `since` (the send rate limit). */
  sentSince(from: string, kind: "message" | "wake", since: number): number {
    return (this.#db.prepare(
      "SELECT count(*) AS n FROM mailbox WHERE from_session = ? AND kind = ? AND created_at >= ?",
    ).get(from, kind, since) as { n: number }).n;
  }

  /** Deliveries of a kind `consumer` acknowledged since `since` (the automatic wake rate limit). */
  receivedSince(consumer: string, kind: "message" | "wake", since: number): number {
    return (this.#db.prepare(
      `SELECT count(*) AS n FROM deliveries d JOIN mailbox m ON m.id = d.message_id
       WHERE d.consumer = ? AND m.kind = ? AND d.acked_at >= ?`,
    ).get(consumer, kind, since) as { n: number }).n;
  }

  /** Deliveries for `consumer` that no one has acknowledged or holds a lease on now, oldest first. */
  due(consumer: string, now: number, limit = 20): MailItem[] {
    return (this.#db.prepare(
      `${SELECT_MAIL} JOIN deliveries d ON d.message_id = m.id
       WHERE d.consumer = ? AND d.acked_at IS NULL AND (d.lease_until IS NULL OR d.lease_until <= ?)
       ORDER BY m.id LIMIT ?`,
    ).all(consumer, now, limit) as unknown as MailRecord[]).map(toItem);
  }

  /** Whether anything is waiting for `consumer` (acknowledged or not is the only question). */
  pending(consumer: string): number {
    return (this.#db.prepare(
      "SELECT count(*) AS n FROM deliveries WHERE consumer = ? AND acked_at IS NULL",
    ).get(consumer) as { n: number }).n;
  }

  /**
   * Leases a delivery to `consumer` until `until` if no one acknowledged it and no live
   * lease holds it; false when it is not this consumer's to take now.
   */
  lease(messageId: number, consumer: string, now: number, until: number): boolean {
    const { changes } = this.#db.prepare(
      `UPDATE deliveries SET lease_until = ?, attempts = attempts + 1
       WHERE message_id = ? AND consumer = ? AND acked_at IS NULL
         AND (lease_until IS NULL OR lease_until <= ?)`,
    ).run(until, messageId, consumer, now);
    return Number(changes) === 1;
  }

  /**
   * Frees the deliveries `consumer` leased and did not acknowledge. For a session taken over:
   * its old owner is fenced out (it can acknowledge nothing), so they need not run out.
   */
  releaseLeases(consumer: string): void {
    this.#db.prepare(
      "UPDATE deliveries SET lease_until = NULL WHERE consumer = ? AND acked_at IS NULL AND lease_until IS NOT NULL",
    ).run(consumer);
  }

  /**
   * Acknowledges a delivery; false when it was acknowledged already. Run it in the
   * transaction that applies the delivery's effect, so both happen or neither does.
   */
  ack(messageId: number, consumer: string, now: number): boolean {
    const { changes } = this.#db.prepare(
      "UPDATE deliveries SET acked_at = ? WHERE message_id = ? AND consumer = ? AND acked_at IS NULL",
    ).run(now, messageId, consumer);
    return Number(changes) === 1;
  }
}

function toItem(r: MailRecord): MailItem {
  return {
    id: r.id,
    projectId: r.project_id,
    fromSession: r.from_session,
    fromTitle: r.from_title,
    toSession: r.to_session,
    kind: r.kind,
    body: r.body,
    hops: r.hops,
    createdAt: r.created_at,
  };
}
