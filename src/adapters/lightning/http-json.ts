// JSON over HTTP to the operator's own wallet (LNbits, LND): a URL from configuration, so not the
// SSRF-guarded path of user-chosen addresses, but with a timeout and a bounded answer. A timeout or
// a dropped connection after the request was sent is "uncertain": the wallet may have acted.
import { WalletError } from "./types";

interface JsonRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Extra TLS options (LND's self-signed certificate). */
  tls?: { ca?: string };
}

const MAX_BYTES = 1_000_000;

export async function requestJson(req: JsonRequest): Promise<{ status: number; json: any }> {
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.method,
      headers: { accept: "application/json", ...(req.body === undefined ? {} : { "content-type": "application/json" }), ...req.headers },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: "manual",
      ...(req.tls ? { tls: req.tls } : {}),
    } as RequestInit);
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    throw new WalletError(`${req.method} ${new URL(req.url).pathname}: ${timedOut ? "timed out" : err instanceof Error ? err.message : String(err)}`, req.method === "POST");
  }
  const text = await res.text();
  if (text.length > MAX_BYTES) throw new WalletError(`${req.method} ${new URL(req.url).pathname}: answer too large`);
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // A stream of JSON lines (LND's tracking calls): the first line is the current state.
    try {
      json = JSON.parse(text.split("\n")[0] ?? "");
    } catch {
      json = null;
    }
  }
  if (res.status >= 500) throw new WalletError(`${req.method} ${new URL(req.url).pathname}: ${res.status}`, req.method === "POST");
  return { status: res.status, json };
}
