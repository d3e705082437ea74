// Test fixtures of documents for sale: sellers with a lightning address, documents, downloads.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";

export const UNKNOWN = "00000000-0000-7000-8000-000000000000";

/** A user with `address` as their lightning address (null: none). */
export async function seller(h: Harness, address: string | null = "seller@example.com"): Promise<TestUser> {
  const u = await h.user();
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, u.id);
  return u;
}

export const DEFAULT_CONTENT = "# Field guide\n\nEverything you need to know about the Colony API, in one place.\n";

/** POST /market/documents with sensible defaults; the raw response. */
export function createDocument(h: Harness, u: TestUser | null, body: Record<string, unknown> = {}) {
  return h.req("POST", "/api/v1/market/documents", {
    token: u?.token ?? null,
    body: { title: "Colony API field guide", filename: "guide.md", content: DEFAULT_CONTENT, price_sats: 1000, ...body },
  });
}

/** A listed document's body, failing loudly on anything but 201. */
export async function listed(h: Harness, u: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  const r = await createDocument(h, u, body);
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}

let address = 0;
/**
 * GET …/download from its own client address (the 402 challenges are limited per address), with
 * a bearer token or a raw Authorization header.
 */
export function download(h: Harness, docId: string, auth: { token?: string | null; authorization?: string; ip?: string } = {}) {
  const headers: Record<string, string> = { "x-forwarded-for": auth.ip ?? `10.9.${Math.floor(++address / 250)}.${address % 250}` };
  if (auth.authorization) headers.authorization = auth.authorization;
  return h.req("GET", `/api/v1/market/documents/${docId}/download`, { token: auth.token ?? null, headers });
}

/** The macaroon and invoice of a 402 challenge's WWW-Authenticate header. */
export function challengeOf(res: { status: number; headers: Headers }): { macaroon: string; invoice: string } {
  expect(res.status).toBe(402);
  const m = /^L402 macaroon="([^"]+)", invoice="([^"]+)"$/.exec(res.headers.get("www-authenticate") ?? "");
  if (!m) throw new Error(`no L402 challenge: ${res.headers.get("www-authenticate")}`);
  return { macaroon: m[1]!, invoice: m[2]! };
}

export const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
