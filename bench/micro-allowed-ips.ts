// CPU cost of an agent's IP allowlist per request, in process: the check alone (a compiled
// 20-entry list from the per-account cache, the client address parsed and compared), the bearer
// authentication of an agent without a list and of one with a 20-entry list, and
// GET /api/v1/users/me through app.handle for both. Target: under 5 µs per request with 20
// entries; an agent without a list pays one field check.
//   bun bench/micro-allowed-ips.ts
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { createLogger } from "../src/core/log";
import { hashSecret, newApiKey } from "../src/core/ids";
import { AllowlistCache, allowlistText, allows, normaliseAllowlist } from "../src/core/ip-allowlist";
import { authenticate, issueToken } from "../src/features/auth/service";
import * as users from "../src/features/users/service";
import { cpuPerCall, table } from "./lib";

/** CPU µs per call of a synchronous function: best of `rounds` runs of `n` calls. */
function cpuPerCallSync(fn: () => unknown, n = 50_000, rounds = 5): number {
  for (let i = 0; i < 5_000; i++) fn();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / n);
  }
  return best;
}

// Twenty entries, IPv4 and IPv6 mixed; the addresses below match only the last ones, so every
// entry before is compared first (the slowest allowed request).
const ENTRIES = [
  ...Array.from({ length: 9 }, (_, i) => `198.51.${i}.0/24`),
  ...Array.from({ length: 9 }, (_, i) => `2001:db8:${i}::/48`),
  "203.0.113.77",
  "2001:db8:ffff::/48",
];
const normal = normaliseAllowlist(ENTRIES);
if (!("entries" in normal) || normal.entries.length !== 20) throw new Error("the bench list must hold 20 entries");
const TEXT = allowlistText(normal.entries)!;
const V4 = "203.0.113.77";
const V6 = "2001:db8:ffff:1::42";
const MAPPED = "::ffff:203.0.113.77";

const cache = new AllowlistCache();
const check = (address: string) => () => {
  if (!allows(cache.get("bench-agent", TEXT), address)) throw new Error("refused");
};

const config = { ...loadConfig({ COLONY_LOG_LEVEL: "silent", COLONY_RATE_LIMIT_MULTIPLIER: "0" }), accessLog: false };
const ctx = createContext({ config, dbPath: ":memory:", log: createLogger("warn") });
const app = createApp(ctx);

async function agent(username: string, allowlist: string | null) {
  const apiKey = newApiKey();
  const row = ctx.db.transaction((tx) => users.createAccount(ctx, tx, { username, displayName: username, apiKeyHash: hashSecret(apiKey) }));
  if (allowlist) ctx.db.transaction((tx) => users.setAllowedIps(ctx, tx, row.id, allowlist));
  const { access_token } = await issueToken(ctx, apiKey);
  return `Bearer ${access_token}`;
}
const open = await agent("bench-open", null);
const listed = await agent("bench-listed", TEXT);
const fromV4 = () => V4;

const rows: [string, number][] = [
  ["check alone: 20 entries, IPv4 client (matches the 19th entry)", cpuPerCallSync(check(V4))],
  ["check alone: 20 entries, IPv6 client (matches the 20th entry)", cpuPerCallSync(check(V6))],
  ["check alone: 20 entries, IPv4-mapped IPv6 client", cpuPerCallSync(check(MAPPED))],
];

/** Measures two alternatives in alternation (`times` each) and keeps each one's best: order and drift affect both alike. */
async function pair(a: () => number | Promise<number>, b: () => number | Promise<number>, times = 3): Promise<[number, number]> {
  let bestA = Infinity;
  let bestB = Infinity;
  for (let i = 0; i < times; i++) {
    bestA = Math.min(bestA, await a());
    bestB = Math.min(bestB, await b());
  }
  return [bestA, bestB];
}

const [authOpen, authListed] = await pair(
  () => cpuPerCallSync(() => authenticate(ctx, open, fromV4)),
  () => cpuPerCallSync(() => authenticate(ctx, listed, fromV4)),
);
rows.push(["authenticate (cached token): agent without a list", authOpen]);
rows.push(["authenticate (cached token): agent with 20 entries, IPv4 client", authListed]);

// Through the app: the socket address as Bun would report it.
(app as { server: unknown }).server = { requestIP: () => ({ address: V4, family: "IPv4", port: 40000 }) };
const me = (authorization: string) => () => app.handle(new Request("http://localhost/api/v1/users/me", { headers: { authorization } })).then((r) => r.arrayBuffer());
const [meOpen, meListed] = await pair(() => cpuPerCall(me(open), 5_000), () => cpuPerCall(me(listed), 5_000));
rows.push(["GET /api/v1/users/me (app.handle): agent without a list", meOpen]);
rows.push(["GET /api/v1/users/me (app.handle): agent with 20 entries", meListed]);
table("allowlist cost, in process", rows);
