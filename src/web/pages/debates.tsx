/** @jsxImportSource @kitajs/html */
// Debates on the web (/debates…): the list, one debate with its two sides, the arguments in
// turn, whose turn it is, the vote and its outcome, and the forms of taking part (spec Part 3
// §4.9). The routes (web/debate-routes.ts) call the debates service; these functions show what
// it returned.
import type { DebateRow } from "../../features/debates/service";
import type { UserRow } from "../../features/users/service";
import { Hidden } from "../account-layout";
import { Pager, Time } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml, Flash, ListTabs, listHref, Person, PostForm, SignInToTakePart, TextArea, TextField, type FlashView } from "./area-parts";

export const debateHref = (id: string) => `/debates/${encodeURIComponent(id)}`;

type State = "open" | "active" | "voting" | "closed";

const STATE_LABELS: Record<State, string> = {
  open: "Open: waiting for an opponent",
  active: "Being argued",
  voting: "Voting",
  closed: "Closed",
};

const otherSide = (side: "for" | "against") => (side === "for" ? "against" : "for");

export interface DebateListItem {
  debate: DebateRow;
  state: State;
}

export interface DebateListView {
  items: DebateListItem[];
  people: Map<string, UserRow>;
  status: string;
  sort: string;
  page: number;
  hasMore: boolean;
  flash: FlashView;
}

const STATUS_FILTERS = [
  ["", "All"],
  ["open", "Open"],
  ["active", "Being argued"],
  ["voting", "Voting"],
  ["closed", "Closed"],
] as const;

const SORT_LABELS = [
  ["newest", "Newest"],
  ["active_first", "Active first"],
] as const;

export function debateListPage(visit: Visit, v: DebateListView): string {
  const href = listHref("/debates", v);
  return areaPage(
    visit,
    "Debates",
    <section class="area debates">
      <h1>Debates</h1>
      <p>Two people argue a proposition, three turns each; then everyone else votes for 48 hours on who argued better.</p>
      <Flash {...v.flash} />
      {visit.caller ? (
        <p>
          <a class="btn" href="/debates/new">
            Start a debate
          </a>
        </p>
      ) : (
        <SignInToTakePart next="/debates" what="debate or vote" />
      )}
      <ListTabs href={href} current={v} statuses={STATUS_FILTERS} sorts={SORT_LABELS} />
      {v.items.length ? (
        <ul class="rows">
          {v.items.map(({ debate: d, state }) => (
            <li class="item">
              <h2 class="h3">
                <a href={debateHref(d.id)} safe>
                  {d.proposition}
                </a>
              </h2>
              <p class="meta">
                {escapeHtml(`${STATE_LABELS[state]} · ${d.creatorSide}: `)}
                <Person user={v.people.get(d.creatorId)} />
                {d.opponentId ? (
                  <>
                    {escapeHtml(` · ${otherSide(d.creatorSide)}: `)}
                    <Person user={v.people.get(d.opponentId)} />
                  </>
                ) : (
                  ""
                )}
                {state === "voting" || state === "closed" ? escapeHtml(` · votes ${d.creatorVotes} to ${d.opponentVotes}`) : ""}
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No debates here yet.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => href({ page: n })} />
    </section>,
  );
}

export interface DebateFormValues {
  proposition: string;
  description: string;
  creator_side: string;
}

export function newDebatePage(visit: Visit, values: DebateFormValues, error: string | null = null): string {
  const side = values.creator_side === "against" ? "against" : "for";
  return areaPage(
    visit,
    "Start a debate",
    <section class="area debates">
      <h1>Start a debate</h1>
      <Flash error={error} />
      <form method="post" action="/debates/new" class="stack">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        <TextField id="db-proposition" name="proposition" label="Proposition" value={values.proposition} required maxlength={300} hint="The claim to argue, 10 to 300 characters." />
        <TextArea id="db-description" name="description" label="Background (optional)" value={values.description} rows={5} maxlength={2000} />
        <fieldset>
          <legend>Your side</legend>
          <label>
            <input type="radio" name="creator_side" value="for" checked={side === "for" || undefined} /> For the proposition
          </label>
          <br />
          <label>
            <input type="radio" name="creator_side" value="against" checked={side === "against" || undefined} /> Against it
          </label>
        </fieldset>
        <p>
          <button type="submit">Start the debate</button>
        </p>
      </form>
    </section>,
  );
}

export interface DebateView {
  debate: DebateRow;
  state: State;
  whoseTurn: "creator" | "opponent" | null;
  winnerId: string | null;
  args: { id: string; userId: string; turnNumber: number; body: string; createdAt: number }[];
  people: Map<string, UserRow>;
  /** The viewer's part: a debater's side, or null. */
  mySide: "creator" | "opponent" | null;
  /** The side the viewer voted for during the voting, or null. */
  myVote: "creator" | "opponent" | null;
  turns: number;
  flash: FlashView;
  draft?: string;
}

export function debatePage(visit: Visit, v: DebateView): string {
  const d = v.debate;
  const here = debateHref(d.id);
  const creator = v.people.get(d.creatorId);
  const opponent = d.opponentId ? v.people.get(d.opponentId) : undefined;
  const sideOf = (userId: string) => (userId === d.creatorId ? d.creatorSide : otherSide(d.creatorSide));
  const who = (side: "creator" | "opponent") => (side === "creator" ? creator : opponent);
  const nameOf = (u: UserRow | undefined) => (u ? u.displayName || u.username : "[deleted]");
  /** A debater as the votes name them: who, and the side they argue. */
  const debater = (side: "creator" | "opponent") => `${nameOf(who(side))} (${side === "creator" ? d.creatorSide : otherSide(d.creatorSide)})`;
  return areaPage(
    visit,
    d.proposition,
    <article class="area debates">
      <p class="crumbs">
        <a href="/debates">Debates</a>
      </p>
      <h1 safe>{d.proposition}</h1>
      <p class="meta">
        {escapeHtml(`${STATE_LABELS[v.state]} · started `)}
        <Time at={d.createdAt} />
      </p>
      <Flash {...v.flash} />
      {d.description ? (
        <p class="plain" safe>
          {d.description}
        </p>
      ) : (
        ""
      )}
      <dl class="facts">
        <dt>For</dt>
        <dd>{d.creatorSide === "for" ? <Person user={creator} /> : d.opponentId ? <Person user={opponent} /> : "nobody yet"}</dd>
        <dt>Against</dt>
        <dd>{d.creatorSide === "against" ? <Person user={creator} /> : d.opponentId ? <Person user={opponent} /> : "nobody yet"}</dd>
        {v.state === "voting" || v.state === "closed" ? (
          <>
            <dt>Votes</dt>
            <dd>{escapeHtml(`${debater("creator")}: ${d.creatorVotes} · ${debater("opponent")}: ${d.opponentVotes}`)}</dd>
          </>
        ) : (
          ""
        )}
        {v.state === "voting" && d.votingEndsAt !== null ? (
          <>
            <dt>Voting ends</dt>
            <dd>
              <Time at={d.votingEndsAt} />
            </dd>
          </>
        ) : (
          ""
        )}
        {v.state === "closed" ? (
          <>
            <dt>Outcome</dt>
            <dd>{v.winnerId ? <strong>{escapeHtml(`${nameOf(v.people.get(v.winnerId))} won, arguing ${sideOf(v.winnerId)}`)}</strong> : "A tie: nobody won"}</dd>
          </>
        ) : (
          ""
        )}
      </dl>
      {v.state === "open" ? (
        visit.caller ? (
          v.mySide === "creator" ? (
            <div class="act">
              <p>Waiting for someone to take the other side.</p>
              <PostForm visit={visit} action={`${here}/delete`} label="Delete the debate" />
            </div>
          ) : (
            <PostForm visit={visit} action={`${here}/accept`} label={`Take the other side (${otherSide(d.creatorSide)})`} />
          )
        ) : (
          <SignInToTakePart next={here} what="take the other side" />
        )
      ) : (
        ""
      )}
      <h2 id="arguments-h">{escapeHtml(`Arguments (${v.args.length} of ${v.turns})`)}</h2>
      {v.args.length ? (
        <ol class="rows arguments" aria-labelledby="arguments-h">
          {v.args.map((a) => (
            <li class={`item side-${sideOf(a.userId)}`} id={`argument-${a.id}`}>
              <p class="meta">
                {escapeHtml(`Turn ${a.turnNumber}, ${sideOf(a.userId)}: `)}
                <Person user={v.people.get(a.userId)} />
                {", "}
                <Time at={a.createdAt} />
              </p>
              <p class="plain" safe>
                {a.body}
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No arguments yet.</p>
      )}
      {v.state === "active" && v.whoseTurn ? (
        // A refused argument's text stays in the form, whoever's turn it is.
        v.mySide === v.whoseTurn || (v.mySide && v.draft) ? (
          <section aria-labelledby="argue-h">
            <h2 id="argue-h">{v.mySide === v.whoseTurn ? "Your turn" : "Your argument"}</h2>
            <form method="post" action={escapeHtml(`${here}/argue`)} class="stack">
              <Hidden name="csrf" value={visit.csrf ?? ""} />
              <TextArea id="argue-body" name="body" label="Your argument" value={v.draft ?? ""} rows={8} required maxlength={5000} hint="10 to 5000 characters." />
              <p>
                <button type="submit">Make the argument</button>
              </p>
            </form>
          </section>
        ) : (
          <p class="note">{escapeHtml(`Waiting for ${nameOf(who(v.whoseTurn))} to argue.`)}</p>
        )
      ) : (
        ""
      )}
      {v.state === "voting" ? (
        visit.caller ? (
          v.mySide ? (
            <p class="note">Debaters do not vote in their own debate.</p>
          ) : (
            <section aria-labelledby="vote-h">
              <h2 id="vote-h">Who argued better?</h2>
              <div class="act">
                <PostForm visit={visit} action={`${here}/vote`} label={`Vote for ${debater("creator")}`}>
                  <Hidden name="voted_for" value="creator" />
                </PostForm>
                <PostForm visit={visit} action={`${here}/vote`} label={`Vote for ${debater("opponent")}`}>
                  <Hidden name="voted_for" value="opponent" />
                </PostForm>
              </div>
              <p class="meta">
                {escapeHtml(v.myVote ? `Your vote: for ${debater(v.myVote)}. Voting again replaces it.` : "Voting again replaces your vote.")}
              </p>
            </section>
          )
        ) : (
          <SignInToTakePart next={here} what="vote" />
        )
      ) : (
        ""
      )}
    </article>,
  );
}
