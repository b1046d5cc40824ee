import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { RandomBytes } from "../ids.ts";
import { base64url, type Credentials, secretHash } from "./credentials.ts";

/** Who made a request: a bearer token, a login cookie, or no one (public routes). */
export type Identity = { readonly kind: "token" } | { readonly kind: "cookie" } | {
  readonly kind: "none";
};

/** The login cookie's name. */
export const COOKIE = "bonsai_session";

/** How long a login lasts. */
export const LOGIN_TTL_MS = 12 * 3_600_000;

/** Failed logins allowed per client in a window before it gets 429. */
export const MAX_FAILED_LOGINS = 5;
const FAILED_LOGIN_WINDOW_MS = 60_000;

/**
 * Who may talk to `bonsai serve` (X4): the Host header must name the bound address (a page
 * on another site cannot reach it through DNS rebinding), callers show a bearer token or a
 * login cookie, cookie-authenticated changes carry the server's own Origin (CSRF), and
 * failed logins are rate-limited per client. Logins live in memory: restarting the server
 * logs everyone out, and only hashes of the cookies are kept.
 */
export class Gate {
  readonly #credentials: Credentials;
  readonly #clock: Clock;
  readonly #random: RandomBytes;
  readonly #hosts: ReadonlySet<string>;
  /** Hash of a login cookie → when it expires, and the token it came from (revoking ends it). */
  readonly #logins = new Map<string, { expiresAt: number; tokenHash: string | null }>();
  /** Client → times of its recent failed logins. */
  readonly #failures = new Map<string, number[]>();

  constructor(deps: {
    credentials: Credentials;
    clock: Clock;
    random: RandomBytes;
    /** The `host:port` values the Host header may hold. */
    hosts: readonly string[];
  }) {
    this.#credentials = deps.credentials;
    this.#clock = deps.clock;
    this.#random = deps.random;
    this.#hosts = new Set(deps.hosts.map((h) => h.toLowerCase()));
  }

  /** Why a Host header is refused, or null when it names this server. */
  checkHost(host: string | null): string | null {
    if (host && this.#hosts.has(host.toLowerCase())) return null;
    return `Host '${host ?? ""}' is not this server's address`;
  }

  /** Why a cookie-authenticated change is refused (its Origin is missing or foreign), or null. */
  checkOrigin(origin: string | null, host: string | null): string | null {
    if (origin && host && origin.toLowerCase() === `http://${host.toLowerCase()}`) return null;
    return origin
      ? `Origin '${origin}' may not change anything here`
      : "A change made with a login cookie must carry an Origin header";
  }

  /** The caller's identity from its Authorization header or login cookie, or null. */
  // deno-lint-ignore require-await
  async identify(req: Request): Promise<Identity | null> {
    const auth = req.headers.get("authorization");
    if (auth !== null) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      return m && this.#credentials.checkToken(m[1]!) ? { kind: "token" } : null;
    }
    const cookie = cookieValue(req.headers.get("cookie"), COOKIE);
    if (cookie === null) return null;
    const hash = secretHash(cookie);
    const login = this.#logins.get(hash);
    if (login === undefined) return null;
    const revoked = login.tokenHash !== null && !this.#credentials.checkTokenHash(login.tokenHash);
    if (login.expiresAt <= this.#clock.now() || revoked) {
      this.#logins.delete(hash);
      return null;
    }
    return { kind: "cookie" };
  }

  /**
   * Logs a client in with a token or the password: returns the Set-Cookie value. Wrong
   * credentials are UNAUTHENTICATED; too many from one client, TOO_MANY_REQUESTS.
   */
  async login(
    client: string,
    given: { token?: string; password?: string },
  ): Promise<{ cookie: string; expiresAt: number }> {
    const now = this.#clock.now();
    const recent = (this.#failures.get(client) ?? []).filter((t) =>
      now - t < FAILED_LOGIN_WINDOW_MS
    );
    if (recent.length >= MAX_FAILED_LOGINS) {
      const retry = Math.ceil((recent[0]! + FAILED_LOGIN_WINDOW_MS - now) / 1000);
      throw new BonsaiError(
        "TOO_MANY_REQUESTS",
        `Too many failed logins; try again in ${retry} s`,
        { data: { retry_after: retry } },
      );
    }
    const ok = given.token !== undefined
      ? this.#credentials.checkToken(given.token)
      : given.password !== undefined && await this.#credentials.checkPassword(given.password);
    if (!ok) {
      this.#failures.set(client, [...recent, now]);
      this.#forgetOldFailures(now);
      throw new BonsaiError(
        "UNAUTHENTICATED",
        given.token !== undefined ? "That token is not valid" : "Wrong password",
      );
    }
    this.#failures.delete(client);
    const value = base64url(this.#random(32));
    const expiresAt = now + LOGIN_TTL_MS;
    this.#logins.set(secretHash(value), {
      expiresAt,
      tokenHash: given.token !== undefined ? secretHash(given.token) : null,
    });
    return {
      cookie: `${COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${
        LOGIN_TTL_MS / 1000
      }`,
      expiresAt,
    };
  }

  /** Ends the login behind the request's cookie; returns the Set-Cookie that clears it. */
  logout(req: Request): string {
    const cookie = cookieValue(req.headers.get("cookie"), COOKIE);
    if (cookie !== null) this.#logins.delete(secretHash(cookie));
    return `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }

  /** Whether a password login is possible (the login page offers it). */
  get passwordLogin(): boolean {
    return this.#credentials.hasPassword;
  }

  #forgetOldFailures(now: number): void {
    if (this.#failures.size < 10_000) return;
    for (const [client, times] of this.#failures) {
      if (times.every((t) => now - t >= FAILED_LOGIN_WINDOW_MS)) this.#failures.delete(client);
    }
  }
}

/** The value of cookie `name` in a Cookie header, or null. */
function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
