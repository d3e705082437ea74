// What the moderation pages share (web/mod-routes.ts): a section of a colony's moderation answers
// only a signed-in person who moderates the colony (anyone else, and any unknown colony, gets the
// 404 page); a section's form answers a 303 back to the section with a notice, or the section
// again with the service's message and status and what was typed.
import type { Ctx } from "../../core/context";
import { canModerate, canRead, findColonyByName, type ColonyRow } from "../../features/colonies/service";
import { modBase, type FlashView } from "../pages/mod-pages";
import { notFoundMessage, webErrorPage } from "../respond";
import { failure, isSignedIn, seeOther, toSignIn, type SignedInWeb, type Web } from "../session";

export type Flash = FlashView & { values?: Record<string, string> };

/** The notices a 303 back to a section names (`?notice=`), in a person's words. */
const NOTICES: Record<string, string> = {
  acted: "Done: the queue item was handled.",
  banned: "The member is banned.",
  unbanned: "The ban is lifted.",
  struck: "The strike was given; the member is told.",
  appeal: "The appeal is decided; the member is told.",
  "rule-added": "The rule was added.",
  "rule-removed": "The rule was removed.",
  invited: "The invitation was sent.",
  revoked: "The invitation was withdrawn.",
  saved: "The settings were saved.",
  accepted: "You accepted the invitation: you moderate that colony now.",
  declined: "You declined the invitation.",
};
export const noticeOf = (raw: unknown) => (typeof raw === "string" ? (NOTICES[raw] ?? null) : null);

/** A query value as one string: the first of a repeated one. */
export const str = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined);

/** The 404 page, as for any address that is not there. */
export const notFound = (ctx: Ctx, web: Web) => webErrorPage(ctx, web, 404, notFoundMessage);

/** The colony named in the path if the person moderates it; null: the 404 page. */
function moderated(ctx: Ctx, web: SignedInWeb, name: string): ColonyRow | null {
  const colony = findColonyByName(ctx, name.trim().toLowerCase());
  if (!colony || !canRead(ctx, colony, web.viewer.caller) || !canModerate(ctx, colony, web.viewer.caller)) return null;
  return colony;
}

type SectionContext = { web: Web; params: Record<string, string>; query: Record<string, unknown> };

/** A handler of a moderation section at /c/<name>/mod`path`: signed in, a colony the person moderates, then `run`. */
export const section =
  (ctx: Ctx, path: string, run: (web: SignedInWeb, colony: ColonyRow, params: Record<string, string>, query: Record<string, unknown>) => Response) =>
  ({ web, params, query }: SectionContext) => {
    if (!isSignedIn(web)) return toSignIn(web, `/c/${params.name}/mod${path}`);
    const colony = moderated(ctx, web, params.name);
    if (!colony) return notFound(ctx, web);
    return run(web, colony, params, query);
  };

/** The fields of the form as they were sent, to fill the form again after a refusal. */
const valuesOf = (web: Web, names: readonly string[]) => Object.fromEntries(names.map((n) => [n, (web.form.get(n) ?? "").slice(0, 2000)]));

/**
 * A section's form: `work` calls the service and names the address to go back to; a refusal is
 * the section again, rendered by `render` with the refusal's status, message and headers and the
 * form's `values` as they were sent.
 */
export function attempt(web: SignedInWeb, render: (status: number, flash: Flash) => Response, values: readonly string[], work: () => string): Response {
  try {
    return seeOther(web, work());
  } catch (err) {
    const f = failure(err);
    const res = render(f.status, { error: f.message, values: valuesOf(web, values) });
    for (const [k, v] of Object.entries(f.headers)) res.headers.set(k, v);
    return res;
  }
}

/** A section's address with a notice. */
export const back = (colony: ColonyRow, path: string, notice: string) => `${modBase(colony)}${path}?notice=${notice}`;
