// A browser for tests of the web pages: it keeps cookies as a browser does (Set-Cookie in, Cookie
// out, Max-Age=0 removes), unpacks gzip answers, reads the CSRF token and hidden fields of the last page, and posts
// forms form-encoded, all in process through app.handle.
import { gunzipSync } from "node:zlib";
import { PASSWORD } from "../src/features/sessions/fixtures";
import { BASE } from "./harness";

/** What the browser needs of a harness: an app to hand requests to. */
export type AppUnderTest = { app: { handle(request: Request): Response | Promise<Response> } };

export interface Page {
  status: number;
  /** The body as a browser shows it (a gzip answer unpacked). */
  text: string;
  /** The body as sent. */
  bytes: Uint8Array;
  headers: Headers;
  /** The Location of a redirect, as a path. */
  location: string | null;
  /** Set-Cookie values of the answer. */
  setCookies: string[];
}

/** The value of the hidden field `name` on a page (the first one), or null. */
export function hiddenField(html: string, name: string): string | null {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return m ? m[1].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))) : null;
}

export class Browser {
  readonly jar = new Map<string, string>();
  /** The last page fetched. */
  last: Page | null = null;
  /** The `csrf` field of the last page that had a form. */
  csrf: string | null = null;

  constructor(
    private readonly h: AppUnderTest,
    /** Headers sent with every request (a user agent, Sec-Fetch-Site …). */
    private readonly headers: Record<string, string> = { "user-agent": "Test Browser/1.0" },
  ) {}

  async request(method: string, path: string, init: { body?: RequestInit["body"]; headers?: Record<string, string> } = {}): Promise<Page> {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await this.h.app.handle(new Request(new URL(path, BASE).toString(), { method, headers, body: init.body }));
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair, ...attrs] = c.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (attrs.some((a) => /^max-age=0$/i.test(a))) this.jar.delete(name);
      else this.jar.set(name, pair.slice(eq + 1));
    }
    const location = res.headers.get("location");
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(bytes) : bytes);
    const page: Page = { status: res.status, text, bytes, headers: res.headers, location, setCookies };
    this.last = page;
    this.csrf = hiddenField(page.text, "csrf") ?? this.csrf;
    return page;
  }

  get(path: string): Promise<Page> {
    return this.request("GET", path);
  }

  /**
   * Posts `fields` form-encoded with the CSRF token of the last page that had a form (`csrf: null` sends none, a
   * string sends that one instead).
   */
  post(path: string, fields: Record<string, string> = {}, opts: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<Page> {
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    const body = new URLSearchParams({ ...(token === null ? {} : { csrf: token }), ...fields }).toString();
    return this.request("POST", path, { body, headers: { "content-type": "application/x-www-form-urlencoded", ...opts.headers } });
  }

  /** Posts `fields` and `files` as multipart/form-data (a file upload), with the CSRF token as `post` does. */
  postMultipart(path: string, fields: Record<string, string> = {}, files: Record<string, File> = {}, opts: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<Page> {
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    const body = new FormData();
    if (token !== null) body.append("csrf", token);
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    for (const [k, v] of Object.entries(files)) body.append(k, v);
    return this.request("POST", path, { body, headers: { ...opts.headers } });
  }
}

/** The username the page's header shows as signed in (layout.tsx), or null when it offers sign-in. */
export function signedInAs(html: string): string | null {
  const m = /<div class="who"><a href="\/u\/[^"]*"[^>]*>([^<]*)<\/a>/.exec(html);
  return m ? m[1] : null;
}

/** A browser signed in as `username` through the sign-in form (the fixtures' password by default). */
export async function signedInBrowser(h: AppUnderTest, username: string, password = PASSWORD): Promise<Browser> {
  const b = new Browser(h);
  await b.get("/login");
  const r = await b.post("/login", { login: username, password });
  if (r.status !== 303) throw new Error(`signing in as ${username}: ${r.status}`);
  return b;
}

/**
 * Posts an endless body without a declared length (chunked) from the browser's cookies, counting
 * the bytes the server pulls: a bounded reader stops soon after its limit.
 */
export async function postEndless(h: AppUnderTest, b: Browser, path: string, contentType: string, chunk: Uint8Array): Promise<{ status: number; pulled: number }> {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled > 64 * 1024 * 1024) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await h.app.handle(new Request(new URL(path, BASE).toString(), { method: "POST", headers: { cookie, "content-type": contentType }, body }));
  return { status: res.status, pulled };
}
