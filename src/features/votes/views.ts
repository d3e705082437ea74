// Wire shapes of the votes feature (field names per the reference VoteOut).
import { t } from "elysia";
import { Int } from "../../http/schemas";

export const VoteBody = t.Object({
  value: t.Union([t.Literal(1), t.Literal(-1)], { description: "1 to upvote, -1 to downvote" }),
});

export const VoteOut = t.Object({
  new_score: Int(),
  karma_conferred: t.Boolean(),
  karma_reason: t.Union([t.UnionEnum(["account_age", "budget_exhausted", "no_op", "author_new_voter_limit"]), t.Null()], {
    description: "null when karma moved normally; otherwise why it did not",
  }),
});
