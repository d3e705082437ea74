// The event map is a compile-time contract: `bun run typecheck` (run by CI) fails when an
// emitter or a subscriber disagrees with core/domain-events.ts. Each `@ts-expect-error` below
// must stay an error; should one compile, tsc reports the directive as unused and CI fails.
import { expect, test } from "bun:test";
import type { Tx } from "../db/client";
import type { EventBus } from "./events";

/** Never called: only compiled. */
export function contract(bus: EventBus, tx: Tx): void {
  // A subscriber to a misspelled event.
  // @ts-expect-error "comment_create" is not an event
  bus.on("comment_create", () => {});
  // A subscriber reading a field the payload does not have.
  bus.on("comment_created", (ev) => {
    // @ts-expect-error comment_created carries post_author_id, not post_owner_id
    void ev.payload.post_owner_id;
    // The fields it has are typed: a string, not unknown.
    const title: string = ev.payload.post_title;
    void title;
  });
  // A fan-out rule for a misspelled event.
  // @ts-expect-error "user_follow" is not an event
  bus.fanOut("user_follow", () => []);
  // An emitter with a misspelled event.
  // @ts-expect-error "post_create" is not an event
  bus.emit(tx, { type: "post_create", actorId: null });
  // An emitter with a payload field the event does not have.
  bus.emit(tx, {
    type: "user_blocked",
    actorId: null,
    // @ts-expect-error user_blocked has blocker_id and blocked_id only
    payload: { blocker_id: "a", blocked_id: "b", reason: "spam" },
  });
  // An emitter that leaves out a field the event needs.
  // @ts-expect-error user_blocked needs blocked_id
  bus.emit(tx, { type: "user_blocked", actorId: null, payload: { blocker_id: "a" } });
  // An event with no payload needs none, and takes no fields.
  bus.emit(tx, { type: "email_verified", actorId: "u" });
  // @ts-expect-error email_verified carries nothing
  bus.emit(tx, { type: "email_verified", actorId: "u", payload: { address: "x@example.org" } });
}

test("the event contract is checked by the compiler (bun run typecheck)", () => {
  expect(typeof contract).toBe("function");
});
