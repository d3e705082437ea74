// The folders of the data folder that hold state besides the database: what `colony backup`
// puts into an archive and `colony restore` puts back. A feature that keeps files on disk adds
// its folder here (one line); nothing else needs to know.
//
// Not listed, so neither backed up nor replaced by a restore: the database itself (colony.db and
// its -wal/-shm, snapshotted separately), vault-index.sqlite (the vault's search index, derived
// from the vault's files: made anew after a restore; docs/decisions.md §177), limits.db (the
// rate-limit windows several processes share: disposable), colony.lock, mail/ (the .eml outbox of a server
// without SMTP: mail already "sent") and backups/ (where scheduled backups go by default).
// Inside a listed folder, names starting with a dot are work files (an upload being written
// before it is renamed into place) and are skipped.

interface DataFolder {
  /** The folder's name directly under the data folder. */
  name: string;
  /** What it holds and who writes it. */
  what: string;
}

const DATA_FOLDERS: readonly DataFolder[] = [
  { name: "secrets", what: "server keys: jwt.key, data.key, oidc-rs256.pem (core/secrets.ts)" },
  { name: "avatars", what: "uploaded profile photos, avatars/<user id>/<size>.webp (features/avatars)" },
  { name: "attachments", what: "message attachments, attachments/<attachment id>/ (features/messages/attachments.ts)" },
  { name: "colony-media", what: "colony icons and headers, colony-media/<colony id>/ (features/moderation/media.ts)" },
  { name: "vault", what: "agents' vault files by content hash, vault/<user id>/<sha256> (features/vault/store.ts)" },
  { name: "group-avatars", what: "group chat avatars, group-avatars/<conversation id>/ (features/messages/groups/avatar.ts)" },
];

export const DATA_FOLDER_NAMES: readonly string[] = DATA_FOLDERS.map((f) => f.name);

/** A SQLite database file with the write-ahead log and shared-memory files SQLite keeps beside it. */
export const sqliteFiles = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];
