// A local OpenTimestamps calendar for tests: real HTTP on 127.0.0.1 speaking the calendar's wire
// format (POST /digest, GET /timestamp/<hex>, application/vnd.opentimestamps.v1 bodies).
//
// A submitted digest gets the shape of a real calendar's answer: append a 16-byte nonce, sha256,
// prepend the 4-byte submission time, then a pending attestation naming this calendar; the
// message at that leaf is the commitment. Each commitment then moves through the calendar's
// states as the test says (`advance`): pending (404 "Pending confirmation in Bitcoin
// blockchain"), merged (200: the path into the calendar's Merkle tree, ending in a pending
// attestation for the tree's root) and anchored (200: the same path on to a Bitcoin block header
// attestation). `delayMs` makes every answer late; `garbage` makes it unparseable; `holdNext()`
// keeps the next request waiting until the test lets it go.
import { randomBytes } from "node:crypto";
import {
  applyOp,
  newTimestamp,
  OP,
  OTS_MEDIA_TYPE,
  serializeTimestamp,
  toHex,
  type Op,
  type Timestamp,
} from "../src/adapters/timestamp/ots";

export type CommitmentState = "pending" | "merged" | "anchored";

interface Commitment {
  state: CommitmentState;
  /** The sibling in the calendar's Merkle tree, the transaction bytes and the block height, fixed per commitment. */
  sibling: Uint8Array;
  tx: Uint8Array;
  height: number;
}

/** A chain of ops from `msg`, ending in the attestation `end` puts on the last node. */
function chain(msg: Uint8Array, ops: Op[], end: (leaf: Timestamp) => void): { root: Timestamp; leaf: Uint8Array } {
  const root = newTimestamp(msg);
  let node = root;
  for (const op of ops) {
    const next = newTimestamp(applyOp(op, node.msg));
    node.ops.push({ op, stamp: next });
    node = next;
  }
  end(node);
  return { root, leaf: node.msg };
}

export interface TestCalendar {
  url: string;
  /** Digests received, hex. */
  digests: string[];
  /** Commitments asked for with GET /timestamp, hex. */
  asked: string[];
  commitments: Map<string, Commitment>;
  /** Moves every commitment (or one) to a state. */
  advance(state: CommitmentState, commitment?: string): void;
  delayMs: number;
  garbage: boolean;
  /** Holds the next request unanswered: `arrived` settles when it comes in, `release()` lets it go on. */
  holdNext(): { arrived: Promise<void>; release: () => void };
  stop(): void;
}

export function startCalendar(opts: { delayMs?: number; garbage?: boolean; height?: number } = {}): TestCalendar {
  const commitments = new Map<string, Commitment>();
  const digests: string[] = [];
  const asked: string[] = [];
  let hold: { arrive: () => void; released: Promise<void> } | null = null;
  const cal: TestCalendar = {
    url: "",
    digests,
    asked,
    commitments,
    delayMs: opts.delayMs ?? 0,
    garbage: opts.garbage ?? false,
    advance(state, commitment) {
      for (const [k, c] of commitments) if (!commitment || k === commitment) c.state = state;
    },
    holdNext() {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      hold = { arrive, released: new Promise<void>((resolve) => (release = resolve)) };
      return { arrived, release };
    },
    stop: () => server.stop(true),
  };
  const answer = (body: Uint8Array, status = 200) =>
    new Response(cal.garbage ? Uint8Array.of(0x42, 0x42) : body, { status, headers: { "content-type": OTS_MEDIA_TYPE } });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const held = hold;
      hold = null;
      if (held) {
        held.arrive();
        await held.released;
      }
      if (cal.delayMs) await Bun.sleep(cal.delayMs);
      if (req.method === "POST" && path === "/digest") {
        const digest = new Uint8Array(await req.arrayBuffer());
        if (digest.byteLength < 1 || digest.byteLength > 64) return new Response("bad digest", { status: 400 });
        digests.push(toHex(digest));
        const time = new Uint8Array(4);
        new DataView(time.buffer).setUint32(0, Math.floor(Date.now() / 1000));
        const ops: Op[] = [{ tag: OP.append, arg: Uint8Array.from(randomBytes(16)) }, { tag: OP.sha256 }, { tag: OP.prepend, arg: time }];
        const { root, leaf } = chain(digest, ops, (n) => n.attestations.push({ type: "pending", uri: cal.url }));
        commitments.set(toHex(leaf), { state: "pending", sibling: Uint8Array.from(randomBytes(32)), tx: Uint8Array.from(randomBytes(40)), height: opts.height ?? 840_000 });
        return answer(serializeTimestamp(root));
      }
      const m = /^\/timestamp\/([0-9a-f]+)$/.exec(path);
      if (req.method === "GET" && m) {
        asked.push(m[1]);
        const c = commitments.get(m[1]);
        if (!c) return new Response("Not found", { status: 404 });
        if (c.state === "pending") return new Response("Pending confirmation in Bitcoin blockchain", { status: 404 });
        const commitment = Uint8Array.from(Buffer.from(m[1], "hex"));
        const intoTree: Op[] = [{ tag: OP.append, arg: c.sibling }, { tag: OP.sha256 }];
        if (c.state === "merged") {
          return answer(serializeTimestamp(chain(commitment, intoTree, (n) => n.attestations.push({ type: "pending", uri: `${cal.url}` })).root));
        }
        // Anchored: on from the tree's root through the transaction to the block's Merkle root.
        const toBlock: Op[] = [...intoTree, { tag: OP.prepend, arg: c.tx }, { tag: OP.sha256 }, { tag: OP.sha256 }];
        return answer(serializeTimestamp(chain(commitment, toBlock, (n) => n.attestations.push({ type: "bitcoin", height: c.height })).root));
      }
      return new Response("Not found", { status: 404 });
    },
  });
  cal.url = `http://127.0.0.1:${server.port}`;
  return cal;
}

/** The URL of a calendar that is down: a port nothing listens on. */
export function downCalendar(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const url = `http://127.0.0.1:${s.port}`;
  s.stop(true);
  return url;
}
