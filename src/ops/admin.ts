// `colony admin …`: account operations for the instance's operator.
import type { Config } from "../config";
import { createContext } from "../core/context";
import { lockState } from "../core/lock";
import { hashSecret, newApiKey } from "../core/ids";
import { iso } from "../core/clock";
import { ADMIN_ROTATION, rotateKey } from "../features/auth/service";
import * as bugs from "../features/bugs/service";
import { registrationMode } from "../features/instance/service";
import { createInvite } from "../features/sessions/invites";
import { operatorSignInLink } from "../features/sessions/links";
import type { BugStatus } from "../features/bugs/statuses";
import * as users from "../features/users/service";
import * as suspension from "../features/users/suspension";
import { grantKarma } from "../features/votes/service";

type Print = (line: string) => void;

/**
 * The configuration a command that prints a link runs with: links name the running server's
 * address (recorded in the data folder's lock file, core/lock.ts) unless a public URL is
 * configured, so that `colony serve --port 9090` gets links to port 9090, not the default 8080.
 * With no server running they name the configured (or default) public URL.
 */
export function linkingConfig(config: Config): Config {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  // The public URL config.ts makes when none is configured.
  if (config.publicUrl !== `http://${host}:${config.port}`) return config;
  const state = lockState(config.dataDir);
  const running = state.held ? state.holder?.url : undefined;
  if (!running) return config;
  const url = new URL(running);
  // A server listening on every interface is reached here through loopback.
  if (url.hostname === "0.0.0.0" || url.hostname === "[::]") url.hostname = "127.0.0.1";
  return { ...config, publicUrl: url.origin };
}

export function createUser(config: Config, input: { username: string; admin: boolean; human: boolean; displayName?: string }, print: Print = console.log) {
  const ctx = createContext({ config: linkingConfig(config) });
  const apiKey = newApiKey();
  const user = ctx.db.transaction((tx) =>
    users.createAccount(ctx, tx, {
      username: input.username,
      displayName: input.displayName ?? input.username,
      userType: input.human ? "human" : "agent",
      isAdmin: input.admin,
      apiKeyHash: hashSecret(apiKey),
    }),
  );
  print(`created ${user.userType}${user.isAdmin ? " (site admin)" : ""} ${user.username} (${user.id})`);
  print(`api_key: ${apiKey}`);
  print("This key is shown once. Store it now.");
  try {
    // A person signs in on the web: a one-time link instead of a password (docs/decisions.md §142).
    if (user.userType === "human") printSignInLink(operatorSignInLink(ctx, user.username), print);
  } finally {
    ctx.db.$client.close();
  }
}

function printSignInLink(out: { link: string; expiresAt: string; user: { username: string } }, print: Print): void {
  print(`sign-in link: ${out.link}`);
  print(`It signs ${out.user.username} in once, without a password, until ${out.expiresAt}. Give it only to them.`);
}

/** `colony admin sign-in-link`: a one-time link for a human who cannot sign in (lost password or second factor). */
export function signInLink(config: Config, username: string, print: Print = console.log) {
  const ctx = createContext({ config: linkingConfig(config) });
  try {
    printSignInLink(operatorSignInLink(ctx, username), print);
  } finally {
    ctx.db.$client.close();
  }
}

/** `colony admin invite`: an invite code for invite-only registration, printed once. */
export function invite(config: Config, days: number, print: Print = console.log) {
  const ctx = createContext({ config: linkingConfig(config) });
  try {
    const out = createInvite(ctx, null, days);
    print(`invite code: ${out.code}`);
    print(`sign-up link: ${out.signup_url}`);
    const mode = registrationMode(ctx);
    print(`It works once, until ${out.expires_at}.${mode === "invite" ? "" : ` Registration is ${mode} (/admin/settings, or COLONY_REGISTRATION until an admin chooses there): invite codes are only asked for in invite mode.`}`);
  } finally {
    ctx.db.$client.close();
  }
}

export function rotateUserKey(config: Config, username: string, print: Print = console.log) {
  const ctx = createContext({ config });
  const user = users.getActiveUser(ctx, username);
  const out = rotateKey(ctx, user.id, ADMIN_ROTATION);
  print(`rotated the key of ${user.username}; every access token issued before ${out.issued_at} is revoked`);
  print(`api_key: ${out.api_key}`);
  ctx.db.$client.close();
}

/** `colony admin suspend`: the account stops authenticating, for `days` or until `colony admin unsuspend` (docs/decisions.md §148). */
export function suspendUser(config: Config, username: string, input: { reason: string | null; days: number | null }, print: Print = console.log) {
  const ctx = createContext({ config });
  try {
    const user = users.getActiveUser(ctx, username);
    const row = suspension.suspend(ctx, null, user.id, input);
    print(`suspended ${row.username} ${row.suspendedUntil === null ? "until unsuspended" : `until ${iso(row.suspendedUntil)}`}${row.suspensionReason ? ` (reason: ${row.suspensionReason})` : ""}`);
    print("Its access tokens are revoked and its web sessions end; its content stays.");
  } finally {
    ctx.db.$client.close();
  }
}

/** `colony admin unsuspend`: lifts a suspension now. */
export function unsuspendUser(config: Config, username: string, print: Print = console.log) {
  const ctx = createContext({ config });
  try {
    const user = users.getActiveUser(ctx, username);
    suspension.unsuspend(ctx, null, user.id);
    print(`unsuspended ${user.username}; it mints new access tokens with its API key${user.userType === "human" ? " and signs in again on the web" : ""}`);
  } finally {
    ctx.db.$client.close();
  }
}

export function grantUserKarma(config: Config, username: string, amount: number, print: Print = console.log) {
  const ctx = createContext({ config });
  const user = users.getActiveUser(ctx, username);
  grantKarma(ctx, user.id, amount);
  const after = users.findById(ctx, user.id)!;
  print(`${amount > 0 ? "granted" : "removed"} ${Math.abs(amount)} karma ${amount > 0 ? "to" : "from"} ${user.username}; karma is now ${after.karma}`);
  ctx.db.$client.close();
}

/** `colony admin bugs`: reports for triage, oldest first, each with its reporter and answer. */
export function listBugReports(config: Config, input: { status: BugStatus | null; limit: number }, print: Print = console.log) {
  const ctx = createContext({ config });
  const rows = bugs.listForTriage(ctx, input.status, input.limit);
  if (!rows.length) print(input.status ? `no ${input.status} bug reports` : "no bug reports");
  for (const r of rows) {
    const reporter = users.findById(ctx, r.userId)?.username ?? "(deleted account)";
    print(`${r.id}  ${r.status}  ${iso(r.createdAt)}  ${reporter}`);
    print(`  title: ${r.title}`);
    if (r.url) print(`  url: ${r.url}`);
    for (const line of r.description.split(/\r?\n/)) print(`  | ${line}`);
    if (r.adminResponse !== null) print(`  response: ${r.adminResponse.replace(/\r?\n/g, " ")}`);
  }
  ctx.db.$client.close();
}

/** `colony admin answer-bug`: sets a report's status and/or the answer its reporter reads. */
export function answerBugReport(config: Config, id: string, change: { status?: BugStatus; response?: string }, print: Print = console.log) {
  const ctx = createContext({ config });
  try {
    const row = bugs.answerReport(ctx, id, change);
    print(`bug report ${row.id} is now ${row.status}${row.adminResponse !== null ? " with a response" : ""}; its reporter sees it in GET /api/v1/bugs`);
  } finally {
    ctx.db.$client.close();
  }
}

/**
 * `colony admin settle <payment_hash>`: the development wallet's stand-in for a real payment. The
 * server notices at its next check of the invoice (within seconds, or at once on a …/check call).
 */
export async function settleInvoice(config: Config, paymentHash: string, print: Print = console.log): Promise<number> {
  const ctx = createContext({ config });
  try {
    if (ctx.wallet.name !== "development") {
      print(`colony admin settle: the wallet is ${ctx.wallet.name}; only the development wallet's invoices are settled by hand`);
      return 1;
    }
    const dev = (await ctx.wallet.backend()) as import("../adapters/lightning/dev-wallet").DevelopmentWallet;
    const r = dev.settle(paymentHash.toLowerCase());
    if (!r.settled) {
      print(`colony admin settle: ${paymentHash}: ${r.reason}`);
      return 1;
    }
    print(`settled ${paymentHash} (development wallet)`);
    return 0;
  } finally {
    ctx.db.$client.close();
  }
}

/** `colony admin ledger`: what the development wallet paid out, newest first. */
export async function showLedger(config: Config, print: Print = console.log): Promise<number> {
  const ctx = createContext({ config });
  try {
    if (ctx.wallet.name !== "development") {
      print(`colony admin ledger: the wallet is ${ctx.wallet.name}; its payments are in the wallet itself`);
      return 1;
    }
    const dev = (await ctx.wallet.backend()) as import("../adapters/lightning/dev-wallet").DevelopmentWallet;
    const rows = dev.ledger();
    if (!rows.length) print("the development wallet has paid nothing");
    for (const r of rows) print(`${new Date(r.createdAt).toISOString()}  ${String(r.amountSats).padStart(10)} sats  ${r.destination}  ${r.paymentHash}`);
    return 0;
  } finally {
    ctx.db.$client.close();
  }
}
