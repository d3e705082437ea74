/** @jsxImportSource @kitajs/html */
// Tipping a post's author over Lightning (/post/<id>/tip: the post's paid tips and the tip form)
// and one tip with its invoice (/marketplace/tips/<id>), for the tipper and the recipient.
import type { PostRow } from "../../features/posts/service";
import type { TipRow } from "../../features/tips/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml } from "../account-layout";
import { Author, postHref, Time } from "../components";
import type { Visit } from "../visit";
import { Flash, marketPage, sats, SignInTo, tipHref, type FlashView } from "./market";
import { InvoiceBox } from "./market-invoice";

export const tipFormHref = (postId: string) => `${postHref(postId)}/tip`;
export const commentTipFormHref = (commentId: string) => `/comment/${commentId}/tip`;

/** The tip amounts the amount field suggests (it takes any whole number in the range). */
const SUGGESTED = [21, 100, 500, 1_000, 5_000];

export interface TipFormView {
  post: PostRow;
  /** A comment of the post, when the tip is for the comment's author. */
  commentId: string | null;
  /** The author of what is tipped (the post's, or the comment's). */
  authorId: string;
  author: UserRow | undefined;
  totalTips: number;
  totalSats: number;
  min: number;
  max: number;
}

export function TipFormPage(visit: Visit, v: TipFormView, flash: FlashView & { values?: Record<string, string> } = {}): string {
  const own = visit.caller?.id === v.authorId;
  const what = v.commentId ? "comment" : "post";
  const action = v.commentId ? commentTipFormHref(v.commentId) : tipFormHref(v.post.id);
  return marketPage(
    visit,
    `Tip: ${v.post.title}`,
    null,
    <article class="tip" aria-labelledby="tip-title">
      <h1 id="tip-title">
        {v.commentId ? "Tip the author of a comment on " : "Tip the author of "}
        <a href={v.commentId ? `${postHref(v.post.id)}#comment-${v.commentId}` : postHref(v.post.id)} safe>
          {v.post.title}
        </a>
      </h1>
      <p>
        {"Written by "}
        <Author user={v.author} avatar={20} />
        {" · "}
        <strong class="tip-total">{escapeHtml(v.totalTips ? `${sats(v.totalSats)} in ${v.totalTips === 1 ? "1 tip" : `${v.totalTips} tips`}` : "no tips yet")}</strong>
      </p>
      <Flash notice={flash.notice} error={flash.error} />
      {own ? (
        <p class="note">{escapeHtml(`This is your ${what}: others tip it.`)}</p>
      ) : visit.csrf ? (
        <form method="post" action={action} class="stack" aria-labelledby="tip-form-h">
          <h2 id="tip-form-h">Send a tip</h2>
          <CsrfField csrf={visit.csrf} />
          <p>
            <label for="tip-amount">Amount in sats</label>
            <br />
            <input
              id="tip-amount"
              name="amount_sats"
              type="number"
              inputmode="numeric"
              min={String(v.min)}
              max={String(v.max)}
              step="1"
              required
              list="tip-amounts"
              value={escapeHtml(flash.values?.amount_sats || "100")}
              aria-describedby="tip-hint"
            />
            <datalist id="tip-amounts">
              {SUGGESTED.map((n) => (
                <option value={String(n)}></option>
              ))}
            </datalist>
          </p>
          <p class="meta" id="tip-hint">
            {escapeHtml(`A tip is ${sats(v.min)} to ${sats(v.max)}. You pay a Lightning invoice; the author receives 95 % of it at their Lightning address.`)}
          </p>
          <p>
            <button type="submit">Get the invoice</button>
          </p>
        </form>
      ) : (
        <SignInTo back={action} to={`to tip this ${what}.`} />
      )}
    </article>,
  );
}

const TIP_TEXT: Record<string, string> = {
  pending: "Waiting for payment",
  paid: "Paid: thank you",
  expired: "Expired: the invoice was not paid in time",
  failed: "Failed: the wallet refused the invoice",
};

export function TipPage(visit: Visit, v: { tip: TipRow; post: PostRow | null; recipient: UserRow | undefined }, flash: FlashView = {}): string {
  const t = v.tip;
  const tipping = visit.caller?.id === t.tipperId;
  return marketPage(
    visit,
    "A tip",
    null,
    <article class="tip" aria-labelledby="tip-title">
      <h1 id="tip-title">{escapeHtml(tipping ? `Your tip of ${sats(t.amountSats)}` : `A tip of ${sats(t.amountSats)} for you`)}</h1>
      <p>
        {tipping ? "To " : "On "}
        {tipping ? <Author user={v.recipient} avatar={20} /> : ""}
        {tipping ? " for " : ""}
        {v.post ? (
          <a href={postHref(v.post.id)} safe>
            {v.post.title}
          </a>
        ) : (
          "a post"
        )}
        {" · "}
        <Time at={t.createdAt} />
      </p>
      <p class="step">
        <span class="b">{escapeHtml(t.status)}</span> {escapeHtml(TIP_TEXT[t.status] ?? "")}
      </p>
      <Flash notice={flash.notice} error={flash.error} />
      {tipping && t.status === "pending" && visit.csrf ? (
        <InvoiceBox
          title="Pay the invoice"
          v={{
            bolt11: t.paymentRequest,
            amountSats: t.amountSats,
            state: "pending",
            expiresAt: t.expiresAt,
            checkAction: `${tipHref(t.id)}/check`,
            pollUrl: `/marketplace/status/tip/${t.id}`,
            self: tipHref(t.id),
            csrf: visit.csrf,
          }}
        />
      ) : (
        ""
      )}
      {t.status === "expired" || t.status === "failed" ? <p>{v.post ? <a href={t.commentId ? commentTipFormHref(t.commentId) : tipFormHref(v.post.id)}>Tip again with a new invoice</a> : ""}</p> : ""}
    </article>,
  );
}

/**
 * A post's tips in one line, for the post's page: its paid total and the way to tip it ("Tip the
 * author", to /post/<id>/tip; for a reader not signed in that page asks them to sign in).
 */
export function TipLine({ postId, totalTips, totalSats, own }: { postId: string; totalTips: number; totalSats: number; own: boolean }) {
  return (
    <p class="tips meta">
      {escapeHtml(totalTips ? `Tipped ${sats(totalSats)} in ${totalTips === 1 ? "1 tip" : `${totalTips} tips`}` : "No tips yet")}
      {own ? (
        ""
      ) : (
        <>
          {" · "}
          <a href={tipFormHref(postId)}>Tip the author</a>
        </>
      )}
    </p>
  );
}
