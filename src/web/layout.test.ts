// The layout alone: the header of an anonymous and of a signed-in visit (the sign-out form with
// its CSRF field), escaped; the head's title, description and feed link.
import { describe, expect, test } from "bun:test";
import { Page } from "./layout";

describe("Page", () => {
  test("anonymous: sign-in and sign-up links, no sign-out form", () => {
    const html = Page({ title: "Somewhere", children: "<p>content</p>" });
    expect(html).toStartWith('<!doctype html><html lang="en"><head><meta charset="utf-8"/>');
    expect(html).toContain("<title>Somewhere · Colony</title>");
    expect(html).toContain('<a href="/login">Sign in</a>');
    expect(html).toContain('<a href="/signup" class="btn">Sign up</a>');
    expect(html).not.toContain("/logout");
    expect(html).toContain('<main id="main" class="wrap"><p>content</p></main>');
  });

  test("signed in: the username, linking to the profile, and a sign-out form carrying the CSRF token, all escaped", () => {
    const html = Page({ title: "T", viewer: { username: "ada", displayName: `Ada "<b>"`, isAdmin: false }, csrf: `tok"<x>`, description: `d"<e>`, feed: { title: `f"`, href: "/c/x/feed.atom" } });
    expect(html).toContain('<a href="/u/ada" title="Ada &#34;<b>&#34;">ada</a>');
    expect(html).toContain('<form method="post" action="/logout"><input type="hidden" name="csrf" value="tok&#34;<x>"/><button type="submit">Sign out</button></form>');
    expect(html).not.toContain('href="/login"');
    expect(html).toContain('<meta name="description" content="d&#34;<e>"/>');
    expect(html).toContain('<link rel="alternate" type="application/atom+xml" title="f&#34;" href="/c/x/feed.atom"/>');
  });
});
