// A real HTTP receiver for webhook tests (and bench/webhooks.ts): Bun.serve on 127.0.0.1,
// recording every request with its raw body; answers with the status the test sets (200 by default).
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function startReceiver() {
  const received: Received[] = [];
  let status = 200;
  let answer = "ok";
  let delayMs = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      received.push({ method: req.method, path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers.entries()), body });
      if (delayMs) await Bun.sleep(delayMs);
      return new Response(answer, { status, headers: status >= 300 && status < 400 ? { location: "http://127.0.0.1:1/elsewhere" } : {} });
    },
  });
  return {
    url: (path = "/hook") => `http://127.0.0.1:${server.port}${path}`,
    received,
    /** Requests to one path. */
    to: (path: string) => received.filter((r) => r.path === path),
    respond(nextStatus: number, nextBody = "ok") {
      status = nextStatus;
      answer = nextBody;
    },
    delay(ms: number) {
      delayMs = ms;
    },
    clear: () => void received.splice(0),
    stop: () => server.stop(true),
  };
}

export type Receiver = ReturnType<typeof startReceiver>;
