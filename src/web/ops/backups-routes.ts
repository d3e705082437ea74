// The dashboard's backups (docs/decisions.md §151): starting one now (written in the background),
// and downloading one of the backup folder's files.
import { t } from "elysia";
import { backupFilePath, startManualBackup } from "../../ops/manual-backup";
import { FORM, PAGE } from "../route-options";
import { seeOther } from "../session";
import { asAdmin } from "./admin";
import { notFound } from "./frame";
import type { WebArea } from "../web-app";

const Name = t.Object({ name: t.String() });

export const adminBackupsRoutes: WebArea = (ctx, app) => {
  app
    .post("/admin/backups", ({ web }) => asAdmin(web, (w) => seeOther(w, `/admin?notice=${startManualBackup(ctx) ? "backup-started" : "backup-running"}#ops-backups`)), FORM)
    .get(
      "/admin/backups/:name",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          const path = backupFilePath(ctx, params.name);
          if (!path) return notFound(w);
          ctx.log.info("backup downloaded", { file: params.name, by: w.viewer.user.id });
          return new Response(Bun.file(path), {
            headers: {
              "content-type": params.name.endsWith(".db") ? "application/vnd.sqlite3" : "application/gzip",
              "content-disposition": `attachment; filename="${params.name}"`,
              "cache-control": "no-store",
              "x-content-type-options": "nosniff",
            },
          });
        }),
      { params: Name, ...PAGE },
    );
};
