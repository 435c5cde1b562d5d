/**
 * Body limits hold for chunked bodies (issue 14, groups 1 and 6): a 200 MB body sent with
 * `Transfer-Encoding: chunked` (no `Content-Length` to check up front) to an admin route, a
 * platform route and the events route is refused with 413 and that API's error body once the
 * limit is passed, and the server never holds more than the limit: its peak resident memory grows
 * by less than 100 MB, also with six such bodies at once.
 *
 * The emulator runs in a child process, so its memory is measured alone: the baseline is the
 * resident size after a garbage collection, the figure is the peak (`maxRSS`) after the uploads.
 * The client streams the body from one reused buffer with backpressure and stops when the answer
 * arrives.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = join(__dirname, "..", "..");
const MB = 1024 * 1024;
const BODY_BYTES = 200 * MB;
const TX = expect.stringMatching(/^[0-9a-z]{11}$/);

interface Hello {
  url: string;
  adminKey: string;
  sdkKey: string;
  platformKey: string;
  accountId: string;
}
interface Memory {
  rss: number;
  maxRss: number;
}

let child: ChildProcess;
let emu: Hello;

/** The next IPC message of the child. */
function nextMessage<T>(): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`emulator child exited with ${code}`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as T);
    });
  });
}

/** The child's resident size after a collection, and its peak so far, in bytes. */
async function memory(): Promise<Memory> {
  const answer = nextMessage<Memory>();
  child.send("memory");
  return answer;
}

beforeAll(async () => {
  const code = `
    const { startEmulator } = require("./emulator/index.ts");
    (async () => {
      const emu = await startEmulator({ port: 0 });
      process.send({ url: emu.url, adminKey: emu.adminKey, sdkKey: emu.sdkKey, platformKey: emu.platformKey, accountId: emu.accountId });
      process.on("message", async (m) => {
        if (m === "memory") {
          for (let i = 0; i < 3; i++) { global.gc(); await new Promise((r) => setTimeout(r, 20)); }
          process.send({ rss: process.memoryUsage().rss, maxRss: process.resourceUsage().maxRSS * 1024 });
        } else if (m === "stop") {
          await emu.stop();
          process.exit(0);
        }
      });
    })().catch((e) => { console.error(e); process.exit(1); });`;
  child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "-e", code], {
    cwd: REPO,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  emu = await nextMessage<Hello>();
}, 60_000);

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.send("stop");
  });
});

/** What came back for one streamed body, and how much of it had been sent by then. */
interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the error bodies are compared whole.
  body: any;
  sentBytes: number;
}

/**
 * POSTs `total` bytes (starting with `prefix`) with `Transfer-Encoding: chunked`, 64 KiB at a
 * time, until the server answers; then stops sending and reads the answer.
 */
function streamBody(path: string, headers: Record<string, string>, prefix = "", total = BODY_BYTES) {
  return new Promise<Answer>((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const req = request(`${emu.url}${path}`, {
      method: "POST",
      headers: { ...headers, "transfer-encoding": "chunked" },
    });
    let sentBytes = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const at = sentBytes;
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: compared as text
        }
        resolve({ status: res.statusCode ?? 0, body, sentBytes: at });
        req.destroy();
      });
    });
    // Once the answer is in, the server may close the connection under the rest of the body.
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    const pump = () => {
      while (!answered && sentBytes < total) {
        const piece = sentBytes === 0 && prefix ? Buffer.concat([Buffer.from(prefix), chunk]) : chunk;
        sentBytes += piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const admin = () =>
  streamBody(
    "/internal/api/v2/groups",
    { authorization: `Bearer ${emu.adminKey}`, "content-type": "application/json" },
    '{"name":"',
  );
const platform = () =>
  streamBody(
    `/ng/api/projects?accountIdentifier=${emu.accountId}`,
    { "x-api-key": emu.platformKey, "content-type": "application/json" },
    '{"project":{"name":"',
  );
const events = () =>
  streamBody(
    "/api/events/bulk",
    { authorization: `Bearer ${emu.sdkKey}`, "content-type": "application/json" },
    '[{"key":"',
  );

const adminTooLarge = (limit: number) => ({
  code: 413,
  message: `body: at most ${limit} bytes per request, got more (a chunked body, stopped there)`,
  details: "",
  transactionId: TX,
});

/** Runs `upload` and returns its answers and the server's peak memory growth over its baseline. */
async function measured<T>(upload: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = await memory();
  const result = await upload();
  const after = await memory();
  return { result, growthMb: (after.maxRss - before.rss) / MB };
}

describe("chunked request bodies past the limit", () => {
  it("a chunked 200 MB body to an admin route gets 413 with the admin error body, and the server's memory stays bounded", async () => {
    const { result, growthMb } = await measured(admin);
    expect(result.status).toBe(413);
    expect(result.body).toEqual(adminTooLarge(10 * MB));
    expect(result.sentBytes).toBeLessThan(BODY_BYTES);
    expect(growthMb).toBeLessThan(100);
  });

  it("a chunked 200 MB body to a platform route gets 413 with a FailureDTO naming the body, and the server's memory stays bounded", async () => {
    const { result, growthMb } = await measured(platform);
    const message = `body: at most ${5 * MB} bytes per request, got more (a chunked body, stopped there)`;
    expect(result.status).toBe(413);
    expect(result.body).toEqual({
      status: "FAILURE",
      code: "INVALID_REQUEST",
      message,
      correlationId: TX,
      errors: [{ fieldId: "body", error: message }],
    });
    expect(result.sentBytes).toBeLessThan(BODY_BYTES);
    expect(growthMb).toBeLessThan(100);
  });

  it("a chunked 200 MB body to the events route gets 413 with the admin error body at 32 MiB, and the server's memory stays bounded", async () => {
    const { result, growthMb } = await measured(events);
    expect(result.status).toBe(413);
    expect(result.body).toEqual(adminTooLarge(32 * MB));
    expect(result.sentBytes).toBeLessThan(BODY_BYTES);
    expect(growthMb).toBeLessThan(100);
  });

  it("six chunked 200 MB bodies at once to an admin route all get 413, and the server's memory stays bounded", async () => {
    const { result, growthMb } = await measured(() => Promise.all(Array.from({ length: 6 }, admin)));
    expect(result.map((r) => [r.status, r.body])).toEqual(
      Array.from({ length: 6 }, () => [413, adminTooLarge(10 * MB)]),
    );
    expect(growthMb).toBeLessThan(100);
  });

  it("the server still answers on a new connection afterwards", async () => {
    const res = await fetch(`${emu.url}/internal/api/v2/groups`, {
      headers: { authorization: `Bearer ${emu.adminKey}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ objects: [], offset: 0, limit: 50, totalCount: 0 });
  });
});
