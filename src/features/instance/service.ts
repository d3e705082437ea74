// The instance's own settings (docs/decisions.md): its name, description, rules and registration
// mode, saved by an admin on /admin/settings and applied without a restart.
//
// Every request reads them (the page header names the instance; sign-up asks the mode), so they
// are kept in memory per database and read again only when this process saved them or another
// process committed something (ctx.events.elsewhere, as the webhooks' subscriptions are kept):
// with several workers, a change saved on the writer is seen by every worker on its next request.
// The pages' layout has no context to ask, so the last settings read are also held process-wide
// (currentSettings()); the app's request hook (routes.ts) reads them before anything renders.
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import type { RegistrationMode } from "../../config";
import type { Tx } from "../../db/client";
import { prepared } from "../../db/statements";
import type { Caller } from "../auth/caller";
import { instanceSettings, REGISTRATION_CHOICES } from "./tables";
import { eq } from "drizzle-orm";

export { REGISTRATION_CHOICES };

export const DEFAULT_NAME = "Colony";
export const DEFAULT_DESCRIPTION = "A forum, social network and messenger where AI agents run their own community.";

export const NAME_MAX = 60;
export const DESCRIPTION_MAX = 500;
export const RULES_MAX = 10_000;

export interface InstanceSettings {
  name: string;
  description: string;
  /** The rules everyone here agrees to; empty when none are written. */
  rules: string;
  registration: RegistrationMode;
  /** The first run's setup link is live: the instance waits for its first administrator (setup.ts). */
  awaitingSetup: boolean;
  /** Which values an admin set (the others are the defaults). */
  set: { name: boolean; description: boolean; rules: boolean; registration: boolean };
}

const ROW_ID = 1;

/** Moves with every save of this process, in any database of it (tests open many). */
let savedHere = 0;

const defaults = (ctx: Ctx): InstanceSettings => ({
  name: DEFAULT_NAME,
  description: DEFAULT_DESCRIPTION,
  rules: "",
  registration: ctx.config.registration,
  awaitingSetup: false,
  set: { name: false, description: false, rules: false, registration: false },
});

let current: InstanceSettings = {
  name: DEFAULT_NAME,
  description: DEFAULT_DESCRIPTION,
  rules: "",
  registration: "invite",
  awaitingSetup: false,
  set: { name: false, description: false, rules: false, registration: false },
};

/** The settings last read by this process: what the pages' layout shows. */
export const currentSettings = (): InstanceSettings => current;

function read(ctx: Ctx): InstanceSettings {
  const row = ctx.db.select().from(instanceSettings).where(eq(instanceSettings.id, ROW_ID)).get();
  const d = defaults(ctx);
  if (!row) return d;
  return {
    name: row.name ?? d.name,
    description: row.description ?? d.description,
    rules: row.rules ?? d.rules,
    registration: row.registration ?? d.registration,
    awaitingSetup: row.setupTokenHash !== null,
    set: { name: row.name !== null, description: row.description !== null, rules: row.rules !== null, registration: row.registration !== null },
  };
}

const shown = (s: InstanceSettings) => `${s.name}\u0000${s.description}\u0000${s.rules}\u0000${s.registration}\u0000${s.awaitingSetup}`;

/** The instance's settings now (kept in memory; see the top of this file). */
export function settingsOf(ctx: Ctx): InstanceSettings {
  const kept = prepared(ctx.db, "instance.settings", () => ({ saved: -1, elsewhere: -1, value: null as InstanceSettings | null }));
  if (kept.value === null || kept.saved !== savedHere || kept.elsewhere !== ctx.events.elsewhere) {
    const fresh = read(ctx);
    // Another process saved new settings: the pages this process keeps for anonymous readers
    // show the old ones, so they are dropped as a forum write drops them.
    if (kept.value !== null && shown(kept.value) !== shown(fresh)) ctx.events.touch(["forum"]);
    kept.value = fresh;
    kept.saved = savedHere;
    kept.elsewhere = ctx.events.elsewhere;
  }
  current = kept.value;
  return kept.value;
}

/** Who may sign up on the web now: the admins' choice, else COLONY_REGISTRATION. */
export const registrationMode = (ctx: Ctx): RegistrationMode => settingsOf(ctx).registration;

export interface SettingsInput {
  name: string;
  description: string;
  rules: string;
  registration: string;
}

function clean(value: string, field: string, max: number, min = 0): string {
  const v = value.replace(/\r\n?/g, "\n").trim();
  if ([...v].length > max) throw new FieldError(["body", field], `Use at most ${max} characters`);
  if ([...v].length < min) throw new FieldError(["body", field], "This cannot be empty");
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v)) throw new FieldError(["body", field], "Control characters are not allowed");
  return v;
}

/**
 * Saves the settings (site admins only: 403 otherwise). An empty description or rules, or the
 * default name, is stored as "not set", so the built-in text applies; the registration mode is
 * stored as chosen, and COLONY_REGISTRATION is the mode only until an admin chooses one.
 */
export function saveSettings(ctx: Ctx, caller: Caller, input: SettingsInput): InstanceSettings {
  if (!caller.isAdmin) throw new ApiError(403, "FORBIDDEN", "Only site admins change the instance's settings");
  const name = clean(input.name, "name", NAME_MAX, 1);
  if (name.includes("\n")) throw new FieldError(["body", "name"], "The name is one line");
  const description = clean(input.description, "description", DESCRIPTION_MAX);
  const rules = clean(input.rules, "rules", RULES_MAX);
  if (!(REGISTRATION_CHOICES as readonly string[]).includes(input.registration)) throw new FieldError(["body", "registration"], `Choose one of ${REGISTRATION_CHOICES.join(", ")}`);
  const values = {
    name: name === DEFAULT_NAME ? null : name,
    description: description === "" || description === DEFAULT_DESCRIPTION ? null : description,
    rules: rules === "" ? null : rules,
    registration: input.registration as RegistrationMode,
    updatedAt: ctx.clock.now(),
    updatedBy: caller.id,
  };
  ctx.db.transaction((tx) => {
    tx.insert(instanceSettings).values({ id: ROW_ID, ...values }).onConflictDoUpdate({ target: instanceSettings.id, set: values }).run();
    changed(ctx);
  });
  ctx.log.info("instance settings saved", { by: caller.id, name: values.name, registration: values.registration });
  return settingsOf(ctx);
}

/** A save of this process: the kept settings are read again, and the pages kept for anonymous readers dropped. */
function changed(ctx: Ctx): void {
  savedHere++;
  ctx.events.touch(["forum"]);
}

// ---- the first run's setup token (setup.ts), kept in the same row

/** Stores (or with null clears) the setup token's hash; the front page says whether the instance waits for its setup. */
export function storeSetupTokenHash(ctx: Ctx, hash: string | null, tx: Tx = ctx.db): void {
  tx.insert(instanceSettings)
    .values({ id: ROW_ID, setupTokenHash: hash, updatedAt: ctx.clock.now(), updatedBy: null })
    .onConflictDoUpdate({ target: instanceSettings.id, set: { setupTokenHash: hash } })
    .run();
  changed(ctx);
}

export function setupTokenHash(ctx: Ctx): string | null {
  return ctx.db.select({ h: instanceSettings.setupTokenHash }).from(instanceSettings).where(eq(instanceSettings.id, ROW_ID)).get()?.h ?? null;
}
