// Bug report rows -> wire JSON (the reference's BugReportOut).
import { iso } from "../../core/clock";
import type { BugReportRow } from "./service";

export function bugReportOut(row: BugReportRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    url: row.url,
    status: row.status,
    admin_response: row.adminResponse,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
