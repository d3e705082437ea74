/** @jsxImportSource @kitajs/html */
// Forecasts on the web (/forecasts…): the list with its filters, one forecast with its
// prediction and resolution, the form of a new one, a person's calibration and the leaderboard.
// A forecast is one person's prediction: the probability its author gives that it resolves yes
// (spec Part 3 §4.8). The routes (web/forecast-routes.ts) call the forecasts service; these
// functions show what it returned.
import type { ForecastRow } from "../../features/forecasts/service";
import type { UserRow } from "../../features/users/service";
import { Hidden } from "../account-layout";
import { Pager, Tabs, Time } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml, Flash, ListTabs, listHref, Person, PostForm, SignInToTakePart, TextArea, TextField, type FlashView } from "./area-parts";

export const forecastHref = (id: string) => `/forecasts/${encodeURIComponent(id)}`;
export const calibrationHref = (username: string) => `/forecasts/people/${encodeURIComponent(username)}`;

const STATUS_LABELS: Record<ForecastRow["status"], string> = {
  open: "Open",
  resolved_yes: "Resolved: yes",
  resolved_no: "Resolved: no",
  voided: "Voided",
};

const percent = (p: number) => `${Math.round(p * 100)}%`;

/** The probability as a number and a bar drawn in SVG (the bar is decoration: the number says it). */
function Probability({ p }: { p: number }) {
  return (
    <span class="prob">
      <strong>{escapeHtml(percent(p))}</strong>
      <svg class="bar" width="64" height="8" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <rect width="100" height="8" class="track" />
        <rect width={String(Math.round(p * 100))} height="8" class="fill" />
      </svg>
    </span>
  );
}

function ForecastTabs({ current }: { current: "list" | "board" }) {
  return (
    <Tabs
      label="Forecasts"
      items={[
        { href: "/forecasts", text: "Forecasts", current: current === "list" },
        { href: "/forecasts/leaderboard", text: "Leaderboard", current: current === "board" },
      ]}
    />
  );
}

export interface ForecastListView {
  items: ForecastRow[];
  authors: Map<string, UserRow>;
  status: string;
  sort: string;
  page: number;
  hasMore: boolean;
  total: number;
  flash: FlashView;
}

const STATUS_FILTERS = [
  ["", "All"],
  ["open", "Open"],
  ["resolved", "Resolved"],
  ["voided", "Voided"],
] as const;
const SORT_LABELS = [
  ["newest", "Newest"],
  ["resolution_date", "Resolving soonest"],
  ["probability", "Most likely"],
] as const;

export function ForecastItems({ items, authors }: { items: ForecastRow[]; authors: Map<string, UserRow> }) {
  if (!items.length) return <p class="empty">No forecasts here yet.</p>;
  return (
    <ul class="rows">
      {items.map((f) => (
        <li class="item">
          <h2 class="h3">
            <a href={forecastHref(f.id)} safe>
              {f.title}
            </a>
          </h2>
          <p class="meta">
            <Probability p={f.probability} />
            {escapeHtml(` · ${STATUS_LABELS[f.status]} · resolves on ${f.resolutionDate} · by `)}
            <Person user={authors.get(f.userId)} />
          </p>
        </li>
      ))}
    </ul>
  );
}

export function forecastListPage(visit: Visit, v: ForecastListView): string {
  const href = listHref("/forecasts", v);
  return areaPage(
    visit,
    "Forecasts",
    <section class="area forecasts">
      <h1>Forecasts</h1>
      <ForecastTabs current="list" />
      <p>Predictions about the future, each with the probability its author gives it. When the date comes, the author says how it turned out, and everyone's calibration follows.</p>
      <Flash {...v.flash} />
      {visit.caller ? (
        <p>
          <a class="btn" href="/forecasts/new">
            New forecast
          </a>{" "}
          <a href={calibrationHref(visit.viewer!.username)}>Your calibration</a>
        </p>
      ) : (
        <SignInToTakePart next="/forecasts" what="make a forecast" />
      )}
      <ListTabs href={href} current={v} statuses={STATUS_FILTERS} sorts={SORT_LABELS} />
      <ForecastItems items={v.items} authors={v.authors} />
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => href({ page: n })} />
    </section>,
  );
}

export interface ForecastFormValues {
  title: string;
  body: string;
  probability: string;
  resolution_date: string;
}

export function newForecastPage(visit: Visit, values: ForecastFormValues, tomorrow: string, error: string | null = null): string {
  return areaPage(
    visit,
    "New forecast",
    <section class="area forecasts">
      <h1>New forecast</h1>
      <Flash error={error} />
      <form method="post" action="/forecasts/new" class="stack">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        <TextField id="fc-title" name="title" label="What will happen?" value={values.title} required maxlength={300} hint="A yes-or-no question or claim, 10 to 300 characters." />
        <TextArea id="fc-body" name="body" label="Details (optional)" value={values.body} rows={5} maxlength={5000} hint="How it resolves, and what you base it on." />
        <TextField id="fc-probability" name="probability" type="number" min="1" max="99" step="1" label="Your probability that it happens (%)" value={values.probability} required hint="From 1 to 99." />
        <TextField id="fc-date" name="resolution_date" type="date" min={tomorrow} label="Resolution date" value={values.resolution_date} required hint="A day after today (UTC)." />
        <p>
          <button type="submit">Publish the forecast</button>
        </p>
      </form>
    </section>,
  );
}

export interface ForecastView {
  forecast: ForecastRow;
  author: UserRow | undefined;
  resolvedBy: UserRow | undefined;
  /** Whether the resolution date has passed (UTC). */
  due: boolean;
  /** Whether the viewer may resolve it (its author or a site admin), as the service decides. */
  mayResolve: boolean;
  flash: FlashView;
}

export function forecastPage(visit: Visit, v: ForecastView): string {
  const f = v.forecast;
  const here = forecastHref(f.id);
  return areaPage(
    visit,
    f.title,
    <article class="area forecasts">
      <p class="crumbs">
        <a href="/forecasts">Forecasts</a>
      </p>
      <h1 safe>{f.title}</h1>
      <p class="meta">
        {"By "}
        <Person user={v.author} />
        {v.author ? (
          <>
            {" ("}
            <a href={calibrationHref(v.author.username)}>calibration</a>
            {")"}
          </>
        ) : (
          ""
        )}
        {", "}
        <Time at={f.createdAt} />
      </p>
      <Flash {...v.flash} />
      <dl class="facts">
        <dt>Prediction</dt>
        <dd>
          <Probability p={f.probability} />
          {" that it happens"}
        </dd>
        <dt>Resolution date</dt>
        <dd safe>{`${f.resolutionDate}${f.status === "open" && v.due ? " (passed: waiting for its author to resolve it)" : ""}`}</dd>
        <dt>Status</dt>
        <dd>
          {escapeHtml(STATUS_LABELS[f.status])}
          {f.resolvedAt !== null ? (
            <>
              {" on "}
              <Time at={f.resolvedAt} />
              {" by "}
              <Person user={v.resolvedBy} />
            </>
          ) : (
            ""
          )}
        </dd>
      </dl>
      {f.body ? (
        <p class="plain" safe>
          {f.body}
        </p>
      ) : (
        ""
      )}
      {f.status === "open" && v.mayResolve ? (
        <section aria-labelledby="resolve-h">
          <h2 id="resolve-h">Resolve it</h2>
          <p>How did it turn out? A resolution is final.</p>
          <div class="act">
            <PostForm visit={visit} action={`${here}/resolve`} label="It happened (yes)">
              <Hidden name="outcome" value="yes" />
            </PostForm>
            <PostForm visit={visit} action={`${here}/resolve`} label="It did not (no)">
              <Hidden name="outcome" value="no" />
            </PostForm>
            <PostForm visit={visit} action={`${here}/resolve`} label="Void it">
              <Hidden name="outcome" value="void" />
            </PostForm>
          </div>
        </section>
      ) : (
        ""
      )}
    </article>,
  );
}

export interface CalibrationView {
  user: UserRow;
  totalResolved: number;
  brier: number | null;
  correct: number;
  buckets: { range_low: number; range_high: number; predicted_avg: number; actual_rate: number; count: number }[];
  recent: ForecastRow[];
}

export function calibrationPage(visit: Visit, v: CalibrationView): string {
  const name = v.user.displayName || v.user.username;
  const title = `Calibration of ${name}`;
  return areaPage(
    visit,
    title,
    <section class="area forecasts">
      <p class="crumbs">
        <a href="/forecasts">Forecasts</a>
      </p>
      <h1 safe>{title}</h1>
      <dl class="facts">
        <dt>Resolved forecasts</dt>
        <dd>{escapeHtml(String(v.totalResolved))}</dd>
        <dt>Brier score</dt>
        <dd>{escapeHtml(v.brier === null ? "none yet" : `${v.brier.toFixed(4)} (0 is perfect, 0.25 is always saying 50%; lower is better)`)}</dd>
        <dt>Called right</dt>
        <dd>{escapeHtml(`${v.correct} of ${v.totalResolved}`)}</dd>
      </dl>
      <h2>By probability</h2>
      {v.buckets.length ? (
        <table class="grid">
          <caption class="vh">Resolved forecasts grouped by the probability given</caption>
          <thead>
            <tr>
              <th scope="col">Probability given</th>
              <th scope="col">Forecasts</th>
              <th scope="col">Average given</th>
              <th scope="col">Share that happened</th>
            </tr>
          </thead>
          <tbody>
            {v.buckets.map((b) => (
              <tr>
                <td>{escapeHtml(`${percent(b.range_low)} to ${percent(b.range_high)}`)}</td>
                <td>{escapeHtml(String(b.count))}</td>
                <td>{escapeHtml(percent(b.predicted_avg))}</td>
                <td>{escapeHtml(percent(b.actual_rate))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">No resolved forecasts yet.</p>
      )}
      <h2>Their latest forecasts</h2>
      <ForecastItems items={v.recent} authors={new Map([[v.user.id, v.user]])} />
    </section>,
  );
}

export interface LeaderboardView {
  entries: { user: UserRow | undefined; brier: number; n: number; correct: number }[];
  minResolved: number;
  page: number;
  hasMore: boolean;
  offset: number;
}

export function leaderboardPage(visit: Visit, v: LeaderboardView): string {
  return areaPage(
    visit,
    "Forecast leaderboard",
    <section class="area forecasts">
      <h1>Forecast leaderboard</h1>
      <ForecastTabs current="board" />
      <p>{escapeHtml(`The best calibrated forecasters: lowest Brier score first, among those with at least ${v.minResolved} forecasts resolved yes or no.`)}</p>
      {v.entries.length ? (
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">Rank</th>
              <th scope="col">Forecaster</th>
              <th scope="col">Brier score</th>
              <th scope="col">Resolved</th>
              <th scope="col">Called right</th>
            </tr>
          </thead>
          <tbody>
            {v.entries.map((e, i) => (
              <tr>
                <td>{escapeHtml(String(v.offset + i + 1))}</td>
                <td>{e.user ? <a href={calibrationHref(e.user.username)} safe>{e.user.displayName || e.user.username}</a> : "[deleted]"}</td>
                <td>{escapeHtml(e.brier.toFixed(4))}</td>
                <td>{escapeHtml(String(e.n))}</td>
                <td>{escapeHtml(String(e.correct))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">Nobody has enough resolved forecasts yet.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => `/forecasts/leaderboard?page=${n}`} />
    </section>,
  );
}
