// What response validation costs on GET /api/v1/users/me, piece by piece.
//   bun bench/micro-validation.ts
//
// Elysia validates every response that has a `response` schema: Encode (TypeBox check, plus a
// transform walk when the schema holds a transform type such as Elysia's t.Integer) and then
// Clean (normalisation). Importing @elysiajs/openapi re-registers TypeBox string formats such as
// "uuid" with checks that build a new Zod schema on every call; src/http/openapi.ts puts
// Elysia's regular expressions back. The imports below are ordered to measure both.
import { FormatRegistry } from "@sinclair/typebox";
import { t } from "elysia";
import { getSchemaValidator } from "elysia/schema";
import { cpuPerCall, table } from "./lib";

const elysiaUuid = FormatRegistry.Get("uuid")!;
await import("@elysiajs/openapi");
const openapiUuid = FormatRegistry.Get("uuid")!;
await import("../src/http/openapi");
const appUuid = FormatRegistry.Get("uuid")!;
const { UserOut } = await import("../src/features/users/routes");

// A representative UserOut body (what userOut() returns for a fresh agent).
const body: Record<string, unknown> = {
  id: "019a9c0e-1234-7abc-8def-0123456789ab",
  username: "bench-agent",
  display_name: "Bench Agent",
  user_type: "agent",
  bio: null,
  lightning_address: null,
  nostr_pubkey: null,
  npub: null,
  evm_address: null,
  capabilities: null,
  social_links: null,
  karma: 0,
  trust_level: { name: "Newcomer", min_karma: 0, icon: "🌱", rate_multiplier: 1 },
  team_role: null,
  current_model: null,
  harness: null,
  last_active: null,
  created_at: "2026-01-01T00:00:00.000Z",
  avatar_url: "http://127.0.0.1:8080/u/bench-agent/avatar",
};

const validator = (schema: unknown, normalize: unknown) => getSchemaValidator(schema as any, { normalize } as any) as any;
const schema = UserOut as any;
// The same schema with Elysia's t.Integer() for `karma`, for comparison.
const withTransform = t.Object({ ...schema.properties, karma: t.Integer() });
for (const s of [schema, withTransform]) {
  if (!validator(s, "typebox").Check(body)) throw new Error("sample body does not match UserOut; update bench/micro-validation.ts");
}

const useUuid = (f: (v: string) => boolean) => FormatRegistry.Set("uuid", f);
const rows: [string, number][] = [];
rows.push(['"uuid" format check, Elysia\'s regex', await cpuPerCall(() => elysiaUuid(body.id as string), 50_000)]);
rows.push(['"uuid" format check, as @elysiajs/openapi registers it (Zod per call)', await cpuPerCall(() => openapiUuid(body.id as string), 50_000)]);
rows.push(['"uuid" format check, as the app runs (after src/http/openapi.ts)', await cpuPerCall(() => appUuid(body.id as string), 50_000)]);

const enc = validator(schema, "typebox");
const encTransform = validator(withTransform, "typebox");
useUuid(openapiUuid);
rows.push(["UserOut Encode, Zod uuid format", await cpuPerCall(() => enc.Encode(body))]);
useUuid(appUuid);
rows.push(["UserOut Encode, as the app runs", await cpuPerCall(() => enc.Encode(body))]);
rows.push(["UserOut Encode, with t.Integer() for karma (transform walk)", await cpuPerCall(() => encTransform.Encode(body))]);
const cleanTypebox = validator(schema, "typebox");
rows.push(['UserOut Clean, normalize: "typebox" (Value.Clean, as the app runs)', await cpuPerCall(() => cleanTypebox.Clean(body))]);
const cleanMirror = validator(schema, true);
rows.push(["UserOut Clean, normalize: true (exact-mirror)", await cpuPerCall(() => cleanMirror.Clean(body))]);
rows.push(["JSON.stringify(body), for scale", await cpuPerCall(() => JSON.stringify(body))]);

table("response validation step (UserOut)", rows);
process.exit(0);
