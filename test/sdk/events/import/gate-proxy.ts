/**
 * A test proxy in front of the emulator that decides, per request, what the importer sees:
 * - `forward`: passed through;
 * - `hold`: kept, neither forwarded nor answered, until {@link GateProxy.releaseHeld} (then
 *   forwarded and answered) or {@link GateProxy.cutHeld} (connection destroyed: the request never
 *   reached the service, but the importer cannot know that);
 * - `hold-after`: forwarded (the service records it), the answer kept until released or cut;
 * - `drop-after`: forwarded, and the client's connection destroyed instead of answering (the
 *   response is lost in the network).
 */
import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export type GateAction = "forward" | "hold" | "hold-after" | "drop-after";

export interface GateProxy {
  url: string;
  /** Requests seen, in arrival order (the 0-based index passed to `decide`). */
  readonly seen: number;
  /** Requests being held. */
  readonly held: number;
  /** Forwards (if not yet) and answers the held requests. */
  releaseHeld(): void;
  /** Destroys the connections of the held requests. */
  cutHeld(): void;
  /** Resolves once `n` requests are held. */
  waitHeld(n: number): Promise<void>;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function startGateProxy(
  target: string,
  decide: (index: number) => GateAction,
): Promise<GateProxy> {
  const held: { res: ServerResponse; release: () => void }[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let seen = 0;
  const t = new URL(target);

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<Answer>((resolve, reject) => {
      const up = request(
        {
          host: t.hostname,
          port: t.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: t.host },
        },
        (upRes) => {
          const parts: Buffer[] = [];
          upRes.on("data", (c: Buffer) => parts.push(c));
          upRes.on("end", () =>
            resolve({ status: upRes.statusCode ?? 502, headers: upRes.headers, body: Buffer.concat(parts) }),
          );
          upRes.on("error", reject);
        },
      );
      up.on("error", reject);
      up.end(body);
    });
  const answer = (res: ServerResponse, a: Answer) => {
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  };
  const hold = (res: ServerResponse, release: () => void) => {
    held.push({ res, release });
    for (const w of waiters.filter((w) => held.length >= w.n)) w.resolve();
  };

  const server: Server = createServer((req, res) => {
    const index = seen++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const action = decide(index);
      try {
        if (action === "hold") {
          hold(
            res,
            () =>
              void forward(req, body).then(
                (a) => answer(res, a),
                () => res.socket?.destroy(),
              ),
          );
          return;
        }
        const a = await forward(req, body);
        if (action === "forward") answer(res, a);
        else if (action === "drop-after") res.socket?.destroy();
        else hold(res, () => answer(res, a));
      } catch {
        res.socket?.destroy();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get seen() {
      return seen;
    },
    get held() {
      return held.length;
    },
    releaseHeld() {
      for (const h of held.splice(0)) h.release();
    },
    cutHeld() {
      for (const h of held.splice(0)) h.res.socket?.destroy();
    },
    waitHeld(n: number) {
      if (held.length >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const h of held.splice(0)) h.res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
