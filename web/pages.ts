import type { Identity } from "../core/api/gate.ts";
import { type Asset, ASSETS, DOCUMENTS } from "./assets.ts";

/**
 * The Content-Security-Policy of every page: scripts, styles and images only from this
 * server, no inline script or style, no frames, forms post only here.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

/** A hash of every bundled file: the folder versioned asset URLs live in. */
export const ASSET_VERSION = fnv1a(
  [...ASSETS.entries()].map(([name, a]) => `${name}\0${a.body}`).join("\0"),
);

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/** The paths of the app's pages (one shell; the browser renders the page). */
const APP_PAGES = [/^\/$/, /^\/sessions$/, /^\/session\/[0-9A-Za-z]{1,64}$/, /^\/usage$/];

/**
 * The web view's pages for `bonsai serve`'s router (its fallback for every path outside
 * /api/). The login page and its assets are public; without a login, every page redirects
 * to it and every other asset answers 401.
 */
export function webPages(): (req: Request, identity: Identity | null) => Promise<Response> {
  const cache = new Map<Asset, Promise<Encoded>>();
  const versioned = `/assets/${ASSET_VERSION}/`;
  const documents = {
    app: { ...DOCUMENTS.app, body: DOCUMENTS.app.body.replaceAll("/assets/", versioned) },
    login: { ...DOCUMENTS.login, body: DOCUMENTS.login.body.replaceAll("/assets/", versioned) },
  };
  const encoded = (asset: Asset) => {
    let e = cache.get(asset);
    if (!e) cache.set(asset, e = encode(asset));
    return e;
  };
  return async (req, identity) => {
    const url = new URL(req.url);
    if (req.method !== "GET" && req.method !== "HEAD") {
      return plain(405, "Method not allowed", { allow: "GET, HEAD" });
    }
    const path = url.pathname;
    let asset: Asset | undefined;
    // Files under /assets/<version>/ never change (the version is their hash): cached for good.
    let immutable = false;
    if (path === "/login") asset = documents.login;
    else if (path.startsWith(versioned)) {
      asset = ASSETS.get(path.slice(versioned.length));
      immutable = true;
    } else if (path.startsWith("/assets/")) asset = ASSETS.get(path.slice("/assets/".length));
    else if (path === "/favicon.ico") asset = ASSETS.get("icon.svg");
    else if (APP_PAGES.some((p) => p.test(path))) {
      if (!identity) {
        const next = encodeURIComponent(path + url.search);
        return new Response(null, {
          status: 303,
          headers: {
            ...SECURITY_HEADERS,
            location: `/login?next=${next}`,
            "cache-control": "no-store",
          },
        });
      }
      asset = documents.app;
    }
    if (asset && !asset.public && !identity) return plain(401, "Log in first");
    if (!asset) return plain(identity ? 404 : 401, identity ? "No such page" : "Log in first");
    return respond(req, await encoded(asset), immutable);
  };
}

interface Encoded {
  readonly asset: Asset;
  readonly etag: string;
  readonly plain: Uint8Array<ArrayBuffer>;
  readonly gzip: Uint8Array<ArrayBuffer>;
}

async function encode(asset: Asset): Promise<Encoded> {
  const plain = new TextEncoder().encode(asset.body);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", plain));
  const etag = `"${
    Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")
  }"`;
  const gzip = new Uint8Array(
    await new Response(new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  return { asset, etag, plain, gzip };
}

function respond(req: Request, e: Encoded, immutable: boolean): Response {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    "content-type": e.asset.type,
    // Pages and unversioned names are revalidated every time (a new binary, new files).
    "cache-control": immutable ? "private, max-age=31536000, immutable" : "no-cache",
    etag: e.etag,
    vary: "accept-encoding, cookie",
  };
  if (req.headers.get("if-none-match") === e.etag) {
    return new Response(null, { status: 304, headers });
  }
  const gzip = /\bgzip\b/.test(req.headers.get("accept-encoding") ?? "");
  if (gzip) headers["content-encoding"] = "gzip";
  const body = gzip ? e.gzip : e.plain;
  return new Response(req.method === "HEAD" ? null : body, { status: 200, headers });
}

function plain(status: number, text: string, extra: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: {
      ...SECURITY_HEADERS,
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      ...extra,
    },
  });
}

/** The gzip size of every bundled file together (the web view's weight on the wire). */
export async function compressedSize(): Promise<{ files: number; bytes: number; gzip: number }> {
  let bytes = 0;
  let gzip = 0;
  const all = [...ASSETS.values(), ...Object.values(DOCUMENTS)];
  for (const asset of all) {
    const e = await encode(asset);
    bytes += e.plain.length;
    gzip += e.gzip.length;
  }
  return { files: all.length, bytes, gzip };
}
