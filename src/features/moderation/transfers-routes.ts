// Ownership transfer routes (spec Part 2 §2.5, §3, §4.2, §6.2): the founder proposes, the
// recipient accepts or declines, the founder cancels; either party reads the pending one.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import { TRANSFER_STATUSES } from "./tables";
import * as transfers from "./transfers";

const OwnershipTransferOut = t.Object({
  transfer_id: t.String({ format: "uuid" }),
  colony_id: t.String({ format: "uuid" }),
  initiator_id: t.String({ format: "uuid" }),
  recipient_id: t.String({ format: "uuid" }),
  status: t.UnionEnum([...TRANSFER_STATUSES], { description: "A pending transfer past expires_at reads expired" }),
  created_at: t.String({ format: "date-time" }),
  expires_at: t.String({ format: "date-time" }),
  responded_at: Nullable(t.String({ format: "date-time" })),
});

const TransferParams = t.Object({ transfer_id: t.String({ minLength: 1, maxLength: 64 }) });
const PARTY_ERRORS = "404 NOT_FOUND when you are neither party (or the id is unknown), 403 FORBIDDEN for the other party, 409 CONFLICT unless the transfer is pending.";

export const transfersRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:colony_id/ownership-transfers", ({ caller, params, body, set }) => {
      const row = transfers.proposeTransfer(ctx, caller, params.colony_id, body.recipient_username);
      set.status = 201;
      return transfers.transferOut(ctx, row);
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: ColonyIdParams,
      body: t.Object({ recipient_username: t.String({ minLength: 1, maxLength: 100, description: "A username (a leading @ is ignored) or a user id" }) }),
      response: { 201: OwnershipTransferOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Propose Ownership Transfer",
        description:
          "Propose handing the colony to one of its moderators or colony admins: the founder only (403 FORBIDDEN otherwise, site admins included). The recipient is notified " +
          "(and gets the ownership_transfer_proposed webhook) and has 7 days to accept. 404 USER_NOT_FOUND for an unknown recipient; 400 INVALID_INPUT when the recipient is you " +
          "or holds no moderator or colony admin role here; 409 CONFLICT while another transfer of the colony is pending.",
      },
    })
    .get("/:colony_id/ownership-transfers", ({ caller, params }) => {
      const row = transfers.pendingTransferFor(ctx, caller, params.colony_id);
      return { pending: row ? transfers.transferOut(ctx, row) : null };
    }, {
      auth: "required",
      params: ColonyIdParams,
      response: { 200: t.Object({ pending: Nullable(OwnershipTransferOut) }), 401: ErrorOut, 404: ErrorOut },
      detail: { summary: "Get Pending Ownership Transfer", description: "The colony's pending transfer when you are its initiator or recipient; null otherwise (it is not a public fact)." },
    })
    .post("/ownership-transfers/:transfer_id/accept", ({ caller, params }) => transfers.transferOut(ctx, transfers.acceptTransfer(ctx, caller, params.transfer_id)), {
      auth: "required",
      params: TransferParams,
      response: { 200: OwnershipTransferOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Accept Ownership Transfer",
        description:
          "The recipient accepts: you become the founder (founder_moderator, every permission) and the previous founder stays on as a colony admin. Both parties are told. " +
          `${PARTY_ERRORS} Also 409 when the proposer is no longer the founder or you no longer moderate the colony.`,
      },
    })
    .post("/ownership-transfers/:transfer_id/decline", ({ caller, params }) => transfers.transferOut(ctx, transfers.declineTransfer(ctx, caller, params.transfer_id)), {
      auth: "required",
      params: TransferParams,
      response: { 200: OwnershipTransferOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Decline Ownership Transfer", description: `The recipient declines; both parties are told. ${PARTY_ERRORS}` },
    })
    .post("/ownership-transfers/:transfer_id/cancel", ({ caller, params }) => transfers.transferOut(ctx, transfers.cancelTransfer(ctx, caller, params.transfer_id)), {
      auth: "required",
      params: TransferParams,
      response: { 200: OwnershipTransferOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Cancel Ownership Transfer", description: `The founder who proposed it withdraws it; both parties are told. ${PARTY_ERRORS}` },
    });
