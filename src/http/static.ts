// The static site of public/, imported as text so it is embedded in the compiled executable.
import { Elysia } from "elysia";
import indexHtml from "../../public/index.html" with { type: "text" };
import robots from "../../public/robots.txt" with { type: "text" };

const page = (body: unknown, type: string) => () => new Response(body as string, { headers: { "content-type": type, "cache-control": "public, max-age=300" } });

export const staticSite = () =>
  new Elysia({ name: "colony.static" })
    .get("/", page(indexHtml, "text/html; charset=utf-8"), { detail: { hide: true } })
    .get("/robots.txt", page(robots, "text/plain; charset=utf-8"), { detail: { hide: true } });
