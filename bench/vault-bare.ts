// Baseline for bench/vault.sh's PUT: the durable write alone. A raw Bun.serve that takes the same
// request (PUT /files/<name>, a JSON body with `content`) and does only what makes the content
// durable, with Colony's own store (src/features/vault/store.ts: a temporary file written and
// fsynced, the rename, the folder's shared fsync), then removes the content file the name held
// before, off the answer as Colony does: no authentication, no SQLite, no quota, no index. Colony's
// PUT is read against this one: what is left between them is Colony's, the rest is the disk's.
// Under /fsync/<name> the floor beneath that: the content written to a new file with one fsync
// (no temporary name, no rename, no folder fsync), which no atomic scheme can beat. And for the
// read, GET /answer: a JSON answer of the same size as Colony's 1 MiB file, held in memory (the
// first PUT /answer sets its content), sent as a Blob as Colony sends its kept answer.
//   BENCH_BARE_PORT=18091 BENCH_BARE_DIR=/tmp/x bun bench/vault-bare.ts
import { mkdirSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { contentPath, putContent, sha256Hex } from "../src/features/vault/store";

const port = Number(process.env.BENCH_BARE_PORT ?? 18091);
const dataDir = process.env.BENCH_BARE_DIR;
if (!dataDir) throw new Error("BENCH_BARE_DIR names the data folder");
const USER = "00000000-0000-7000-8000-000000000000";
const utf8 = new TextEncoder();
const held = new Map<string, string>();
const floorDir = join(dataDir, "fsync-only");
mkdirSync(floorDir, { recursive: true });
let written = 0;
let answer: Blob | null = null;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname === "/answer") {
      if (req.method === "PUT") answer = new Blob([JSON.stringify(await req.json())]);
      return answer ? new Response(answer, { headers: { "content-type": "application/json" } }) : new Response("no answer yet", { status: 404 });
    }
    if (req.method !== "PUT") return new Response("not found", { status: 404 });
    const floor = url.pathname.startsWith("/fsync/");
    if (!floor && !url.pathname.startsWith("/files/")) return new Response("not found", { status: 404 });
    const { content } = (await req.json()) as { content: string };
    const bytes = utf8.encode(content);
    if (floor) {
      const path = join(floorDir, String(++written));
      await writeFile(path, bytes, { flush: true });
      const before = held.get(url.pathname);
      held.set(url.pathname, path);
      if (before) void rm(before, { force: true });
      return Response.json({ size: bytes.length });
    }
    const sha = await putContent(dataDir, USER, bytes, sha256Hex(bytes));
    const before = held.get(url.pathname);
    held.set(url.pathname, sha);
    if (before && before !== sha) void rm(contentPath(dataDir, USER, before), { force: true });
    return Response.json({ sha256: sha, size: bytes.length });
  },
});

console.log(`bare vault write listening on http://${server.hostname}:${server.port}`);
const stop = () => {
  server.stop(true);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
