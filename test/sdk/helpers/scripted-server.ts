/**
 * A plain `node:http` server on 127.0.0.1:0 whose answers each test scripts, for the HTTP core's
 * fault cases (429 headers, resets via `socket.destroy()`, hangs) that a real API never produces
 * on demand. Every request is recorded with its arrival time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the server saw it. */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** performance.now() at arrival. */
  at: number;
}

/** Answers request number `n` (0-based). */
export type Script = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

/** A running scripted server. */
export interface ScriptedServer {
  url: string;
  port: number;
  requests: Recorded[];
  /** Replaces the script. */
  script(s: Script): void;
  close(): Promise<void>;
}

/** Sends a JSON body with the given status and extra headers. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Starts a scripted server (optionally on a given port). */
export async function scriptedServer(initial: Script, port = 0): Promise<ScriptedServer> {
  let script = initial;
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const n = requests.length;
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        at: performance.now(),
      });
      script(req, res, body, n);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    requests,
    script: (s) => {
      script = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
