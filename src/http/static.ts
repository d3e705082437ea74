// The static files of public/, imported as text so they are embedded in the compiled executable.
// (The front page `/` is the web interface's, src/web/routes.ts.)
import { Elysia } from "elysia";
import robots from "../../public/robots.txt" with { type: "text" };

const CACHE = "public, max-age=300";
const text = (body: string) => () => new Response(body, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": CACHE } });

export const staticSite = () => new Elysia({ name: "colony.static" }).get("/robots.txt", text(robots), { detail: { hide: true } });
