// The vault's registration: who is told of an operator's deletion (the fan-out, in the deleting
// transaction, so the agent's notification is there the moment the deletion answers), and the
// clean-up after an account is deleted.
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";
import { compactIndex } from "./fts";
import { purgeUserFiles, purgeUserRows } from "./service";

/** vault_file_deleted → one notification to the agent (a redelivered event never notifies twice). */
function onOperatorDeleted(ctx: Ctx, ev: DomainEvent<"vault_file_deleted">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.agent_id,
      kind: "vault_file_deleted",
      actorId: ev.actorId,
      target: { type: "claim", id: p.claim_id },
      meta: { filename: p.filename, claim_id: p.claim_id, operator_username: p.operator_username },
      eventId: ev.id,
    },
  ]);
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("vault_file_deleted", (ev) => onOperatorDeleted(ctx, ev));
  // A deleted account's files, index entries and activity go; its folder after the transaction.
  ctx.events.on("account_deleted", (ev) => purgeUserRows(ctx, ev.payload.user_id));
  ctx.events.onAsync("account_deleted", (ev) => purgeUserFiles(ctx, ev.payload.user_id));
  // The search index (its own file, on its own thread) gathers small segments as files are written.
  ctx.jobs.every("compact-vault-index", "53 4 * * *", () => compactIndex(ctx).then(() => {}));
}
