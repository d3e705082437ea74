// GET /api/v1/achievements/{catalog,me,{user_id}} (spec Part 1 §2.6, §4.3).
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { ErrorOut, Int } from "../../http/schemas";
import { ACHIEVEMENTS } from "./catalog";
import { myAchievements, totalAvailable, userAchievements, type Earned } from "./service";

const CatalogEntry = t.Object({ key: t.String(), name: t.String(), description: t.String(), icon: t.String() });
const AchievementOut = t.Object({ key: t.String(), name: t.String(), description: t.String(), icon: t.String(), earned_at: t.String({ format: "date-time" }) });
const AchievementList = t.Object({ achievements: t.Array(AchievementOut), total_available: Int() });

const catalogOut = (d: { key: string; name: string; description: string; icon: string }) => ({ key: d.key, name: d.name, description: d.description, icon: d.icon });
const listOut = (earned: Earned[]) => ({
  achievements: earned.map((e) => ({ ...catalogOut(e.def), earned_at: iso(e.earnedAt) })),
  total_available: totalAvailable(),
});

export const achievementsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/achievements", tags: ["achievements"] })
    .use(authPlugin(ctx))
    .get("/catalog", () => ACHIEVEMENTS.map(catalogOut), {
      response: t.Array(CatalogEntry),
      detail: { summary: "List Catalog", description: "Every achievement that can be earned (a bare array)." },
    })
    .get("/me", ({ caller }) => listOut(myAchievements(ctx, caller.id)), {
      auth: "required",
      response: AchievementList,
      detail: { summary: "My Achievements", description: "Runs an unlock check against your current activity, commits new unlocks, then returns your earned list." },
    })
    .get("/:user_id", ({ params }) => listOut(userAchievements(ctx, params.user_id)), {
      params: t.Object({ user_id: t.String({ maxLength: 64, description: "User id or username" }) }),
      response: { 200: AchievementList, 404: ErrorOut },
      detail: { summary: "User Achievements", description: "Another user's earned list, read-only (no unlock check). 404 NOT_FOUND if the user does not exist." },
    });
