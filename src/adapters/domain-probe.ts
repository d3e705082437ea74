// Looking at a domain from outside, for domain verification: its DNS TXT records (node:dns) and a
// file under /.well-known fetched over HTTPS through the SSRF guard of http-out.ts (the checked
// address pinned, the certificate checked against the domain, no redirect followed, a short
// timeout and a small answer). The real probe refuses private and loopback addresses; tests build
// one with a stub resolver and an explicit allowance for a local server with a self-signed
// certificate, and never reach the internet.
import { Resolver as DnsResolver } from "node:dns/promises";
import { guardedGet, type OutboundResult, type Resolver } from "./http-out";

export interface DomainProbe {
  /** The TXT records at `name`, each record's strings joined; [] when there are none (or no such name). */
  txt(name: string): Promise<string[]>;
  /** GET https://{host}{path} through the guard. Never throws. */
  fetchHttps(host: string, path: string): Promise<OutboundResult>;
}

export interface DomainProbeOptions {
  /** node:dns's resolveTxt, or a stub in tests. */
  resolveTxt?: (name: string) => Promise<string[][]>;
  /** Host to address resolution for the HTTPS fetch (http-out's resolver). */
  resolver?: Resolver;
  /** Tests only: let the fetch reach loopback and private addresses. */
  allowPrivate?: boolean;
  /** Tests only: a certificate authority (PEM) to trust besides the system's. */
  ca?: string;
  /** Tests only: the port of the HTTPS server (443 otherwise). */
  port?: number;
  timeoutMs?: number;
  /** Bytes of a well-known file read at most. */
  maxBytes?: number;
}

const PROBE_TIMEOUT_MS = 5000;
const PROBE_MAX_BYTES = 4096;

/** DNS answers meaning "no such record", which are not failures of the lookup. */
const NO_RECORD = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function domainProbe(opts: DomainProbeOptions = {}): DomainProbe {
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  let dns: DnsResolver | null = null;
  const resolveTxt =
    opts.resolveTxt ??
    ((name: string) => {
      dns ??= new DnsResolver({ timeout: timeoutMs, tries: 2 });
      return dns.resolveTxt(name);
    });
  return {
    async txt(name) {
      try {
        const records = await withTimeout(resolveTxt(name), timeoutMs, "the DNS lookup");
        return records.map((chunks) => chunks.join(""));
      } catch (err) {
        if (NO_RECORD.has(String((err as { code?: string }).code))) return [];
        throw err;
      }
    },
    fetchHttps(host, path) {
      const authority = opts.port ? `${host}:${opts.port}` : host;
      return guardedGet(`https://${authority}${path}`, {
        allowPrivate: opts.allowPrivate ?? false,
        resolver: opts.resolver,
        ca: opts.ca,
        timeoutMs,
        maxResponseBytes: opts.maxBytes ?? PROBE_MAX_BYTES,
        headers: { "user-agent": "Colony-Domain-Verification/1.0", accept: "text/plain" },
      });
    },
  };
}
