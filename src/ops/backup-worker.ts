// The thread a scheduled backup runs on (ops/scheduled-backup.ts): VACUUM INTO and compression
// are long synchronous work, which on the request thread would hold every request up. It writes
// one archive, reports progress lines, then its result or its error, and is ended.
import { normalJitPolicy } from "../db/workers";
import { writeArchive, type WriteArchiveOptions } from "./archive";

declare const self: Worker;

normalJitPolicy();

export type BackupWorkerRequest = Omit<WriteArchiveOptions, "print">;
export type BackupWorkerMessage =
  | { type: "progress"; line: string }
  | { type: "done"; path: string; bytes: number; files: number; vanished: number }
  | { type: "error"; message: string };

const send = (m: BackupWorkerMessage) => postMessage(m);

self.onmessage = async (e: MessageEvent<BackupWorkerRequest>) => {
  try {
    const r = await writeArchive({ ...e.data, print: (line) => send({ type: "progress", line }) });
    const files = Object.values(r.manifest.folders).reduce((n, f) => n + f.files, 0);
    send({ type: "done", path: r.path, bytes: r.bytes, files, vanished: r.manifest.vanished });
  } catch (err) {
    send({ type: "error", message: err instanceof Error ? err.message : String(err) });
  }
};
