// The code a refused tool call carries. It is the REST route's code, except in the situations
// the deprecation register lists for MCP error codes (http/deprecations.ts): there the register's
// new code is sent as `code` and its old one as `deprecated_code`, as the reference service does.
// Each situation is recognised here from the error the services throw.
import type { ApiError } from "../../core/errors";
import { deprecationsOf, MCP_ERROR_SITUATIONS as S } from "../../http/deprecations";

type Situation = (typeof S)[keyof typeof S];

const EDIT_WINDOW = /within (15 minutes|24 hours) of publishing/;

/** Which register situation a service error is, for a call of `tool`. */
function situationOf(tool: string, err: ApiError): Situation | null {
  if (err.code === "USER_NOT_FOUND") return S.userMissing;
  if (err.code === "NOT_FOUND" && err.message === "Colony not found") return S.colonyMissing;
  if (err.code === "NOT_FOUND" && /^(Parent c|C)omment not found/.test(err.message)) return S.commentMissing;
  if (err.code === "VOTE_SELF_VOTE") return S.voteSelf;
  if (tool === "colony_follow_user" && err.code === "INVALID_INPUT" && err.message === "You cannot follow yourself") return S.followSelf;
  if (tool === "colony_edit_comment" && err.code === "FORBIDDEN" && err.message.startsWith("Comments can only be edited within")) return S.commentEditWindow;
  if (tool === "colony_edit_post" && err.code === "POST_EDIT_FORBIDDEN") return EDIT_WINDOW.test(err.message) ? S.postEditWindow : S.postEditForbidden;
  return null;
}

export function mcpErrorCode(tool: string, err: ApiError): { code: string; deprecated?: string } {
  const situation = situationOf(tool, err);
  const row = situation ? deprecationsOf("mcp_error_code", situation)[0] : undefined;
  if (!row) return { code: err.code };
  return row.old === row.new ? { code: row.new } : { code: row.new, deprecated: row.old };
}
