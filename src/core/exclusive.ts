// A keyed lock within this process: work under one key runs one at a time, in arrival order;
// different keys run freely. For flows that await something (a wallet call, a file's fsync)
// between reading state and committing what follows from it: an order's accept, whose wallet call
// precedes its compare-and-set, so that a double request finds the state already moved and asks
// for no second invoice; a vault write, whose fsync precedes its commit.
const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` alone for `key` in this process: a second call for the same key waits for the first. */
export async function exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const settled = run.then(
    () => {},
    () => {},
  );
  queues.set(key, settled);
  try {
    return await run;
  } finally {
    if (queues.get(key) === settled) queues.delete(key);
  }
}
