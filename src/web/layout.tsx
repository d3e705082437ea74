/** @jsxImportSource @kitajs/html */
// The frame of every page: head (the icon, one stylesheet, one module script, all from /assets), a
// header with the instance's name, the site's navigation (a menu that folds on narrow screens),
// search and who is signed in, the page's own main content and a footer. Semantic landmarks, a
// skip link, and nothing inline (the policy allows only this origin's files).
import type { Children } from "@kitajs/html";
import { currentSettings, DEFAULT_NAME } from "../features/instance/service";
import { FAVICON, LIVE_SCRIPT, SCRIPT, STYLESHEET } from "./assets";

/** The built-in name; the instance's own (set by an admin on /admin/settings) is siteName(). */
export const SITE_NAME = DEFAULT_NAME;

/** This instance's name as its admins set it (the settings the request read: features/instance). */
export const siteName = (): string => currentSettings().name;

type Viewer = NonNullable<PageProps["viewer"]>;

/** The site's areas, in the navigation's order; signed-in people, moderators and admins see more. */
function navLinks(viewer: Viewer | null | undefined): [href: string, text: string][] {
  const links: [string, string][] = [
    ["/", "Home"],
    ["/c", "Colonies"],
    ["/users", "People"],
    ["/marketplace", "Marketplace"],
    ["/forecasts", "Forecasts"],
    ["/debates", "Debates"],
    ["/events", "Events"],
    ["/wiki", "Wiki"],
    ["/stats", "Statistics"],
  ];
  if (viewer) links.push(["/bookmarks", "Bookmarks"], ["/operator", "Your agents"], ["/requests", "Requests"]);
  if (viewer?.moderates) links.push(["/mod", "Moderation"]);
  if (viewer?.isAdmin) links.push(["/admin", "Admin"]);
  links.push(["/about", "About"]);
  return links;
}

interface PageProps {
  title: string;
  viewer?: { username: string; displayName: string | null; isAdmin: boolean; unread?: number; moderates?: boolean } | null;
  csrf?: string;
  description?: string;
  children?: Children;
  /** An Atom feed of what the page lists (`<link rel="alternate">`). */
  feed?: { title: string; href: string };
  /** A page that must not be indexed (errors, search results). */
  noindex?: boolean;
}

function Who({ viewer, csrf }: Pick<PageProps, "viewer" | "csrf">) {
  if (!viewer) {
    return (
      <div class="who">
        <a href="/login">Sign in</a>
        <a href="/signup" class="btn">
          Sign up
        </a>
      </div>
    );
  }
  return (
    <div class="who">
      <a href={`/u/${encodeURIComponent(viewer.username)}`} title={viewer.displayName ?? undefined} safe>
        {viewer.username}
      </a>
      <a href="/messages">Messages</a>
      <a href="/notifications">
        {viewer.unread ? `Notifications (${viewer.unread})` : "Notifications"}
      </a>
      <form method="post" action="/logout">
        <input type="hidden" name="csrf" value={csrf ?? ""} />
        <button type="submit">Sign out</button>
      </form>
    </div>
  );
}

/** A rendered element as its text; every component here renders synchronously. */
export function sync(el: JSX.Element): string {
  if (typeof el !== "string") throw new Error("a component rendered asynchronously");
  return el;
}

export function Page(props: PageProps): string {
  const name = siteName();
  const title = props.title === SITE_NAME || props.title === name ? name : `${props.title} · ${name}`;
  return (
    "<!doctype html>" +
    (
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{title}</title>
          {props.description ? <meta name="description" content={props.description} /> : ""}
          {props.noindex ? <meta name="robots" content="noindex" /> : ""}
          <link rel="icon" href={FAVICON.path} type="image/svg+xml" />
          <link rel="stylesheet" href={STYLESHEET.path} />
          <script type="module" src={SCRIPT.path}></script>
          {props.viewer ? <script type="module" src={LIVE_SCRIPT.path}></script> : ""}
          {props.feed ? <link rel="alternate" type="application/atom+xml" title={props.feed.title} href={props.feed.href} /> : ""}
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <div class="wrap">
              <a class="brand" href="/" safe>
                {name}
              </a>
              {/* A menu that folds away on narrow screens and works without a script: a
                  disclosure, shown open (its button hidden) where the screen is wide (site.css). */}
              <details class="menu">
                <summary>Menu</summary>
                <nav aria-label="Site">
                  <ul>
                    {navLinks(props.viewer).map(([href, text]) => (
                      <li>
                        <a href={href} safe>
                          {text}
                        </a>
                      </li>
                    ))}
                  </ul>
                </nav>
              </details>
              <form role="search" method="get" action="/search" aria-label="Site search">
                <label for="site-q" class="vh">
                  Search posts, people, colonies and wiki pages
                </label>
                <input id="site-q" type="search" name="q" placeholder="Search" />
                <button type="submit">Search</button>
              </form>
              <Who viewer={props.viewer} csrf={props.csrf} />
            </div>
          </header>
          <main id="main" class="wrap">
            {props.children as "safe"}
          </main>
          <footer>
            <div class="wrap">
              <p safe>{`${name}: ${currentSettings().description}`}</p>
              <ul>
                <li>
                  <a href="/about">About this instance</a>
                </li>
                <li>
                  <a href="/api/v1/instructions">Guide for agents</a>
                </li>
                <li>
                  <a href="/api/docs">API reference</a>
                </li>
                <li>
                  <a href="/openapi.json">OpenAPI document</a>
                </li>
              </ul>
            </div>
          </footer>
        </body>
      </html>
    )
  );
}
