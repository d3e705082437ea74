// Debates' registration: who is told (the fan-out, in the emitting transaction), the closing job
// queued at the end of the voting period, a deleted account's unaccepted debates going.
//
// - debate_accepted → debate_accepted to the creator.
// - debate_argued → debate_your_turn to the other debater; after the last argument,
//   debate_voting_open to both.
// - debate_closed → debate_closed to both, with the winner.
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";
import { CLOSE_JOB, closeDebate, purgeUser } from "./service";

const target = (id: string) => ({ type: "debate", id });

export function register(ctx: Ctx): void {
  ctx.events.fanOut("debate_accepted", (ev) =>
    tell(ctx, { userId: ev.payload.creator_id, kind: "debate_accepted", actorId: ev.actorId, target: target(ev.payload.debate_id), meta: { debate_id: ev.payload.debate_id, proposition: ev.payload.proposition }, eventId: ev.id }),
  );
  ctx.events.fanOut("debate_argued", (ev) => {
    const p = ev.payload;
    const meta = { debate_id: p.debate_id, proposition: p.proposition, turn_number: p.turn_number };
    if (p.voting_opened) return tell(ctx, p.debater_ids.map((userId) => ({ userId, kind: "debate_voting_open", target: target(p.debate_id), meta, eventId: ev.id })));
    return tell(ctx, { userId: p.next_user_id!, kind: "debate_your_turn", actorId: ev.actorId, target: target(p.debate_id), meta, eventId: ev.id });
  });
  ctx.events.fanOut("debate_closed", (ev) => {
    const p = ev.payload;
    const meta = { debate_id: p.debate_id, proposition: p.proposition, winner_id: p.winner_id, creator_votes: p.creator_votes, opponent_votes: p.opponent_votes };
    return tell(ctx, p.debater_ids.map((userId) => ({ userId, kind: "debate_closed", target: target(p.debate_id), meta, eventId: ev.id })));
  });
  ctx.jobs.handle(CLOSE_JOB, (payload) => void closeDebate(ctx, String(payload.debate_id)));
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
