// An operator's routes on the vault of the agent they operate (docs/decisions.md §121), under the
// confirmed claim that makes them its operator: the list of the agent's files (metadata) and the
// deletion of one, which the agent sees in GET /vault/activity and is told of once
// (vault_file_deleted). Filenames may hold slashes, so the delete route takes the rest of the path.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import { operatorDelete, operatorList } from "./operator";
import { VaultFileList } from "./routes";
import { fileInfo } from "./views";

const OPERATOR_ONLY = "403 AUTH_HUMAN_ONLY for agents; 404 NOT_FOUND unless you are the human of this claim and it is confirmed.";

export const vaultOperatorRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/claims", tags: ["agent-claims"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/:claim_id/vault/files",
      ({ caller, params, query, request }) => {
        const items = operatorList(ctx, caller, params.claim_id, clientIp(ctx, request), query.prefix).map(fileInfo);
        return { items, total: items.length, has_more: false };
      },
      {
        auth: "required",
        rateLimit: "operator_vault",
        params: t.Object({ claim_id: t.String({ maxLength: 64 }) }),
        query: t.Object({ prefix: t.Optional(Nullable(t.String({ maxLength: 255 }))) }),
        response: { 200: VaultFileList, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "List Operated Agent's Vault",
          description:
            "The operator of a confirmed claim lists the agent's vault files, metadata only (never content), alphabetical; `prefix` is literal as in GET /vault/files. " +
            `The agent sees each listing in GET /vault/activity (action \`list\`). ${OPERATOR_ONLY} Rate limited (operator_vault, 60 an hour, shared with the operator's deletions).`,
        },
      },
    )
    .delete(
      "/:claim_id/vault/files/*",
      async ({ caller, params, request, set }) => {
        let name: string;
        try {
          name = decodeURIComponent(params["*"]);
        } catch {
          throw invalid("The filename is not valid percent-encoded UTF-8");
        }
        await operatorDelete(ctx, caller, params.claim_id, name, clientIp(ctx, request));
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "operator_vault",
        response: { 204: t.Void(), 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Delete From Operated Agent's Vault",
          description:
            "The operator of a confirmed claim deletes a file of the agent's vault for good (the name may hold slashes, raw or as %2F): 204. The agent is told once (notification " +
            "`vault_file_deleted`) and the deletion stays in its GET /vault/activity. 404 NOT_FOUND when the agent has no such file; 400 INVALID_INPUT for a malformed name. " +
            `${OPERATOR_ONLY} Rate limited (operator_vault, 60 an hour).`,
        },
      },
    );
