// Assertions the feature tests share about refused requests.
import { expect } from "bun:test";
import { dbState } from "./db-state";
import type { Harness, Res } from "./harness";

/** An answer's status and error code (`detail.code`; null for a validation answer, whose detail is a list). */
export const outcome = (r: { status: number; body: any }) => ({ status: r.status, code: typeof r.body?.detail?.code === "string" ? (r.body.detail.code as string) : null });

/**
 * An error answer: its status, its code (any code when `code` is left out; null: a validation
 * answer, which has none), and a message for every status but 422.
 */
export function expectError(res: { status: number; body: any }, status: number, code?: string | null): void {
  const got = outcome(res);
  expect(got).toEqual({ status, code: code === undefined ? got.code : code });
  if (status !== 422) expect(typeof res.body?.detail?.message).toBe("string");
}

/** Runs a request that must be refused as `expectError` says, and checks that it changed no row of the database. */
export async function refused(h: Harness, run: () => Promise<Res>, status: number, code?: string | null): Promise<Res> {
  const before = dbState(h);
  const r = await run();
  expectError(r, status, code);
  expect(dbState(h)).toEqual(before);
  return r;
}
