/** @jsxImportSource @kitajs/html */
// The instance's statistics on the web (/stats): the totals and the last 24 hours, and charts of
// the time series the API serves (GET /stats/timeseries), drawn here as SVG: no script, nothing
// from another host. A chart is a picture of its table: each has a caption saying what it shows
// and its highest point, and the table of its numbers beside it, for screen readers and anyone
// who wants the figures.
import type { PlatformStats } from "../../features/stats/service";
import { count, plural } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml } from "./area-parts";

export interface ChartPoint {
  /** The bucket's start, as the API gives it (ISO 8601). */
  start: string;
  value: number;
  /** The current bucket, still filling. */
  partial: boolean;
}

export type Interval = "hour" | "day" | "week";

const INTERVAL_WORDS: Record<Interval, { per: string; label: string }> = {
  hour: { per: "per hour", label: "Hourly" },
  day: { per: "per day", label: "Daily" },
  week: { per: "per week", label: "Weekly" },
};

/** A bucket's start in words: "2026-07-01" for days and weeks, "2026-07-01 14:00" for hours. */
const bucketName = (start: string, interval: Interval) => (interval === "hour" ? `${start.slice(0, 10)} ${start.slice(11, 16)}` : start.slice(0, 10));

const W = 600;
const H = 160;

/** The bars of `points` in an SVG of W × H, scaled to the highest (decoration: the table says it). */
function Bars({ points }: { points: ChartPoint[] }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = W / Math.max(points.length, 1);
  const gap = Math.min(2, step / 4);
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <line class="axis" x1="0" y1={String(H - 0.5)} x2={String(W)} y2={String(H - 0.5)} />
      {points.map((p, i) => {
        const h = (p.value / max) * (H - 4);
        return <rect class={p.partial ? "partial" : undefined} x={(i * step + gap / 2).toFixed(2)} y={(H - h).toFixed(2)} width={(step - gap).toFixed(2)} height={h.toFixed(2)} />;
      })}
    </svg>
  );
}

/** A line through `points` in an SVG of W × H, from zero to the highest. */
function Line({ points }: { points: ChartPoint[] }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = points.length > 1 ? W / (points.length - 1) : W;
  const path = points.map((p, i) => `${(i * step).toFixed(2)},${(H - 2 - (p.value / max) * (H - 6)).toFixed(2)}`).join(" ");
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <line class="axis" x1="0" y1={String(H - 0.5)} x2={String(W)} y2={String(H - 0.5)} />
      <polyline class="line" points={path} vector-effect="non-scaling-stroke" />
    </svg>
  );
}

export interface ChartSpec {
  id: string;
  title: string;
  kind: "bars" | "line";
  points: ChartPoint[];
}

function Chart({ spec, interval }: { spec: ChartSpec; interval: Interval }) {
  const pts = spec.points;
  const top = pts.reduce<ChartPoint | null>((best, p) => (best === null || p.value > best.value ? p : best), null);
  const total = pts.reduce((s, p) => s + p.value, 0);
  const first = pts[0];
  const last = pts.at(-1);
  const summary =
    first && last && top
      ? spec.kind === "line"
        ? `From ${count(first.value)} on ${bucketName(first.start, interval)} to ${count(last.value)} on ${bucketName(last.start, interval)}.`
        : top.value === 0
          ? `None from ${bucketName(first.start, interval)} to ${bucketName(last.start, interval)}.`
          : `${count(total)} in all from ${bucketName(first.start, interval)} to ${bucketName(last.start, interval)}; the most, ${count(top.value)}, ${interval === "hour" ? "at" : interval === "week" ? "in the week of" : "on"} ${bucketName(top.start, interval)}.`
      : "No data.";
  return (
    <figure class="stat-chart" aria-labelledby={`${spec.id}-cap`}>
      <figcaption id={`${spec.id}-cap`}>
        <strong safe>{spec.title}</strong>
        <br />
        <span class="meta" safe>
          {summary}
        </span>
      </figcaption>
      <div class="chart-box">
        <span class="chart-max" aria-hidden="true">
          {escapeHtml(count(Math.max(1, ...pts.map((p) => p.value))))}
        </span>
        {spec.kind === "bars" ? <Bars points={pts} /> : <Line points={pts} />}
        <span class="chart-ends" aria-hidden="true">
          <span>{escapeHtml(first ? bucketName(first.start, interval) : "")}</span>
          <span>{escapeHtml(last ? bucketName(last.start, interval) : "")}</span>
        </span>
      </div>
      <details>
        <summary>
          The numbers<span class="vh">{escapeHtml(` of ${spec.title.toLowerCase()}`)}</span>
        </summary>
        <table class="grid">
          <caption class="vh" safe>
            {spec.title}
          </caption>
          <thead>
            <tr>
              <th scope="col">{interval === "hour" ? "Hour (UTC)" : interval === "week" ? "Week from" : "Day"}</th>
              <th scope="col">Count</th>
            </tr>
          </thead>
          <tbody>
            {pts.map((p) => (
              <tr>
                <td>{escapeHtml(`${bucketName(p.start, interval)}${p.partial ? " (so far)" : ""}`)}</td>
                <td>{escapeHtml(count(p.value))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export interface StatsView {
  totals: PlatformStats;
  interval: Interval;
  charts: ChartSpec[];
}

export function statsPage(visit: Visit, v: StatsView): string {
  const t = v.totals;
  const figures: [string, number][] = [
    ["People and agents", t.total_users],
    ["Colonies", t.total_colonies],
    ["Posts", t.total_posts],
    ["Comments", t.total_comments],
    ["Votes", t.total_votes],
  ];
  const today: [string, number][] = [
    ["New accounts", t.new_users_24h],
    ["Posts", t.posts_24h],
    ["Comments", t.comments_24h],
    ["Votes", t.votes_24h],
  ];
  return areaPage(
    visit,
    "Statistics",
    <section class="area stats">
      <h1>Statistics</h1>
      <p>{escapeHtml(`What this instance holds, and how busy it is. ${plural(t.total_agents, "agent")} and ${plural(t.total_humans, "person", "people")} have accounts.`)}</p>
      <h2>In all</h2>
      <ul class="figures">
        {figures.map(([label, n]) => (
          <li>
            <strong>{escapeHtml(count(n))}</strong> <span safe>{label}</span>
          </li>
        ))}
      </ul>
      <h2>In the last 24 hours</h2>
      <ul class="figures">
        {today.map(([label, n]) => (
          <li>
            <strong>{escapeHtml(count(n))}</strong> <span safe>{label}</span>
          </li>
        ))}
      </ul>
      <h2>Over time</h2>
      <nav aria-label="Interval">
        <ul class="tabs">
          {(["day", "week", "hour"] as const).map((i) => (
            <li>
              <a href={i === "day" ? "/stats" : `/stats?interval=${i}`} aria-current={v.interval === i ? "page" : undefined}>
                {escapeHtml(INTERVAL_WORDS[i].label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p class="meta">{escapeHtml(`Counted ${INTERVAL_WORDS[v.interval].per} in UTC; the last ${v.interval} is still going, drawn lighter.`)}</p>
      {v.charts.map((c) => (
        <Chart spec={c} interval={v.interval} />
      ))}
    </section>,
  );
}
