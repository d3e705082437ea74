// /metrics of an instance of several processes (`colony serve --workers N`): the worker a scrape
// lands on gathers the figures of the supervisor and of the other workers and merges them with
// its own (core/metrics.ts mergeMetrics).
//
// The figures travel over the IPC channels the supervisor already holds to each worker, relayed
// by the supervisor:
//
//   worker A → supervisor   { t: "metrics:ask", id }           A is being scraped
//   supervisor → worker B   { t: "metrics:collect", id }       for each other worker that listens
//   worker B → supervisor   { t: "metrics:own", id, metrics }  B's registry as JSON
//   supervisor → worker A   { t: "metrics:others", id, parts, missing }
//
// `parts` starts with the supervisor's own registry. A worker that does not answer within
// COLLECT_TIMEOUT_MS is left out and counted in `missing`, and so is one being started again; a
// supervisor that does not answer within ASK_TIMEOUT_MS leaves the worker with its own figures
// alone. The answer says so in colony_metrics_sources{state="missing"}.
//
// Why this way rather than each process listening on a socket of its own in the data folder: the
// channels exist already, in the compiled executable as well, and nothing is added to the file
// system (no socket files to make private, to remove after a crash, or to keep under the length
// limit of a socket path); the supervisor knows which workers are up, so none is waited for in
// vain, and nothing of it can be reached from the network.
import type { Subprocess } from "bun";
import type { Ctx } from "./core/context";
import type { MetricJSON, OtherProcesses } from "./core/metrics";

/** How long the supervisor waits for each worker's figures. */
export const COLLECT_TIMEOUT_MS = 1_000;
/** How long a worker waits for the supervisor's answer (its own wait for the others, and some). */
export const ASK_TIMEOUT_MS = 2_000;

export type MetricsMessage =
  | { t: "metrics:ask"; id: number }
  | { t: "metrics:collect"; id: number }
  | { t: "metrics:own"; id: number; metrics: MetricJSON[] }
  | { t: "metrics:others"; id: number; parts: MetricJSON[][]; missing: number };

const isMessage = (m: unknown): m is MetricsMessage => typeof m === "object" && m !== null && typeof (m as { t?: unknown }).t === "string" && (m as { t: string }).t.startsWith("metrics:");

/** What the relay needs of a worker process: its IPC channel. */
type Channel = Pick<Subprocess, "send">;

/** A worker slot of the supervisor, as the relay sees it. */
export interface RelaySlot {
  proc: Channel | null;
  /** During a reload, the worker the slot's new process replaces: it serves until the new one listens. */
  old?: Channel | null;
}

export interface MetricsRelay {
  /**
   * Handles a message from a worker's process; true when it was one of the relay's (the caller
   * then has nothing to do with it). A worker's `listening` message is noted (from then on it is
   * asked for its figures) and left to the caller.
   */
  fromWorker(proc: Channel, message: unknown): boolean;
}

/** The supervisor's half: answers a worker's ask with its own figures and the other workers'. */
export function metricsRelay(ctx: Ctx, workers: number, slots: () => Iterable<RelaySlot>, timeoutMs = COLLECT_TIMEOUT_MS): MetricsRelay {
  let next = 0;
  const waiting = new Map<number, (metrics: MetricJSON[]) => void>();
  // A worker is asked once it listens: before that it has served nothing and may not hear yet.
  const ready = new WeakSet<Channel>();

  const collect = (proc: Channel) =>
    new Promise<MetricJSON[] | null>((resolve) => {
      const id = ++next;
      const done = (metrics: MetricJSON[] | null) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(metrics);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      waiting.set(id, done);
      try {
        proc.send({ t: "metrics:collect", id } satisfies MetricsMessage);
      } catch {
        done(null);
      }
    });

  const answer = async (asker: Channel, id: number) => {
    const others = [...slots()].flatMap((s) => [s.old, s.proc]).filter((p): p is Channel => !!p && p !== asker && ready.has(p));
    const [own, ...theirs] = await Promise.all([ctx.metrics.json(), ...others.map(collect)]);
    const parts = [own, ...theirs.filter((m): m is MetricJSON[] => m !== null)];
    // Every worker but the asker should have answered.
    const missing = Math.max(0, workers - 1 - (parts.length - 1));
    try {
      asker.send({ t: "metrics:others", id, parts, missing } satisfies MetricsMessage);
    } catch {
      // The asker is gone; so is its scrape.
    }
  };

  return {
    fromWorker(proc, message) {
      if ((message as { t?: unknown } | null)?.t === "listening") ready.add(proc);
      if (!isMessage(message)) return false;
      if (message.t === "metrics:own") waiting.get(message.id)?.(message.metrics);
      else if (message.t === "metrics:ask")
        answer(proc, message.id).catch((err) => ctx.log.warn("could not gather the workers' metrics", { error: String(err) }));
      return true;
    },
  };
}

/** What a worker needs of its IPC channel to the supervisor (the process object in a worker). */
export interface SupervisorChannel {
  send?(message: unknown): unknown;
  on(event: "message", listener: (message: unknown) => void): unknown;
}

/**
 * A worker's half: answers the supervisor's requests for its figures, and makes its /metrics
 * gather the others' (ctx.metrics.others). Call before telling the supervisor it listens.
 */
export function shareMetrics(ctx: Ctx, channel: SupervisorChannel = process as unknown as SupervisorChannel, timeoutMs = ASK_TIMEOUT_MS): void {
  let next = 0;
  const waiting = new Map<number, (others: OtherProcesses) => void>();
  const send = (message: MetricsMessage) => {
    if (!channel.send) return false;
    try {
      channel.send(message);
      return true;
    } catch {
      return false;
    }
  };
  channel.on("message", (message) => {
    if (!isMessage(message)) return;
    if (message.t === "metrics:collect") {
      ctx.metrics.json().then(
        (metrics) => send({ t: "metrics:own", id: message.id, metrics }),
        (err) => ctx.log.warn("could not read this worker's metrics for another worker", { error: String(err) }),
      );
    } else if (message.t === "metrics:others") waiting.get(message.id)?.({ parts: message.parts, missing: message.missing });
  });
  ctx.metrics.others = () =>
    new Promise<OtherProcesses>((resolve) => {
      const id = ++next;
      // Without the supervisor's answer: this worker's figures alone; the supervisor and the
      // other workers are missing.
      const alone: OtherProcesses = { parts: [], missing: ctx.cluster?.workers ?? ctx.config.workers };
      const done = (others: OtherProcesses) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(others);
      };
      const timer = setTimeout(() => done(alone), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      waiting.set(id, done);
      if (!send({ t: "metrics:ask", id })) done(alone);
    });
}
