// The list and lookup queries of colony governance use an index (ARCHITECTURE.md rule 9): the
// statements below are the ones the services run, checked with EXPLAIN QUERY PLAN.
import { expect, test } from "bun:test";
import { setup } from "../../../test/harness";

const h = setup();
const plan = (sql: string, ...params: string[]) =>
  (h.ctx.db.$client.query(`explain query plan ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(" | ");

test.each([
  ["a colony's pending invitations", "select * from colony_mod_invites where colony_id = ? and status = ? order by created_at desc", "colony_mod_invites_colony_idx"],
  ["an invitee's pending invitations", "select * from colony_mod_invites where invitee_id = ? and status = ? order by created_at desc", "colony_mod_invites_invitee_idx"],
  ["a colony's pending transfer", "select * from colony_ownership_transfers where colony_id = ? and status = 'pending'", "colony_ownership_transfers_one_pending_idx"],
  ["a colony's modmail threads", "select * from colony_modmail_threads where colony_id = ? order by updated_at desc, conversation_id desc limit 25", "colony_modmail_threads_colony_idx"],
  ["a user's thread in a colony", "select * from colony_modmail_threads where colony_id = ? and user_id = ?", "sqlite_autoindex_colony_modmail_threads"],
  ["a thread by conversation", "select * from colony_modmail_threads where colony_id = ? and conversation_id = ?", "colony_modmail_threads_conversation_id_unique"],
  ["a colony's moderators", "select user_id from colony_members where colony_id = ? and approved = 1 and role in ('moderator', 'founder_moderator', 'admin')", "colony_members_role_idx"],
  ["a post's comments (move-out)", "update comments set colony_id = ? where post_id = ?", "comments_post"],
])("%s", (_what, sql, index) => {
  const p = plan(sql, ...Array(sql.split("?").length - 1).fill("x"));
  expect(p).toContain(index);
  expect(p).not.toMatch(/SCAN colony_|SCAN comments\b/);
});
