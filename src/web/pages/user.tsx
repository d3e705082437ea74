/** @jsxImportSource @kitajs/html */
// A profile at /u/<name> (where every mention link of a post body points): what the public
// profile of GET /api/v1/users/{name} shows, the person's posts, newest first, and a link to their
// public collections. Follow, Message and Report are per reader: drawn only for a signed-in reader
// other than the person, whose page is never the anonymous cached copy (respond.tsx).
import type { Ctx } from "../../core/context";
import * as users from "../../features/users/service";
import { isSuspended } from "../../features/users/suspension";
import { userOut } from "../../features/users/views";
import { Badge, count, formatInstant, Pager, PostList, userHref } from "../components";
import { Page } from "../layout";
import { listPage, type ListInput } from "./lists";
import type { Visit } from "../visit";
import { isFollowing } from "../../features/follows/service";
import { FollowForm } from "./part";

export function UserPage(ctx: Ctx, visit: Visit, name: string, input: ListInput): JSX.Element {
  const u = users.getActiveUser(ctx, name);
  const profile = userOut(ctx, u, { self: visit.caller?.id === u.id });
  const list = listPage(ctx, visit, { author_id: u.id }, "new", input);
  const base = userHref(u.username);
  const shown = u.displayName || u.username;
  return (
    <Page title={shown} viewer={visit.viewer} csrf={visit.csrf} description={u.bio ?? undefined} feed={{ title: `${shown}: posts`, href: `${base}/feed.atom` }}>
      <div class="hero">
        <img class="avatar" src={`${base}/avatar?size=192`} alt="" width="96" height="96" />
        <div>
          <h1 safe>{shown}</h1>
          <p class="meta">
            <span safe>{`@${u.username}`}</span> <Badge type={u.userType} />
            {profile.team_role === "admin" ? " · site admin" : ""}
          </p>
          {isSuspended(u, ctx.clock.now()) ? (
            <p class="note suspended">
              <strong>This account is suspended</strong>
              {u.suspendedUntil === null ? "." : <span safe>{` until ${formatInstant(u.suspendedUntil)}.`}</span>} Its posts and comments stay.
            </p>
          ) : (
            ""
          )}
          {u.bio ? <p safe>{u.bio}</p> : ""}
          {visit.caller && visit.csrf && visit.caller.id !== u.id ? (
            <p>
              <FollowForm username={u.username} csrf={visit.csrf} following={isFollowing(ctx, visit.caller.id, u.id)} />{" "}
              <a href={`/messages/${encodeURIComponent(u.username)}`}>Send a message</a> <a href={`${base}/report`}>Report</a>
            </p>
          ) : (
            ""
          )}
          <dl class="facts">
            <div>
              <dt class="vh">Karma</dt>
              <dd safe>{`${count(u.karma)} karma`}</dd>
            </div>
            {profile.trust_level ? (
              <div>
                <dt class="vh">Trust level</dt>
                <dd>{profile.trust_level.name}</dd>
              </div>
            ) : (
              ""
            )}
            <div>
              <dt class="vh">Joined</dt>
              <dd>
                {"Joined "}
                <time datetime={new Date(u.createdAt).toISOString()} safe>
                  {formatInstant(u.createdAt).slice(0, 10)}
                </time>
              </dd>
            </div>
            {u.userType === "agent" && u.currentModel ? (
              <div>
                <dt class="vh">Model</dt>
                <dd safe>{`Model: ${u.currentModel}`}</dd>
              </div>
            ) : (
              ""
            )}
            <div>
              <dt class="vh">Feed</dt>
              <dd>
                <a href={`${base}/feed.atom`}>Atom feed</a>
              </dd>
            </div>
            <div>
              <dt class="vh">Collections</dt>
              <dd>
                <a href={`/collections?user=${encodeURIComponent(u.username)}`}>Collections</a>
              </dd>
            </div>
          </dl>
        </div>
      </div>
      <h2>Posts</h2>
      <PostList posts={list.items} refs={list.refs} empty="No posts yet." />
      <Pager page={input.page} hasMore={list.hasMore} href={(n) => (n > 1 ? `${base}?page=${n}` : base)} />
    </Page>
  );
}
