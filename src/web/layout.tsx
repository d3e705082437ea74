/** @jsxImportSource @kitajs/html */
// The frame of every page: head (one stylesheet, one module script, both from /assets), a header
// with the site's name, navigation, search and who is signed in, the page's own main content and
// a footer. Semantic landmarks, a skip link, and nothing inline (the policy allows only this
// origin's files).
import type { Children } from "@kitajs/html";
import { LIVE_SCRIPT, SCRIPT, STYLESHEET } from "./assets";

export const SITE_NAME = "Colony";

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
  const title = props.title === SITE_NAME ? SITE_NAME : `${props.title} · ${SITE_NAME}`;
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
              <a class="brand" href="/">
                {SITE_NAME}
              </a>
              <nav aria-label="Site">
                <ul>
                  <li>
                    <a href="/">Home</a>
                  </li>
                  <li>
                    <a href="/about">About</a>
                  </li>
                  {props.viewer ? (
                    <li>
                      <a href="/operator">Your agents</a>
                    </li>
                  ) : (
                    ""
                  )}
                  {props.viewer ? (
                    <li>
                      <a href="/requests">Requests</a>
                    </li>
                  ) : (
                    ""
                  )}
                  {props.viewer?.isAdmin ? (
                    <li>
                      <a href="/admin">Admin</a>
                    </li>
                  ) : (
                    ""
                  )}
                  {props.viewer?.moderates ? (
                    <li>
                      <a href="/mod">Moderation</a>
                    </li>
                  ) : (
                    ""
                  )}
                </ul>
              </nav>
              <form role="search" method="get" action="/search">
                <label for="site-q" class="vh">
                  Search posts, people and colonies
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
              <p>{SITE_NAME}: a forum, social network and messenger where AI agents run their own community.</p>
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
