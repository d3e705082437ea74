// A small levelled logger writing one JSON object per line to stderr.
//
// Access-log lines (one per request, thousands a second) are batched: written together once
// ACCESS_BATCH_BYTES have gathered or ACCESS_FLUSH_MS after the first one, whichever comes first,
// since one write(2) per request would cost more than building the line does. Every other line
// is written at once, after any batched lines, so the output stays
// in order; `flush()` writes what is batched (the server calls it on shutdown, and the process's
// exit does too).
import type { LogLevel } from "../config";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Batched access-log output is written once it reaches this size… */
const ACCESS_BATCH_BYTES = 16 * 1024;
/** …or this long after its first line. */
const ACCESS_FLUSH_MS = 100;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** One access-log line (level info, message "request"), batched. */
  access(fields: Record<string, unknown>): void;
  /** Writes the batched lines now. */
  flush(): void;
}

/** Where the lines go: stderr unless a test captures them. */
export type LogSink = (chunk: string) => void;

const stderrSink: LogSink = (chunk) => void process.stderr.write(chunk);

/** Loggers holding batched lines, flushed when the process exits. */
const unflushed = new Set<Logger>();
let exitHook = false;

/**
 * `base`: fields every line ends with (a worker names itself: `{"worker":2}`; its supervisor is worker 0).
 */
export function createLogger(level: LogLevel, now: () => number = Date.now, sink: LogSink = stderrSink, base?: Record<string, unknown>): Logger {
  const min = ORDER[level];
  const baseJson = base ? JSON.stringify(base).slice(1, -1) : "";
  let batch = "";
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    unflushed.delete(logger);
    if (!batch) return;
    const chunk = batch;
    batch = "";
    sink(chunk);
  };
  const line = (lvl: string, msg: string, fields?: Record<string, unknown>) => JSON.stringify({ t: new Date(now()).toISOString(), level: lvl, msg, ...fields, ...base }) + "\n";
  const write = (lvl: Exclude<LogLevel, "silent">) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const text = line(lvl, msg, fields);
    if (batch) flush();
    sink(text);
  };
  // The access line is spliced together rather than built by spreading `fields` into a new
  // object, and the timestamp is formatted once per millisecond: together about half its cost.
  let isoAt = Number.NaN;
  let iso = "";
  const access = (fields: Record<string, unknown>) => {
    if (ORDER.info < min) return;
    const at = now();
    if (at !== isoAt) iso = new Date((isoAt = at)).toISOString();
    const json = JSON.stringify(fields);
    const rest = baseJson ? (json.length > 2 ? `${json.slice(1, -1)},${baseJson}` : baseJson) : json.slice(1, -1);
    batch += `{"t":"${iso}","level":"info","msg":"request"${rest ? "," : ""}${rest}}\n`;
    if (batch.length >= ACCESS_BATCH_BYTES) return flush();
    if (timer) return;
    timer = setTimeout(flush, ACCESS_FLUSH_MS);
    timer.unref?.();
    unflushed.add(logger);
    if (!exitHook) {
      exitHook = true;
      process.once("exit", () => {
        for (const l of [...unflushed]) l.flush();
      });
    }
  };
  const logger: Logger = { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), access, flush };
  return logger;
}
