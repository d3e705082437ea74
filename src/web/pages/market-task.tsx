/** @jsxImportSource @kitajs/html */
// A paid task's page (/marketplace/tasks/<post id>): the task, its bids as the marketplace
// service lists them to this reader, and what each party may do at each step of Part 3's task
// lifecycle: anyone signed in bids while it takes bids; the author accepts or rejects each
// pending bid, pays the invoice the accept issued, and marks the work complete once it is paid;
// a bidder withdraws their pending bid; the author closes or reopens the listing. The service
// decides; this page only offers the buttons that make sense and shows its refusals.
import type { ColonyRow } from "../../features/colonies/service";
import type { BidRow, TaskPayment } from "../../features/marketplace/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml } from "../account-layout";
import { Author, count, postHref, Time } from "../components";
import type { Visit } from "../visit";
import { ActButton, budgetText, Facts, Flash, ListingHead, marketPage, metaText, sats, SignInTo, taskHref, words, type FlashView } from "./market";
import { InvoiceBox, type InvoiceState } from "./market-invoice";

export interface TaskView {
  post: PostRow;
  colony: ColonyRow;
  author: UserRow | undefined;
  bids: BidRow[];
  bidders: Map<string, UserRow>;
  totalBids: number;
  payment: TaskPayment | null;
  /** The smallest and largest bid the task takes (the service's range, shown as the form's bounds). */
  range: { min: number; max: number };
}

const TASK_STEPS: Record<string, string> = {
  open: "Open: waiting for bids",
  bidding: "Taking bids",
  accepted: "A bid is accepted: waiting for the author's payment",
  paid: "Paid: the worker delivers, then the author marks it complete",
  completed: "Completed: the worker's payout goes to their Lightning address",
};

const PAYOUT_TEXT: Record<string, string> = {
  pending: "queued",
  in_flight: "on its way",
  completed: "sent",
  failed: "failed for now, retried later",
  abandoned: "abandoned: the worker has no Lightning address",
};

function BidForm({ v, csrf, values }: { v: TaskView; csrf: string; values: Record<string, string> }) {
  const base = taskHref(v.post.id);
  return (
    <form method="post" action={`${base}/bid`} class="stack" aria-labelledby="bid-h">
      <h2 id="bid-h">Place a bid</h2>
      <CsrfField csrf={csrf} />
      <p>
        <label for="bid-amount">Your price in sats</label>
        <br />
        <input
          id="bid-amount"
          name="amount_sats"
          type="number"
          inputmode="numeric"
          min={String(v.range.min)}
          max={String(v.range.max)}
          step="1"
          required
          value={values.amount_sats ? escapeHtml(values.amount_sats) : undefined}
          aria-describedby="bid-amount-hint"
        />
        <br />
        <small id="bid-amount-hint">{escapeHtml(`From ${sats(v.range.min)} to ${sats(v.range.max)}.`)}</small>
      </p>
      <p>
        <label for="bid-description">What you will deliver, and how (at least 10 characters)</label>
        <br />
        <textarea id="bid-description" name="description" rows="4" required minlength="10" maxlength="5000">
          {escapeHtml(values.description ?? "")}
        </textarea>
      </p>
      <p>
        <button type="submit">Place bid</button>
      </p>
    </form>
  );
}

function Bids({ v, visit }: { v: TaskView; visit: Visit }) {
  const base = taskHref(v.post.id);
  const me = visit.caller?.id ?? null;
  const isAuthor = me === v.post.authorId;
  const taking = v.post.status === "open" || v.post.status === "bidding";
  return (
    <section id="bids" aria-labelledby="bids-h">
      <h2 id="bids-h" safe>
        {v.totalBids === 1 ? "1 bid" : `${count(v.totalBids)} bids`}
      </h2>
      {v.bids.length ? (
        <ol class="rows bids">
          {v.bids.map((b) => (
            <li id={`bid-${b.id}`} class={`bid ${b.status}`}>
              <p>
                <strong safe>{sats(b.amountSats)}</strong> <span class="b">{escapeHtml(words(b.status))}</span> by <Author user={v.bidders.get(b.bidderId)} avatar={16} /> · <Time at={b.createdAt} />
              </p>
              <p class="plain" safe>
                {b.description}
              </p>
              {visit.csrf && b.status === "pending" && isAuthor && taking ? (
                <div class="buttons">
                  <ActButton csrf={visit.csrf} action={`${base}/bids/${b.id}/accept`} label="Accept this bid" />
                  <ActButton csrf={visit.csrf} action={`${base}/bids/${b.id}/reject`} label="Reject" cls="secondary" />
                </div>
              ) : (
                ""
              )}
              {visit.csrf && b.status === "pending" && b.bidderId === me ? (
                <div class="buttons">
                  <ActButton csrf={visit.csrf} action={`${base}/bids/${b.id}/withdraw`} label="Withdraw my bid" cls="secondary" />
                </div>
              ) : (
                ""
              )}
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No bid yet.</p>
      )}
    </section>
  );
}

const invoiceState = (s: string): InvoiceState => (s === "paid" || s === "expired" || s === "failed" ? s : "pending");

function Payment({ v, visit }: { v: TaskView; visit: Visit }) {
  const p = v.payment;
  if (!p) return "";
  const base = taskHref(v.post.id);
  const isAuthor = visit.caller?.id === v.post.authorId;
  const state = invoiceState(p.invoice.status);
  const worker = v.bidders.get(p.bid.bidderId);
  return (
    <section class="payment" aria-labelledby="payment-h">
      <h2 id="payment-h">Payment</h2>
      <p>
        {escapeHtml(`${sats(p.invoice.amountSats)} to `)}
        <Author user={worker} avatar={16} />
        {p.invoice.paidAt ? (
          <>
            {" · paid "}
            <Time at={p.invoice.paidAt} />
          </>
        ) : (
          ""
        )}
        {p.payout ? escapeHtml(` · the worker's ${sats(p.payout.amountSats)} (95 %): ${PAYOUT_TEXT[p.payout.status] ?? words(p.payout.status)}`) : ""}
      </p>
      {isAuthor && visit.csrf && state === "pending" ? (
        <InvoiceBox
          title="Pay the invoice"
          v={{
            bolt11: p.invoice.paymentRequest,
            amountSats: p.invoice.amountSats,
            state,
            expiresAt: p.invoice.expiresAt,
            checkAction: `${base}/check`,
            pollUrl: `/marketplace/status/task/${v.post.id}`,
            self: base,
            csrf: visit.csrf,
          }}
        />
      ) : (
        <p class="meta">
          {escapeHtml(
            state === "pending" ? "The invoice waits for the author's payment." : state === "paid" ? "The invoice is paid." : `The invoice ${state === "expired" ? "expired unpaid" : "failed"}.`,
          )}
        </p>
      )}
      {isAuthor && visit.csrf && state !== "pending" && state !== "paid" && v.post.status === "accepted" ? (
        <div class="buttons">
          <ActButton csrf={visit.csrf} action={`${base}/bids/${p.bid.id}/accept`} label="Issue a new invoice" />
        </div>
      ) : (
        ""
      )}
      {visit.caller?.id === p.bid.bidderId && v.post.status === "paid" ? (
        <p class="note">
          {"Your bid is paid for: deliver the work to its author ("}
          <a href={`/messages/${encodeURIComponent(v.author?.username ?? "")}`}>a message</a>
          {" or the "}
          <a href={postHref(v.post.id)}>discussion</a>
          {"); they mark the task complete and your payout follows."}
        </p>
      ) : (
        ""
      )}
      {isAuthor && visit.csrf && v.post.status === "paid" ? (
        <form method="post" action={`${base}/complete`} class="stack">
          <CsrfField csrf={visit.csrf} />
          <p>When the work is delivered to your satisfaction, complete the task: the worker is paid 95 % of it.</p>
          <p>
            <button type="submit">Mark complete</button>
          </p>
        </form>
      ) : (
        ""
      )}
    </section>
  );
}

export function TaskPage(visit: Visit, v: TaskView, flash: FlashView & { values?: Record<string, string> } = {}): string {
  const post = v.post;
  const base = taskHref(post.id);
  const me = visit.caller?.id ?? null;
  const isAuthor = me === post.authorId;
  const closed = post.closedAt !== null;
  const taking = (post.status === "open" || post.status === "bidding") && !closed;
  const budget = budgetText(post);
  const facts: [string, string][] = [];
  facts.push(["Budget", budget ?? "none declared: bids from 21 to 100,000,000 sats"]);
  const category = metaText(post, "category");
  if (category) facts.push(["Category", words(category)]);
  const deliverable = metaText(post, "deliverable_type");
  if (deliverable) facts.push(["Deliverable", words(deliverable)]);
  const deadline = metaText(post, "deadline");
  if (deadline) facts.push(["Deadline", deadline]);
  return marketPage(
    visit,
    post.title,
    "tasks",
    <article class="listing" aria-labelledby="task-title">
      <ListingHead post={post} kind="Paid task" author={v.author} colony={v.colony} id="task-title" />
      <p class="step">
        <span class="b">{escapeHtml(words(post.status))}</span> {escapeHtml(TASK_STEPS[post.status] ?? "")}
        {closed ? " · the listing is closed: it takes no new bids" : ""}
      </p>
      <Facts facts={facts} />
      <div class="body">{post.bodyHtml as "safe"}</div>
      <Flash notice={flash.notice} error={flash.error} />
      <Payment v={v} visit={visit} />
      {taking && visit.csrf && !isAuthor ? <BidForm v={v} csrf={visit.csrf} values={flash.values ?? {}} /> : ""}
      {taking && !visit.caller ? <SignInTo back={base} to="to bid on this task." /> : ""}
      <Bids v={v} visit={visit} />
      {isAuthor && visit.csrf && (taking || closed) ? (
        <section aria-labelledby="listing-h">
          <h2 id="listing-h">Your listing</h2>
          <p>{closed ? "Closed: it takes no new bids; the bids you have go on. Reopen it to take bids again." : "Closing it stops new bids; the bids you have go on."}</p>
          <ActButton csrf={visit.csrf} action={`${base}/${closed ? "reopen" : "close"}`} label={closed ? "Reopen the listing" : "Close the listing"} cls="secondary" />
        </section>
      ) : (
        ""
      )}
    </article>,
  );
}
