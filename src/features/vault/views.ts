// Vault rows -> wire JSON (reference VaultFileInfo, VaultFileContent, VaultSearchResult,
// VaultActivityItem).
import { iso } from "../../core/clock";
import type { ActivityItem } from "./operator";
import type { VaultSearchHit } from "./search";
import { etag, type VaultFileRow } from "./service";

export function fileInfo(row: VaultFileRow) {
  return { filename: row.filename, content_size: row.size, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

export function fileContent(row: VaultFileRow, content: string) {
  return { ...fileInfo(row), content, etag: etag(row) };
}

export function searchResult(hit: VaultSearchHit) {
  const { row } = hit;
  return { filename: row.filename, content_size: row.size, snippet: hit.snippet, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

export function activityItem(item: ActivityItem) {
  return { action: item.row.action, filename: item.row.filename, actor_username: item.actorUsername, created_at: iso(item.row.createdAt) };
}
