/** @jsxImportSource @kitajs/html */
// Listing on the marketplace (/marketplace/new?kind=task|offer): a paid task (a budget, a
// category, the deliverable and a deadline) or a service offer (a price, a category, the delivery
// time), posted in a colony the person may post in; and the Lightning address sales and work are
// paid out to, which an offer needs before it is listed.
import type { ColonyRow } from "../../features/colonies/service";
import { PAID_OFFER_CATEGORY, PAID_TASK_CATEGORY, PAID_TASK_DELIVERABLE } from "../../features/posts/content";
import { CsrfField, escapeHtml } from "../account-layout";
import { Tabs } from "../components";
import type { Visit } from "../visit";
import { Flash, marketPage, words, type FlashView } from "./market";

export type ListingKind = "task" | "offer";

export interface NewListingView {
  kind: ListingKind;
  colonies: readonly ColonyRow[];
  lightningAddress: string | null;
  values: Record<string, string>;
}

function Select({ id, label, options, value, optional }: { id: string; label: string; options: readonly string[]; value: string; optional?: boolean }) {
  return (
    <p>
      <label for={`l-${id}`}>{escapeHtml(label)}</label>
      <br />
      <select id={`l-${id}`} name={id}>
        {optional ? <option value="">not said</option> : ""}
        {options.map((o) => (
          <option value={escapeHtml(o)} selected={o === value}>
            {escapeHtml(words(o))}
          </option>
        ))}
      </select>
    </p>
  );
}

function NumberField({ id, label, value, min, max, required, hint }: { id: string; label: string; value: string; min: number; max: number; required?: boolean; hint?: string }) {
  return (
    <p>
      <label for={`l-${id}`}>{escapeHtml(label)}</label>
      <br />
      <input
        id={`l-${id}`}
        name={id}
        type="number"
        inputmode="numeric"
        step="1"
        min={String(min)}
        max={String(max)}
        required={required || undefined}
        value={value ? escapeHtml(value) : undefined}
        aria-describedby={hint ? `l-${id}-hint` : undefined}
      />
      {hint ? (
        <>
          <br />
          <small id={`l-${id}-hint`}>{escapeHtml(hint)}</small>
        </>
      ) : (
        ""
      )}
    </p>
  );
}

export function NewListingPage(visit: Visit, v: NewListingView, flash: FlashView = {}): string {
  const task = v.kind === "task";
  const val = (k: string) => v.values[k] ?? "";
  const csrf = visit.csrf!;
  return marketPage(
    visit,
    task ? "New paid task" : "New service offer",
    null,
    <>
      <h1>{task ? "New paid task" : "New service offer"}</h1>
      <Tabs
        label="What to list"
        items={[
          { href: "/marketplace/new?kind=task", text: "A paid task", current: task },
          { href: "/marketplace/new?kind=offer", text: "A service offer", current: !task },
        ]}
      />
      <p>
        {task
          ? "Describe the work and your budget: people bid, you accept one bid and pay its invoice, and complete the task once the work is delivered."
          : "Describe what you do and its price: buyers order it, you accept, they pay, you deliver and are paid 95 % at your Lightning address."}
      </p>
      <Flash notice={flash.notice} error={flash.error} />
      {task ? (
        ""
      ) : (
        <section aria-labelledby="payout-h" class="payout">
          <h2 id="payout-h">Your Lightning address</h2>
          <p>
            {v.lightningAddress ? (
              <>
                {"You are paid at "}
                <strong safe>{v.lightningAddress}</strong>.
              </>
            ) : (
              "You have none yet: set one before you list an offer or sell anything, since sales are paid out to it."
            )}
          </p>
          <form method="post" action="/marketplace/payout-address" class="filters">
            <CsrfField csrf={csrf} />
            <input type="hidden" name="kind" value={v.kind} />
            <label for="l-address">Lightning address (name@domain)</label>
            <input id="l-address" name="lightning_address" type="text" inputmode="email" autocomplete="off" maxlength="255" value={v.lightningAddress ? escapeHtml(v.lightningAddress) : undefined} />
            <button type="submit">Save the address</button>
          </form>
        </section>
      )}
      {task ? "" : <h2 id="offer-h">The offer</h2>}
      <form method="post" action="/marketplace/new" class="stack" aria-label={task ? "New paid task" : "New service offer"}>
        <CsrfField csrf={csrf} />
        <input type="hidden" name="kind" value={v.kind} />
        <p>
          <label for="l-colony">Colony</label>
          <br />
          <select id="l-colony" name="colony" required>
            {v.colonies.map((c) => (
              <option value={escapeHtml(c.name)} selected={c.name === (val("colony") || "general")}>
                {escapeHtml(c.displayName && c.displayName !== c.name ? `${c.displayName} (c/${c.name})` : `c/${c.name}`)}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="l-title">Title</label>
          <br />
          <input id="l-title" name="title" type="text" required maxlength="300" value={val("title") ? escapeHtml(val("title")) : undefined} />
        </p>
        <p>
          <label for="l-body">{task ? "The work (Markdown)" : "The service (Markdown)"}</label>
          <br />
          <textarea id="l-body" name="body" rows="6" required maxlength="50000">
            {escapeHtml(val("body"))}
          </textarea>
        </p>
        {task ? (
          <>
            <NumberField id="budget_min_sats" label="Budget from (sats, optional)" value={val("budget_min_sats")} min={0} max={100_000_000} />
            <NumberField
              id="budget_max_sats"
              label="Budget up to (sats, optional)"
              value={val("budget_max_sats")}
              min={21}
              max={100_000_000}
              hint="Bids must fall within the budget; every bid is at least 21 sats."
            />
            <Select id="category" label="Category" options={PAID_TASK_CATEGORY} value={val("category")} optional />
            <Select id="deliverable_type" label="Deliverable" options={PAID_TASK_DELIVERABLE} value={val("deliverable_type")} optional />
            <p>
              <label for="l-deadline">Deadline (optional)</label>
              <br />
              <input id="l-deadline" name="deadline" type="date" value={val("deadline") ? escapeHtml(val("deadline")) : undefined} />
            </p>
          </>
        ) : (
          <>
            <NumberField id="listed_rate_sats" label="Price (sats)" value={val("listed_rate_sats")} min={21} max={10_000_000} required hint="From 21 to 10,000,000 sats." />
            <Select id="category" label="Category" options={PAID_OFFER_CATEGORY} value={val("category")} optional />
            <NumberField id="delivery_days" label="Delivered within (days, optional)" value={val("delivery_days")} min={1} max={365} />
          </>
        )}
        <p>
          <button type="submit">{task ? "Post the task" : "List the offer"}</button>
        </p>
      </form>
    </>,
  );
}
