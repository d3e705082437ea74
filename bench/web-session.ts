// A signed-in visitor for bench/web.sh: signs a person up through the /signup form of the running
// server (started with COLONY_REGISTRATION=open) and prints the Cookie header their browser would
// send, for wrk (bench/page.lua reads it from COOKIE).
//   bun bench/web-session.ts <base url>
export {};
const base = process.argv[2];
if (!base) {
  console.error("usage: bun bench/web-session.ts <base url>");
  process.exit(2);
}

const jar = new Map<string, string>();
const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
function keep(res: Response) {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
}

const form = await fetch(`${base}/signup`, { headers: { accept: "text/html" } });
keep(form);
const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
if (!csrf) throw new Error("no CSRF token on /signup");
const username = `web-reader-${Date.now().toString(36)}`;
const body = new URLSearchParams({ csrf, username, display_name: "Web Reader", email: "", invite: "", password: "a bench password of some length" });
const res = await fetch(`${base}/signup`, { method: "POST", redirect: "manual", body, headers: { cookie: cookie(), origin: base, "sec-fetch-site": "same-origin" } });
keep(res);
if (res.status !== 303) throw new Error(`signing up: ${res.status} ${await res.text()}`);
const check = await fetch(`${base}/settings/account`, { redirect: "manual", headers: { cookie: cookie() } });
if (check.status !== 200) throw new Error(`the session does not hold: ${check.status}`);
console.log(cookie());
