// The content store's shared folder fsync: a rename made while an fsync of its folder runs waits
// for the next one (which may have started before the rename), and every caller arriving while
// the first runs shares that next one.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderClosesSettled, putContent, sha256Hex, syncFolder, userFolder } from "./store";

describe("syncFolder", () => {
  test("the first caller starts an fsync; callers during it share the next, which starts after the first ends", async () => {
    const dir = mkdtempSync(join(tmpdir(), "colony-sync-"));
    try {
      const order: string[] = [];
      const first = syncFolder(dir).then(() => order.push("first"));
      const second = syncFolder(dir);
      const third = syncFolder(dir);
      expect(third).toBe(second);
      await Promise.all([first, second.then(() => order.push("second"))]);
      expect(order).toEqual(["first", "second"]);
      // Once both are done, a new caller starts a fresh fsync.
      const fourth = syncFolder(dir);
      expect(fourth).not.toBe(second);
      await fourth;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("fsyncs that follow one another use one open handle of the folder, closed once none is waiting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "colony-sync-"));
    const handlesOf = () => readdirSync("/proc/self/fd").filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === dir;
      } catch {
        return false;
      }
    }).length;
    try {
      const first = syncFolder(dir);
      const second = syncFolder(dir);
      await first;
      expect(handlesOf()).toBe(1);
      await second;
      await folderClosesSettled(); // the close runs off the thread
      expect(handlesOf()).toBe(0);
      await syncFolder(dir);
      await folderClosesSettled();
      expect(handlesOf()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a folder that cannot be opened rejects its callers, and the next caller tries again", async () => {
    const missing = join(tmpdir(), `colony-sync-missing-${crypto.randomUUID()}`);
    const settled = await Promise.allSettled([syncFolder(missing), syncFolder(missing)]);
    expect(settled.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    await expect(syncFolder(missing)).rejects.toThrow("ENOENT");
  });
});

describe("putContent", () => {
  test("concurrent writes each leave their whole file under its hash, and no temporary file", async () => {
    const data = mkdtempSync(join(tmpdir(), "colony-store-"));
    try {
      const bodies = Array.from({ length: 20 }, (_, i) => new TextEncoder().encode(`content number ${i} `.repeat(100 + i)));
      const shas = await Promise.all(bodies.map((b) => putContent(data, "agent", b)));
      expect(shas).toEqual(bodies.map((b) => sha256Hex(b)));
      const names = readdirSync(userFolder(data, "agent")).sort();
      expect(names).toEqual([...shas].sort());
      for (let i = 0; i < bodies.length; i++) expect(readFileSync(join(userFolder(data, "agent"), shas[i]))).toEqual(Buffer.from(bodies[i]));
      // The same content again: nothing written, the same name.
      expect(await putContent(data, "agent", bodies[0])).toBe(shas[0]);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
