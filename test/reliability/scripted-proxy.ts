/**
 * A pass-through HTTP proxy in front of the emulator whose answers can be scripted, one request at
 * a time: forward the request and then drop the connection (the service acted, the answer was
 * lost), or answer it with a status of our choosing without forwarding (the service failed before
 * acting), or forward it and hold the answer until the test lets it go (the service acted, the
 * answer is late: a test kills the engine meanwhile), or stall it (it never reaches the service). Lets a test put one precise fault on one precise request, where the emulator's seeded
 * faults only give a share of all requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What to do with the next request that matches: lose its answer, answer it without forwarding,
 * forward it and hold its answer (`answered` is called once the service answered, and the
 * answer goes out when `until` settles), or stall it: never forwarded, never answered (`stalled`
 * is called when it arrives).
 */
export type ScriptedAction =
  | { lose: true }
  | { status: number; body?: unknown }
  | { answered: () => void; until: Promise<unknown> }
  | { stalled: () => void };

/** One scripted answer. */
export interface Rule {
  method: string;
  path: RegExp;
  action: ScriptedAction;
}

/** A running proxy. */
export interface ScriptedProxy {
  url: string;
  /** Queues rules; each applies once, to the first matching request, in order. */
  script(...rules: Rule[]): void;
  /** Rules not used yet. */
  pending(): Rule[];
  /** `METHOD path -> status` of every request seen (`lost` for dropped ones). */
  log(): string[];
  stop(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a proxy on 127.0.0.1:0 forwarding to `target`. */
export async function startScriptedProxy(target: string): Promise<ScriptedProxy> {
  let rules: Rule[] = [];
  const seen: string[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await body(req);
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://proxy");
    const at = rules.findIndex((r) => r.method === method && r.path.test(url.pathname));
    const rule = at >= 0 ? rules.splice(at, 1)[0] : undefined;
    if (rule && "stalled" in rule.action) {
      seen.push(`${method} ${url.pathname} -> stalled`);
      rule.action.stalled();
      return;
    }
    if (rule && "status" in rule.action) {
      seen.push(`${method} ${url.pathname} -> ${rule.action.status} (scripted)`);
      res.writeHead(rule.action.status, { "content-type": "application/json" });
      res.end(JSON.stringify(rule.action.body ?? { code: rule.action.status, message: "scripted failure" }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && k !== "host" && k !== "connection" && k !== "content-length")
        headers[k] = v;
    try {
      const upstream = await fetch(new URL(url.pathname + url.search, target), {
        method,
        headers,
        ...(raw.length > 0 ? { body: raw } : {}),
      });
      const text = Buffer.from(await upstream.arrayBuffer());
      if (rule && "lose" in rule.action) {
        seen.push(`${method} ${url.pathname} -> lost after ${upstream.status}`);
        req.socket.destroy();
        return;
      }
      if (rule && "until" in rule.action) {
        seen.push(`${method} ${url.pathname} -> ${upstream.status} (held)`);
        rule.action.answered();
        await rule.action.until.catch(() => undefined);
      } else seen.push(`${method} ${url.pathname} -> ${upstream.status}`);
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding"].includes(k))
          out[k] = v;
      });
      res.writeHead(upstream.status, out);
      res.end(text);
    } catch (e) {
      res.writeHead(502);
      res.end(String(e));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script: (...more) => {
      rules.push(...more);
    },
    pending: () => rules.slice(),
    log: () => seen.slice(),
    stop: () =>
      new Promise<void>((r) => {
        rules = [];
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
