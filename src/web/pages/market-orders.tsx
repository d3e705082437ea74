/** @jsxImportSource @kitajs/html */
// A service offer's page (/marketplace/offers/<post id>) with its order form and, for its seller,
// the orders it received; the person's orders (/marketplace/orders) and one order's page
// (/marketplace/orders/<order id>) through Part 3's order states: the seller accepts (an invoice
// is issued) or declines a requested order, the buyer may cancel it until then; the buyer pays the
// invoice (or it expires); the seller marks a paid order delivered, which starts their payout.
import type { ColonyRow } from "../../features/colonies/service";
import type { OrderRow, OrderStatus } from "../../features/offers/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml } from "../account-layout";
import { Author, count, Pager, Tabs, Time } from "../components";
import type { Visit } from "../visit";
import { ActButton, Facts, Flash, ListingHead, marketPage, metaNumber, metaText, offerHref, orderHref, sats, SignInTo, words, type FlashView } from "./market";
import { InvoiceBox } from "./market-invoice";

export const ORDER_STEPS: Record<OrderStatus, string> = {
  requested: "Requested: waiting for the seller to accept or decline",
  accepted: "Accepted: waiting for the buyer's payment",
  paid: "Paid: the seller delivers, then marks it delivered",
  delivered: "Delivered: the seller's payout is queued",
  declined: "Declined by the seller",
  cancelled: "Cancelled by the buyer",
  expired: "Expired: the invoice was not paid in time",
  payout_pending: "Delivered: the seller's payout is on its way",
  payout_completed: "Delivered and paid out",
  payout_failed: "Delivered: the seller's payout failed for now and is retried",
  payout_abandoned: "Delivered: the payout was abandoned (the seller has no Lightning address)",
};

export interface OfferView {
  post: PostRow;
  colony: ColonyRow;
  seller: UserRow | undefined;
  /** The seller's queue (only for the seller). */
  orders: OrderRow[] | null;
  buyers: Map<string, UserRow>;
}

function OrderRows({ orders, people, viewerId }: { orders: OrderRow[]; people: Map<string, UserRow>; viewerId: string }) {
  return (
    <ol class="rows orders">
      {orders.map((o) => {
        const selling = o.sellerId === viewerId;
        return (
          <li>
            <p>
              <a href={orderHref(o.id)}>{escapeHtml(`Order of ${sats(o.agreedAmountSats)}`)}</a> <span class="b">{escapeHtml(words(o.status))}</span>
            </p>
            <p class="meta">
              {selling ? "from " : "to "}
              <Author user={people.get(selling ? o.buyerId : o.sellerId)} avatar={16} /> · <Time at={o.createdAt} />
            </p>
          </li>
        );
      })}
    </ol>
  );
}

export function OfferPage(visit: Visit, v: OfferView, flash: FlashView & { values?: Record<string, string> } = {}): string {
  const post = v.post;
  const base = offerHref(post.id);
  const me = visit.caller?.id ?? null;
  const isSeller = me === post.authorId;
  const closed = post.closedAt !== null;
  const rate = metaNumber(post, "listed_rate_sats");
  const facts: [string, string][] = [["Price", rate === null ? "none listed" : sats(rate)]];
  const category = metaText(post, "category");
  if (category) facts.push(["Category", words(category)]);
  const days = metaNumber(post, "delivery_days");
  if (days !== null) facts.push(["Delivery", days === 1 ? "1 day" : `${count(days)} days`]);
  return marketPage(
    visit,
    post.title,
    "offers",
    <article class="listing" aria-labelledby="offer-title">
      <ListingHead post={post} kind="Service offer" author={v.seller} colony={v.colony} id="offer-title" />
      {closed ? <p class="step">The listing is closed: it takes no new orders.</p> : ""}
      <Facts facts={facts} />
      <div class="body">{post.bodyHtml as "safe"}</div>
      <Flash notice={flash.notice} error={flash.error} />
      {!closed && visit.csrf && !isSeller ? (
        <form method="post" action={`${base}/order`} class="stack" aria-labelledby="order-h">
          <h2 id="order-h">Order this service</h2>
          <CsrfField csrf={visit.csrf} />
          <p>The seller accepts or declines your order; once accepted you pay its invoice{rate === null ? "" : escapeHtml(` of ${sats(rate)}`)}.</p>
          <p>
            <label for="order-brief">What you need (optional, up to 2000 characters)</label>
            <br />
            <textarea id="order-brief" name="buyer_brief" rows="4" maxlength="2000">
              {escapeHtml(flash.values?.buyer_brief ?? "")}
            </textarea>
          </p>
          <p>
            <button type="submit">Place order</button>
          </p>
        </form>
      ) : (
        ""
      )}
      {!closed && !visit.caller ? <SignInTo back={base} to="to order this service." /> : ""}
      {isSeller && visit.csrf && me ? (
        <>
          <section aria-labelledby="queue-h">
            <h2 id="queue-h">Orders received</h2>
            {v.orders?.length ? <OrderRows orders={v.orders} people={v.buyers} viewerId={me} /> : <p class="empty">No order yet.</p>}
          </section>
          <section aria-labelledby="listing-h">
            <h2 id="listing-h">Your listing</h2>
            <p>{closed ? "Closed: it takes no new orders; the orders you have go on." : "Closing it stops new orders; the orders you have go on."}</p>
            <ActButton csrf={visit.csrf} action={`${base}/${closed ? "reopen" : "close"}`} label={closed ? "Reopen the listing" : "Close the listing"} cls="secondary" />
          </section>
        </>
      ) : (
        ""
      )}
    </article>,
  );
}

export function OrdersPage(
  visit: Visit,
  v: { orders: OrderRow[]; people: Map<string, UserRow>; titles: Map<string, string>; role: "all" | "buyer" | "seller"; page: number; hasMore: boolean },
): string {
  const me = visit.caller!.id;
  const href = (role: string, n = 1) => `/marketplace/orders${role === "all" ? "" : `?role=${role}`}${n > 1 ? `${role === "all" ? "?" : "&"}page=${n}` : ""}`;
  return marketPage(
    visit,
    "My orders",
    "orders",
    <>
      <h1>My orders</h1>
      <Tabs
        label="Orders"
        items={[
          { href: href("all"), text: "All", current: v.role === "all" },
          { href: href("buyer"), text: "Placed", current: v.role === "buyer" },
          { href: href("seller"), text: "Received", current: v.role === "seller" },
        ]}
      />
      {v.orders.length ? (
        <ol class="rows orders">
          {v.orders.map((o) => (
            <li>
              <h2>
                <a href={orderHref(o.id)} safe>
                  {v.titles.get(o.postId) ?? "[deleted offer]"}
                </a>
              </h2>
              <p class="meta">
                <span class="b">{escapeHtml(words(o.status))}</span> {escapeHtml(sats(o.agreedAmountSats))} · {o.sellerId === me ? "from " : "to "}
                <Author user={v.people.get(o.sellerId === me ? o.buyerId : o.sellerId)} avatar={16} /> · <Time at={o.createdAt} />
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">
          No order here yet. Browse the <a href="/marketplace/offers">service offers</a>.
        </p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => href(v.role, n)} />
    </>,
  );
}

export interface OrderView {
  order: OrderRow;
  title: string | null;
  buyer: UserRow | undefined;
  seller: UserRow | undefined;
}

export function OrderPage(visit: Visit, v: OrderView, flash: FlashView = {}): string {
  const o = v.order;
  const base = orderHref(o.id);
  const me = visit.caller!.id;
  const csrf = visit.csrf!;
  const selling = o.sellerId === me;
  const buying = o.buyerId === me;
  return marketPage(
    visit,
    `Order: ${v.title ?? "a deleted offer"}`,
    "orders",
    <article class="order" aria-labelledby="order-title">
      <h1 id="order-title">
        {"Order: "}
        {v.title ? (
          <a href={offerHref(o.postId)} safe>
            {v.title}
          </a>
        ) : (
          "a deleted offer"
        )}
      </h1>
      <p class="step">
        <span class="b">{escapeHtml(words(o.status))}</span> {escapeHtml(ORDER_STEPS[o.status])}
      </p>
      <dl class="facts">
        <div>
          <dt>Price</dt>
          <dd safe>{sats(o.agreedAmountSats)}</dd>
        </div>
        <div>
          <dt>Buyer</dt>
          <dd>
            <Author user={v.buyer} avatar={16} />
            {buying ? " (you)" : ""}
          </dd>
        </div>
        <div>
          <dt>Seller</dt>
          <dd>
            <Author user={v.seller} avatar={16} />
            {selling ? " (you)" : ""}
          </dd>
        </div>
        <div>
          <dt>Ordered</dt>
          <dd>
            <Time at={o.createdAt} />
          </dd>
        </div>
      </dl>
      {o.buyerBrief ? (
        <>
          <h2>The buyer's brief</h2>
          <div class="plain brief" safe>
            {o.buyerBrief}
          </div>
        </>
      ) : (
        ""
      )}
      <Flash notice={flash.notice} error={flash.error} />
      {o.status === "requested" && selling ? (
        <section aria-labelledby="next-h">
          <h2 id="next-h">Accept or decline</h2>
          <p>Accepting issues the buyer's invoice; you deliver once it is paid.</p>
          <ActButton csrf={csrf} action={`${base}/accept`} label="Accept the order" />
          <ActButton csrf={csrf} action={`${base}/decline`} label="Decline" cls="secondary" />
        </section>
      ) : (
        ""
      )}
      {o.status === "requested" && buying ? (
        <section aria-labelledby="next-h">
          <h2 id="next-h">Waiting for the seller</h2>
          <p>You can still cancel the order until the seller accepts it.</p>
          <ActButton csrf={csrf} action={`${base}/cancel`} label="Cancel the order" cls="secondary" />
        </section>
      ) : (
        ""
      )}
      {o.status === "accepted" && buying && o.lightningInvoice && o.invoiceExpiresAt !== null ? (
        <InvoiceBox
          title="Pay the invoice"
          v={{
            bolt11: o.lightningInvoice,
            amountSats: o.agreedAmountSats,
            state: "pending",
            expiresAt: o.invoiceExpiresAt,
            checkAction: `${base}/check`,
            pollUrl: `/marketplace/status/order/${o.id}`,
            self: base,
            csrf,
          }}
        />
      ) : (
        ""
      )}
      {o.status === "accepted" && selling ? (
        <section aria-labelledby="next-h">
          <h2 id="next-h">Waiting for the buyer's payment</h2>
          <p>The invoice is payable until {o.invoiceExpiresAt !== null ? <Time at={o.invoiceExpiresAt} /> : "it expires"}. Deliver once it is paid.</p>
          <ActButton csrf={csrf} action={`${base}/check`} label="Check payment" cls="secondary" />
        </section>
      ) : (
        ""
      )}
      {o.status === "paid" && selling ? (
        <section aria-labelledby="next-h">
          <h2 id="next-h">Deliver</h2>
          <p>The buyer paid. Deliver the work, then mark the order delivered: your payout (95 %) goes to your Lightning address.</p>
          <ActButton csrf={csrf} action={`${base}/deliver`} label="Mark delivered" />
        </section>
      ) : (
        ""
      )}
    </article>,
  );
}
