import assert from "node:assert/strict";
import { ASSETS } from "../../web/assets.ts";
import { ASSET_VERSION, compressedSize, CSP, webPages } from "../../web/pages.ts";

const handle = webPages();
const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  handle(new Request(`http://127.0.0.1:7420${path}`, { method, headers }), null);
const getIn = (path: string, headers: Record<string, string> = {}) =>
  handle(new Request(`http://127.0.0.1:7420${path}`, { headers }), { kind: "cookie" });

Deno.test("webPages() keeps every page and asset but the login's behind the login", async (t) => {
  await t.step("pages redirect to the login, coming back after", async () => {
    for (const path of ["/", "/sessions", "/usage", "/session/01abc"]) {
      const res = await get(`${path}?x=1`);
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(`${path}?x=1`)}`);
    }
  });
  await t.step("assets answer 401 unless the login page needs them", async () => {
    for (const [name, asset] of ASSETS) {
      for (const path of [`/assets/${name}`, `/assets/${ASSET_VERSION}/${name}`]) {
        const res = await get(path);
        await res.body?.cancel();
        assert.equal(res.status, asset.public ? 200 : 401, path);
      }
    }
    assert.equal((await get("/anything")).status, 401);
    assert.equal((await get("/login")).status, 200);
  });
});

Deno.test("webPages() serves strict, script-free HTML and cacheable assets", async (t) => {
  await t.step("the shell: CSP without inline script, versioned asset URLs", async () => {
    const res = await getIn("/session/01abc");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-security-policy"), CSP);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "every script has a src");
    assert.doesNotMatch(html, /\son\w+=/, "no event attributes");
    assert.match(html, new RegExp(`src="/assets/${ASSET_VERSION}/app\\.js"`));
    assert.equal((await getIn("/nowhere")).status, 404);
    assert.equal((await get("/", {}, "POST")).status, 405);
  });
  await t.step("versioned assets are immutable; others revalidate with an ETag", async () => {
    const fixed = await getIn(`/assets/${ASSET_VERSION}/app.js`);
    assert.match(fixed.headers.get("cache-control")!, /immutable/);
    assert.equal(fixed.headers.get("content-type"), "text/javascript; charset=utf-8");
    const plain = await getIn("/assets/app.js");
    assert.equal(plain.headers.get("cache-control"), "no-cache");
    const etag = plain.headers.get("etag")!;
    assert.equal((await getIn("/assets/app.js", { "if-none-match": etag })).status, 304);
  });
  await t.step("gzip when the browser takes it", async () => {
    const res = await getIn("/assets/style.css", { "accept-encoding": "gzip, br" });
    assert.equal(res.headers.get("content-encoding"), "gzip");
    const text = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
    assert.equal(text, ASSETS.get("style.css")!.body);
  });
  await t.step("every asset together is at most 250 KB compressed", async () => {
    const size = await compressedSize();
    assert.ok(size.gzip <= 250 * 1024, `${size.gzip} bytes`);
  });
});
