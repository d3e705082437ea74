// The static site of public/, imported as text so it is embedded in the compiled executable.
import { Elysia } from "elysia";
import indexHtml from "../../public/index.html" with { type: "text" };
import robots from "../../public/robots.txt" with { type: "text" };
import { htmlResponse } from "./html";

const CACHE = "public, max-age=300";
const text = (body: string) => () => new Response(body, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": CACHE } });

export const staticSite = () =>
  new Elysia({ name: "colony.static" })
    // The landing page's only style is its inline <style> element.
    .get("/", () => htmlResponse(indexHtml as unknown as string, { csp: { "style-src": "'unsafe-inline'" }, cacheControl: CACHE }), { detail: { hide: true } })
    .get("/robots.txt", text(robots), { detail: { hide: true } });
