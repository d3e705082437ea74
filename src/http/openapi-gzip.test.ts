// /openapi.json is about 1 MB: sent gzipped to clients that accept it, compressed once.
import { expect, test } from "bun:test";
import { setup } from "../../test/harness";

const h = setup();

const get = (path: string, headers: Record<string, string> = {}) => h.app.handle(new Request(`http://localhost${path}`, { headers }));

test("/openapi.json is gzipped for clients that accept it, says Vary: Accept-Encoding, and unzips to the plain document", async () => {
  const plain = await get("/openapi.json");
  expect(plain.headers.get("content-encoding")).toBeNull();
  expect(plain.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
  const text = await plain.text();
  expect(text.length).toBeGreaterThan(100_000);

  const zipped = await get("/openapi.json", { "accept-encoding": "gzip, deflate, br" });
  expect(zipped.headers.get("content-encoding")).toBe("gzip");
  expect(zipped.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
  expect(zipped.headers.get("content-type")).toBe("application/json");
  const bytes = new Uint8Array(await zipped.arrayBuffer());
  expect(bytes.length).toBeLessThan(text.length / 4);
  expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(text);
  // One ETag for both encodings of the same document: a match is 304 either way.
  expect(zipped.headers.get("etag")).toBe(plain.headers.get("etag"));
  expect((await get("/openapi.json", { "accept-encoding": "gzip", "if-none-match": plain.headers.get("etag")! })).status).toBe(304);
  // The alias answers the same.
  expect((await get("/api/v1/openapi.json", { "accept-encoding": "gzip" })).headers.get("content-encoding")).toBe("gzip");
});
