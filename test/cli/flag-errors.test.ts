/**
 * A bad option is refused naming the flag the user typed, never the library's option or the
 * function that threw (issue 16: `--admin-key K` said "startEmulator: adminKey: key must be at
 * least 8 characters"). Each case runs the command line as `flagstack` does, on the sources.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asCliMessage, checkEventsUrl } from "../../cli/events-command";

const ROOT = resolve(__dirname, "../..");
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
// What bin/flagstack.js does, on the TypeScript sources.
const RUNNER = `require(${JSON.stringify(join(ROOT, "cli/index.ts"))}).main(process.argv).catch((e) => { console.error("flagstack: " + e.message); process.exitCode = 1; })`;

let dir: string;
let busy: Server;
let busyPort: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "flag-errors-"));
  writeFileSync(
    join(dir, "events.ndjson"),
    '{"eventTypeId":"checkout","trafficTypeName":"user","key":"u1","timestamp":1}\n',
  );
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => busy.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function flagstack(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", TSX, "-e", RUNNER, "flagstack", ...args], {
      cwd: dir,
      env: {
        ...process.env,
        FLAGSTACK_EVENTS_URL: "",
        FLAGSTACK_SDK_KEY: "",
        FLAGSTACK_REQUESTS_PER_SECOND: "",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("flagstack emulator", () => {
  it.each([
    [["--admin-key", "K"], "--admin-key must be at least 8 characters"],
    [["--sdk-key", "local sdk key"], "--sdk-key must not contain spaces"],
    [["--platform-key", "short"], "--platform-key must be at least 8 characters"],
    [["--account", "a b"], `--account must be 1-64 letters, digits, '-' or '_', got "a b"`],
    [["--host", ""], "--host must name an address to bind, e.g. 127.0.0.1"],
    [["--port", "70000"], "--port must be between 0 and 65535, got 70000"],
    [
      ["--fault-rate", "429=0.6,503=0.6"],
      "--fault-rate: 429 + 500 + 503 + drop must add up to at most 1, got 1.2",
    ],
  ])("%j is refused naming the flag", async (args, message) => {
    const r = await flagstack(["emulator", "--port", "0", ...args]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `flagstack: ${message}\n` });
  });

  it("a port in use is named with the flag", async () => {
    const r = await flagstack(["emulator", "--port", String(busyPort)]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `flagstack: --port ${busyPort}: 127.0.0.1:${busyPort} is already in use (stop what listens there, or pass --port 0 for a free port)\n`,
    });
  });
});

describe("flagstack events import", () => {
  const key = ["--sdk-key", "local-sdk-key"];
  it.each([
    [
      ["events.ndjson", "--events-url", "events.example.com", ...key],
      {},
      '--events-url must be an absolute http(s) URL such as http://127.0.0.1:8787, got "events.example.com"',
    ],
    [
      ["events.ndjson", ...key],
      { FLAGSTACK_EVENTS_URL: "ftp://events.example.com" },
      'FLAGSTACK_EVENTS_URL must be an absolute http(s) URL such as http://127.0.0.1:8787, got "ftp://events.example.com"',
    ],
    [
      ["events.ndjson", "--events-url", "http://user:secret@127.0.0.1:9", ...key],
      {},
      "--events-url must not contain credentials; pass the key with --sdk-key",
    ],
    [
      ["missing.ndjson", "--events-url", "http://127.0.0.1:9", ...key],
      {},
      "events file missing.ndjson: no such file",
    ],
    [
      ["events.ndjson", "--events-url", "http://127.0.0.1:9", ...key, "--resend-batches", "3"],
      {},
      "--resend-batches: batch 3 is not a batch whose outcome is unknown (the journal has no entry for it); nothing was sent",
    ],
    [
      ["events.ndjson", "--events-url", "http://127.0.0.1:9", ...key],
      { FLAGSTACK_REQUESTS_PER_SECOND: "fast" },
      'FLAGSTACK_REQUESTS_PER_SECOND must be a number greater than 0, got "fast"',
    ],
  ])("%j %j is refused naming the flag or variable", async (args, env, message) => {
    const r = await flagstack(["events", "import", ...args], env);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `flagstack: ${message}\n` });
  });

  it("asCliMessage: the library's option names become flags, its function names go", () => {
    expect(
      asCliMessage("importEvents: invalid option batchSize: batchSize must be at most 5000", "--events-url"),
    ).toBe("--batch-size must be at most 5000");
    expect(
      asCliMessage(
        "POST /api/events/bulk: network error: connection refused (base URL http://127.0.0.1:9 from the baseUrl option)",
        "FLAGSTACK_EVENTS_URL",
      ),
    ).toBe(
      "POST /api/events/bulk: network error: connection refused (base URL http://127.0.0.1:9 from FLAGSTACK_EVENTS_URL)",
    );
    expect(asCliMessage("EventsClient: sdkKey must not contain line breaks", "--events-url")).toBe(
      "--sdk-key must not contain line breaks",
    );
    expect(asCliMessage("the journal does not fit this input format (toString)", "--events-url")).toBe(
      "the journal does not fit this input format (toString)",
    );
  });

  it("checkEventsUrl does not repeat a value that looks like a key", () => {
    expect(() => checkEventsUrl("sdk0123456789abcdef0123", "--events-url")).toThrow(
      "--events-url must be an absolute http(s) URL such as http://127.0.0.1:8787, got a value not shown here",
    );
    expect(() => checkEventsUrl("https://events.example.com", "--events-url")).not.toThrow();
  });
});
