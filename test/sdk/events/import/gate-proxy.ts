/**
 * A test proxy in front of the emulator that decides, per request, what the importer sees:
 * - `forward`: passed through;
 * - `hold`: never forwarded and never answered (the request is in flight forever: the importer
 *   is killed while waiting, or its connection is cut with {@link GateProxy.cutHeld});
 * - `drop-after`: forwarded, the 202 arrives here, and the client's connection is destroyed
 *   instead of answering (the response is lost in the network).
 * It counts forwarded responses so a test can act at an exact point.
 */
import { once } from "node:events";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type GateAction = "forward" | "hold" | "drop-after";

export interface GateProxy {
  url: string;
  /** Requests seen, in arrival order (0-based index passed to `decide`). */
  seen: number;
  /** Responses delivered to the client (forwarded and answered). */
  answered: number;
  /** Requests being held. */
  held: number;
  /** Destroys the connections of the held requests. */
  cutHeld(): void;
  /** Resolves once `n` requests are held. */
  waitHeld(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startGateProxy(target: string, decide: (index: number) => GateAction): Promise<GateProxy> {
  const heldRes: ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const state = { seen: 0, answered: 0 };
  const t = new URL(target);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const index = state.seen++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const action = decide(index);
      if (action === "hold") {
        heldRes.push(res);
        for (const w of waiters.filter((w) => heldRes.length >= w.n)) w.resolve();
        return;
      }
      const body = Buffer.concat(chunks);
      const up = request(
        { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: { ...req.headers, host: t.host } },
        (upRes) => {
          const parts: Buffer[] = [];
          upRes.on("data", (c: Buffer) => parts.push(c));
          upRes.on("end", () => {
            if (action === "drop-after") {
              res.socket?.destroy();
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(Buffer.concat(parts));
            state.answered++;
          });
        },
      );
      up.on("error", () => res.socket?.destroy());
      up.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get seen() {
      return state.seen;
    },
    get answered() {
      return state.answered;
    },
    get held() {
      return heldRes.length;
    },
    cutHeld() {
      for (const r of heldRes.splice(0)) r.socket?.destroy();
    },
    waitHeld(n: number) {
      if (heldRes.length >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const r of heldRes.splice(0)) r.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
