import { createHash, scrypt, timingSafeEqual } from "node:crypto";
import { BonsaiError } from "../errors.ts";
import type { RandomBytes } from "../ids.ts";
import { type ApiTokenRow, ApiTokenStore } from "../storage/api_tokens.ts";
import type { Db } from "../storage/db.ts";

/** Every token starts with this, so a leaked one is easy to recognise (and to redact). */
export const TOKEN_PREFIX = "bonsai_";

/** scrypt's cost: 2^15 × 8 × 128 bytes = 32 MiB and ~50 ms per guess. */
const SCRYPT = { N: 32_768, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 } as const;

/** A password shorter than this is refused when it is set. */
export const MIN_PASSWORD_LENGTH = 8;

/** SHA-256 of a secret, hex: what is stored and compared (never the secret itself). */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** The tokens and the password `bonsai serve` accepts (X4). */
export class Credentials {
  readonly #store: ApiTokenStore;
  readonly #random: RandomBytes;

  constructor(db: Db, random: RandomBytes) {
    this.#store = new ApiTokenStore(db);
    this.#random = random;
  }

  /** A new bearer token: returned once, stored only as its hash. */
  createToken(name: string): { token: string; row: ApiTokenRow } {
    const token = TOKEN_PREFIX + base64url(this.#random(32));
    return { token, row: this.#store.add(secretHash(token), name) };
  }

  /** Every token (ids and names, never the tokens). */
  tokens(): ApiTokenRow[] {
    return this.#store.list();
  }

  /** Revokes the token whose id starts with `prefix` (unique). */
  revoke(prefix: string): ApiTokenRow {
    if (!/^[0-9a-f]{1,64}$/i.test(prefix)) {
      throw new BonsaiError("USAGE", `'${prefix}' is not a token id (hex digits, as listed)`);
    }
    const hits = this.#store.revoke(prefix);
    if (hits.length === 0) throw new BonsaiError("NOT_FOUND", `No token has id '${prefix}'`);
    if (hits.length > 1) {
      throw new BonsaiError("AMBIGUOUS_ID", `Token id prefix '${prefix}' is ambiguous`);
    }
    return hits[0]!;
  }

  /** Whether `token` is a current (unrevoked) token. */
  checkToken(token: string): boolean {
    return token.startsWith(TOKEN_PREFIX) && token.length < 200 &&
      this.#store.use(secretHash(token));
  }

  /** Whether the token with this hash is still current (a login made with it ends with it). */
  checkTokenHash(hash: string): boolean {
    return this.#store.use(hash);
  }

  /** Whether a login password is set. */
  get hasPassword(): boolean {
    return this.#store.password() !== null;
  }

  /** Sets the login password (stored as a salted scrypt hash); null removes it. */
  async setPassword(password: string | null): Promise<void> {
    if (password === null) return this.#store.setPassword(null);
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new BonsaiError(
        "USAGE",
        `A password needs at least ${MIN_PASSWORD_LENGTH} characters`,
      );
    }
    const salt = this.#random(16);
    const key = await derive(password, salt, SCRYPT);
    this.#store.setPassword(
      ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, base64url(salt), base64url(key)].join("$"),
    );
  }

  /** Whether `password` is the saved one (constant time in the key comparison). */
  async checkPassword(password: string): Promise<boolean> {
    const saved = this.#store.password();
    if (saved === null || password.length === 0 || password.length > 1024) return false;
    const [kind, n, r, p, salt, key] = saved.split("$");
    if (kind !== "scrypt" || !salt || !key) return false;
    const expected = fromBase64url(key);
    const got = await derive(password, fromBase64url(salt), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      keyLength: expected.length,
      maxmem: SCRYPT.maxmem,
    });
    return got.length === expected.length && timingSafeEqual(got, expected);
  }
}

function derive(
  password: string,
  salt: Uint8Array,
  o: { N: number; r: number; p: number; keyLength: number; maxmem: number },
): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    scrypt(
      password,
      salt,
      o.keyLength,
      { N: o.N, r: o.r, p: o.p, maxmem: o.maxmem },
      (err, key) => err ? reject(err) : resolve(new Uint8Array(key)),
    )
  );
}

/** Bytes as unpadded base64url. */
export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}
