/** `flagstack emulator` (issue 3 "Start"): options, fault spec, banner, and a real run until SIGINT. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  banner,
  emulatorOptionsFromCli,
  parseFaultRate,
  runEmulatorCommand,
} from "../../cli/emulator-command";

const REPO = join(__dirname, "..", "..");

describe("parseFaultRate", () => {
  it.each([
    ["429=0.05", { rate429: 0.05 }],
    [
      "429=0.1, 500=0.2,503=0,drop=0.01,drop-after=0.02",
      { rate429: 0.1, rate500: 0.2, rate503: 0, dropRate: 0.01, dropAfterRate: 0.02 },
    ],
    ["", {}],
  ])("parses %j", (spec, want) => {
    expect(parseFaultRate(spec)).toEqual(want);
  });

  it.each([
    ["404=0.1", '--fault-rate: unknown fault "404" (use 429, 500, 503, drop, drop-after)'],
    ["429=2", '--fault-rate: 429 must be a fraction between 0 and 1, got "2"'],
    ["429", '--fault-rate: 429 must be a fraction between 0 and 1, got ""'],
    ["drop=lots", '--fault-rate: drop must be a fraction between 0 and 1, got "lots"'],
  ])("refuses %j", (spec, message) => {
    expect(() => parseFaultRate(spec)).toThrow(message);
  });
});

describe("emulatorOptionsFromCli", () => {
  it("maps every option", () => {
    expect(
      emulatorOptionsFromCli({
        port: "8787",
        host: "127.0.0.1",
        state: "s.json",
        adminKey: "admin-key-1",
        sdkKey: "sdk-key-1",
        platformKey: "platform-key-1",
        account: "acct",
        rateLimit: "3",
        faultRate: "503=0.1",
        latency: "20",
        faultSeed: "9",
      }),
    ).toEqual({
      port: 8787,
      host: "127.0.0.1",
      statePath: "s.json",
      adminKey: "admin-key-1",
      sdkKey: "sdk-key-1",
      platformKey: "platform-key-1",
      accountId: "acct",
      rateLimit: { requestsPerSecond: 3 },
      faults: { rate503: 0.1, latencyMs: 20, seed: 9 },
    });
  });

  it.each([
    [{ port: "http" }, '--port must be a whole number, got "http"'],
    [{ port: "70000" }, "--port must be between 0 and 65535, got 70000"],
    [{ port: "0", rateLimit: "0" }, "--rate-limit must be between 1 and 1000000, got 0"],
    [{ port: "0", latency: "-5" }, '--latency must be a whole number, got "-5"'],
  ])("refuses %j", (o, message) => {
    expect(() => emulatorOptionsFromCli({ host: "127.0.0.1", ...o } as never)).toThrow(message);
  });
});

describe("runEmulatorCommand", () => {
  it("starts the emulator and prints its base URL and keys", async () => {
    const lines: string[] = [];
    const emu = await runEmulatorCommand(
      {
        port: "0",
        host: "127.0.0.1",
        adminKey: "cli-admin-key",
        sdkKey: "cli-sdk-key",
        platformKey: "cli-platform-key",
        account: "cliacct",
      },
      (l) => lines.push(l),
    );
    try {
      expect(lines).toEqual([banner(emu)]);
      expect(lines[0]).toContain(`flagstack emulator listening on ${emu.url}`);
      expect(lines[0]).toContain(
        `  admin API     ${emu.url}/internal/api/v2 (flag sets: /internal/api/v3, /api/v3)\n`,
      );
      expect(lines[0]).toContain(
        `  platform API  ${emu.url}/ng/api, ${emu.url}/pipeline/api, ${emu.url}/authz/api, ${emu.url}/resourcegroup/api, ${emu.url}/v1 (also under /gateway)\n`,
      );
      expect(lines[0]).toContain("admin key     cli-admin-key");
      expect(lines[0]).toContain("SDK keys      Production: cli-sdk-key, Staging: sdk-");
      expect(lines[0]).toContain("platform key  cli-platform-key");
      expect(lines[0]).toContain("account       cliacct");
      expect(lines[0]).toContain("state         (in memory)");
      const r = await fetch(`${emu.url}/internal/api/v2/workspaces`, {
        headers: { authorization: "Bearer cli-admin-key" },
      });
      expect(r.status).toBe(200);
    } finally {
      await emu.stop();
    }
  });

  it("runs as `flagstack emulator` until SIGINT, then exits 0", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        "require('./cli/index.ts').main(['node', 'flagstack', ...process.argv.slice(1)])",
        "emulator",
        "--port",
        "0",
        "--admin-key",
        "child-admin-key",
      ],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    const r = await fetch(`${url}/internal/api/v2/workspaces`, {
      headers: { authorization: "Bearer child-admin-key" },
    });
    expect(r.status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      child.removeAllListeners("exit");
      child.on("exit", (c) => resolve(c));
      child.kill("SIGINT");
    });
    expect(code).toBe(0);
  });
});
