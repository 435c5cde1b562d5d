/**
 * The rate limit handed from one provider process to the next (provider/core/rate-ledger.ts): the
 * ledger file's entries (kept, merged, aged out, malformed ones skipped), and two real processes
 * in a row against the emulator's limit, as Terraform runs a command: with the ledger the second
 * one's burst waits for the server's next window and nothing is refused; without it, its burst
 * lands in the first one's window and the server refuses it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { journalDir } from "../../../provider/core/created-journal";
import { LEDGER_TTL_MS, ledgerPath, readLedger, writeLedger } from "../../../provider/core/rate-ledger";
import type { LimiterState } from "../../../sdk/core/rate-limiter";
import { clients, defaultWorkspaceId } from "../../e2e/fixtures";

const ROOT = join(__dirname, "..", "..", "..");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "flagstack-rate-ledger-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const state = (at: number, extra: Partial<LimiterState> = {}): LimiterState => ({
  admitted: [at - 10, at],
  pausedUntil: 0,
  schedule: 0,
  headroom: 0.02,
  burstOff: false,
  ...extra,
});

describe("the ledger file", () => {
  it("is rate-limits.json beside the machine's other notes, another by FLAGSTACK_RATE_LEDGER, none when off", () => {
    expect(ledgerPath({})).toBe(join(journalDir(), "rate-limits.json"));
    expect(ledgerPath({ FLAGSTACK_RATE_LEDGER: "/x/y.json" })).toBe("/x/y.json");
    expect(ledgerPath({ FLAGSTACK_RATE_LEDGER: "off" })).toBeUndefined();
  });

  it("keeps the other origins' young entries, drops the old ones, and replaces its own", () => {
    const path = join(dir, "merge.json");
    const now = 1_800_000_000_000;
    writeLedger(path, { "http://a": state(now - 5), "http://old": state(now - LEDGER_TTL_MS - 1) }, now);
    expect(Object.keys(readLedger(path, now))).toEqual(["http://a"]);
    writeLedger(path, { "http://b": state(now, { burstOff: true }) }, now);
    expect(readLedger(path, now)).toEqual({
      "http://a": state(now - 5),
      "http://b": state(now, { burstOff: true }),
    });
    // a pause that ends later keeps an entry whose admissions are old
    writeLedger(path, { "http://a": state(now - LEDGER_TTL_MS - 100, { pausedUntil: now + 1000 }) }, now);
    expect(readLedger(path, now + 500)["http://a"]?.pausedUntil).toBe(now + 1000);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(existsSync(`${path}.${process.pid}`)).toBe(false);
  });

  it("reads nothing from a missing or broken file, and skips malformed entries", () => {
    const now = Date.now();
    expect(readLedger(join(dir, "missing.json"))).toEqual({});
    const broken = join(dir, "broken.json");
    writeFileSync(broken, '{"http://a": ');
    expect(readLedger(broken)).toEqual({});
    writeFileSync(
      broken,
      JSON.stringify({
        "http://good": state(now),
        "http://bad-times": { ...state(now), admitted: ["x"] },
        "http://no-burst": { admitted: [now], pausedUntil: 0, schedule: 0, headroom: 0.02 },
        "http://null": null,
      }),
    );
    expect(Object.keys(readLedger(broken))).toEqual(["http://good"]);
  });
});

/**
 * A provider process's stand-in: it waits for a line on stdin, then goes on from the ledger (or
 * not), sends 20 GETs at once through a client limited to 20 requests/s, and exits.
 */
const CHILD = `
import { carryRateLimits } from ${JSON.stringify(join(ROOT, "provider/core/rate-ledger.ts"))};
import { AdminClient } from ${JSON.stringify(join(ROOT, "sdk/admin/client.ts"))};
process.stdin.once("data", async () => {
  if (process.env.LEDGER !== "off") carryRateLimits(process.env.LEDGER);
  const admin = new AdminClient({ baseUrl: process.env.URL, apiKey: process.env.KEY, requestsPerSecond: 20, maxRetries: 5 });
  await Promise.all(Array.from({ length: 20 }, () => admin.environments.list(process.env.WS)));
  process.exit(0);
});
`;

describe("two processes in a row under the server's limit", () => {
  let emu: Emulator;
  let ws: string;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    ws = await defaultWorkspaceId(clients(emu).admin);
  });
  afterAll(async () => {
    await emu.stop();
  });

  /** Starts a stand-in, ready: it sends when {@link go} writes to it. */
  function standIn(ledger: string): ChildProcess {
    return spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
      cwd: ROOT,
      env: { ...process.env, URL: emu.url, KEY: emu.adminKey, WS: ws, LEDGER: ledger },
      stdio: ["pipe", "inherit", "inherit"],
    });
  }
  const ended = (c: ChildProcess) =>
    new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code)));
  /** Gives the stand-in its start, and waits for it to end. */
  async function go(c: ChildProcess): Promise<number | null> {
    const end = ended(c);
    c.stdin?.write("go\n");
    return end;
  }

  /** Two stand-ins, the second started as the first exits; the emulator's log of their requests. */
  async function twoInARow(ledger: string) {
    // Both are loaded first, so that the second starts within milliseconds of the first's exit.
    const first = standIn(ledger);
    const second = standIn(ledger);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    emu.setRateLimit({ requestsPerSecond: 20 });
    emu.resetRequests();
    try {
      expect(await go(first)).toBe(0);
      expect(await go(second)).toBe(0);
      return emu.requests().filter((r) => r.path.includes("/environments/ws/"));
    } finally {
      emu.setRateLimit(null);
    }
  }

  it("with the ledger, the second burst waits for the next window: 40 requests, none refused", async () => {
    const path = join(dir, "run.json");
    const log = await twoInARow(path);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
    expect(log.map((r) => r.status)).toEqual(Array(40).fill(200));
    const first = log.slice(0, 20).map((r) => r.at);
    const second = log.slice(20).map((r) => r.at);
    // each burst within a few milliseconds; the second a window after the first
    expect(Math.max(...second) - Math.min(...first)).toBeGreaterThanOrEqual(1000);
    expect(Math.min(...second) - Math.min(...first)).toBeGreaterThanOrEqual(990);
    const written = JSON.parse(readFileSync(path, "utf8")) as Record<string, LimiterState>;
    expect(Object.keys(written)).toEqual([new URL(emu.url).origin]);
    expect(written[new URL(emu.url).origin]?.admitted).toHaveLength(20);
  }, 60_000);

  it("without it, the second burst lands in the first one's window and is refused until the next", async () => {
    const log = await twoInARow("off");
    expect(log.filter((r) => r.status === 200)).toHaveLength(40);
    expect(log.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  }, 60_000);
});
