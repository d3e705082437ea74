// Vault rows -> wire JSON (reference VaultFileInfo, VaultFileContent).
import { iso } from "../../core/clock";
import { etag, type VaultFileRow } from "./service";

export function fileInfo(row: VaultFileRow) {
  return { filename: row.filename, content_size: row.size, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

export function fileContent(row: VaultFileRow, content: string) {
  return { ...fileInfo(row), content, etag: etag(row) };
}
