/**
 * Invalid UTF-8 in the input: `flagstack events import` (run as a child process against the
 * emulator) puts a record holding bytes that are not UTF-8 in the rejects file, with its line and
 * a reason naming the byte, for NDJSON, JSON-array and CSV inputs alike; the service gets every
 * other record and never a key with U+FFFD in place of the bad byte. A genuine U+FFFD (the bytes
 * EF BF BD) is text like any other and is imported.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";

const ROOT = resolve(__dirname, "../..");
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
// What bin/flagstack.js does, on the TypeScript sources.
const RUNNER = `require(${JSON.stringify(join(ROOT, "cli/index.ts"))}).main(process.argv).catch((e) => { console.error("flagstack: " + e.message); process.exitCode = 1; })`;

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "importer-utf8-"));
});
afterAll(async () => {
  await emu?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function importFile(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--import", TSX, "-e", RUNNER, "flagstack", "events", "import", file, "--progress", "none"],
    {
      cwd: dir,
      env: {
        ...process.env,
        FLAGSTACK_EVENTS_URL: emu.url,
        FLAGSTACK_SDK_KEY: emu.sdkKey,
        FLAGSTACK_REQUESTS_PER_SECOND: "1000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  return new Promise((res) => child.on("close", (code) => res({ code, stdout, stderr })));
}

const keysOf = (prefix: string) =>
  emu
    .events()
    .filter((e) => e.key.startsWith(prefix))
    .map((e) => e.key)
    .sort();
const rejectsOf = (file: string) =>
  readFileSync(`${file}.rejects.ndjson`, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
const HEAD = '{"eventTypeId":"view","trafficTypeName":"user","key":"';
const TAIL = '","timestamp":1}';
const ev = (key: string) => `${HEAD}${key}${TAIL}`;
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

describe("event importer and invalid UTF-8", () => {
  it("an NDJSON line that is not UTF-8 lands in the rejects file with its line and the byte; the other lines are imported", async () => {
    const file = join(dir, "events.ndjson");
    writeFileSync(
      file,
      bytes(
        `${ev("nd-1")}\n${ev("nd-2-é")}\n`,
        `${HEAD}nd-3-`,
        [0xe9],
        `${TAIL}\n`,
        `${ev("nd-4-\uFFFD")}\n${ev("nd-5")}\n`,
      ),
    );
    const r = await importFile(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^read {6}5 records\nrejected {2}1 invalid /);
    expect(rejectsOf(file)).toEqual([
      {
        line: 3,
        reason: "not valid UTF-8: byte 0xe9 at byte 60 of the line; the input must be UTF-8 encoded",
        record: `${ev("nd-3-\\xe9")}`,
      },
    ]);
    expect(keysOf("nd-")).toEqual(["nd-1", "nd-2-é", "nd-4-\uFFFD", "nd-5"]);
  });

  it("a JSON-array record that is not UTF-8 lands in the rejects file with its line and the byte; the other records are imported", async () => {
    const file = join(dir, "events.json");
    writeFileSync(
      file,
      bytes(`[\n${ev("js-1")},\n${HEAD}js-2-`, [0xff, 0xfe], `${TAIL},\n${ev("js-3")}\n]\n`),
    );
    const r = await importFile(file);
    expect(r.code, r.stderr).toBe(0);
    expect(rejectsOf(file)).toEqual([
      {
        line: 3,
        reason: "not valid UTF-8: byte 0xff at byte 60 of the record; the input must be UTF-8 encoded",
        record: `${ev("js-2-\\xff\\xfe")}`,
      },
    ]);
    expect(keysOf("js-")).toEqual(["js-1", "js-3"]);
  });

  it("a CSV row that is not UTF-8 lands in the rejects file with its line, the column and the byte; the other rows are imported", async () => {
    const file = join(dir, "events.csv");
    writeFileSync(
      file,
      bytes(
        "eventTypeId,trafficTypeName,key,timestamp\nview,user,cs-1,1\nview,user,cs-2-",
        [0xc3, 0x28],
        ",2\nview,user,cs-3,3\n",
      ),
    );
    const r = await importFile(file);
    expect(r.code, r.stderr).toBe(0);
    expect(rejectsOf(file)).toEqual([
      {
        line: 3,
        reason: "key: not valid UTF-8: byte 0xc3 at byte 16 of the row; the input must be UTF-8 encoded",
        record: { eventTypeId: "view", trafficTypeName: "user", key: "cs-2-\uFFFD(", timestamp: "2" },
      },
    ]);
    expect(keysOf("cs-")).toEqual(["cs-1", "cs-3"]);
  });
});
