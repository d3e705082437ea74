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

/**
 * The encoded answers of GET /vault/files/{filename}, kept by file version (row, content hash,
 * name, last change) within a byte budget, least recently read dropped first. Reading a 1 MiB
 * file otherwise costs its JSON encoding (escaping every character) on every request; a
 * version's answer never changes, so no write has to evict it.
 * Kept as Blobs: a Response sends an immutable Blob's bytes as they are, where a Uint8Array body
 * is copied for every answer.
 */
const ANSWER_BUDGET = 8 * 1024 * 1024;
const answers = new Map<string, Blob>();
let answerBytes = 0;

export function encodedFileContent(row: VaultFileRow, load: () => string): Blob {
  const key = `${row.id}\0${row.sha256}\0${row.updatedAt}\0${row.filename}`;
  const hit = answers.get(key);
  if (hit) {
    answers.delete(key);
    answers.set(key, hit);
    return hit;
  }
  const body = new Blob([JSON.stringify(fileContent(row, load()))]);
  if (body.size <= ANSWER_BUDGET / 4) {
    answers.set(key, body);
    answerBytes += body.size;
    for (const [k, v] of answers) {
      if (answerBytes <= ANSWER_BUDGET) break;
      answers.delete(k);
      answerBytes -= v.size;
    }
  }
  return body;
}
