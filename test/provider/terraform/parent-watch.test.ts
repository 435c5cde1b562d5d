/**
 * The provider process ends when the process that started it does (provider/terraform/parent-watch.ts):
 * the parent seen gone (another parent on Linux and macOS; on Windows, no process of the first
 * parent's pid), the watch calling its callback once and keeping no process alive, and a real
 * child process whose parent is killed with SIGKILL ending within a second.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  PARENT_PROBE_MS,
  type ParentProbe,
  parentGone,
  pidAlive,
  watchParent,
} from "../../../provider/terraform/parent-watch";

const ROOT = join(__dirname, "..", "..", "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pid` runs: a zombie (exited, not yet reaped by its new parent) does not. */
function running(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}

/** A probe whose parent pid and running pids the test sets. */
function fakeProbe(
  platform: NodeJS.Platform,
  ppid: number,
  running: number[],
): ParentProbe & { ppidNow: number } {
  const probe = {
    ppidNow: ppid,
    ppid: () => probe.ppidNow,
    alive: (pid: number) => running.includes(pid),
    platform,
  };
  return probe;
}

describe("parentGone", () => {
  it.each([
    ["linux", 4242, 4242, [], false],
    ["linux", 4242, 1, [], true],
    ["darwin", 4242, 977, [4242], true],
    ["win32", 4242, 4242, [4242], false],
    ["win32", 4242, 4242, [], true],
    ["win32", 0, 0, [], false],
  ] as const)(
    "%s: first parent %i, parent now %i, running %j: gone %s",
    (platform, first, now, running, gone) => {
      expect(parentGone(first, fakeProbe(platform, now, [...running]))).toBe(gone);
    },
  );

  it("pidAlive: this process runs; a pid no process has does not", () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(2 ** 22 + 1)).toBe(false);
  });
});

describe("watchParent", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("checks every 500 ms and calls onGone once, with the first parent's pid, when it is gone", () => {
    vi.useFakeTimers();
    const probe = fakeProbe("linux", 4242, []);
    const gone: number[] = [];
    const watch = watchParent((parent) => gone.push(parent), { probe });
    expect(PARENT_PROBE_MS).toBe(500);
    expect(watch.parent).toBe(4242);
    vi.advanceTimersByTime(1500);
    expect(gone).toEqual([]);
    probe.ppidNow = 1;
    vi.advanceTimersByTime(499);
    expect(gone).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(gone).toEqual([4242]);
    vi.advanceTimersByTime(5000);
    expect(gone).toEqual([4242]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stop ends the watch: onGone is never called", () => {
    vi.useFakeTimers();
    const probe = fakeProbe("win32", 4242, [4242]);
    const gone: number[] = [];
    const watch = watchParent((parent) => gone.push(parent), { probe, intervalMs: 100 });
    watch.stop();
    probe.alive = () => false;
    vi.advanceTimersByTime(1000);
    expect(gone).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps no process running: a process that only watches exits at once", async () => {
    const code = `require(${JSON.stringify(join(ROOT, "provider/terraform/parent-watch.ts"))}).watchParent(() => process.exit(3));`;
    const child = spawn(process.execPath, ["--import", "tsx", "-e", code], { cwd: ROOT, stdio: "ignore" });
    const exitCode = await new Promise((resolve) => child.once("exit", (c) => resolve(c)));
    expect(exitCode).toBe(0);
  }, 20_000);
});

/** A process the test kills (the "tofu"), which starts the watching child and prints its pid. */
const MIDDLE = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["--import", "tsx", "-e", process.env.CHILD_CODE], { stdio: ["ignore", "inherit", "inherit"] });
child.on("exit", () => process.exit(9));
setInterval(() => {}, 1000);
`;
/** The watching child: says it watches, keeps running, and exits when its parent is gone. */
const CHILD = `
const { watchParent } = require(${JSON.stringify(join(ROOT, "provider/terraform/parent-watch.ts"))});
const watch = watchParent((parent) => {
  process.stderr.write("parent " + parent + " gone\\n");
  process.exit(1);
});
process.stdout.write("watching " + process.pid + " parent " + watch.parent + "\\n");
setInterval(() => {}, 1000);
`;

describe.skipIf(process.platform === "win32")("a real child whose parent is killed", () => {
  it("exits within a second of its parent's SIGKILL, and names the parent", async () => {
    const middle = spawn(process.execPath, ["-e", MIDDLE], {
      cwd: ROOT,
      env: { ...process.env, CHILD_CODE: CHILD },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    middle.stdout.on("data", (d) => {
      out += d;
    });
    middle.stderr.on("data", (d) => {
      err += d;
    });
    for (let i = 0; i < 200 && !/watching \d+/.test(out); i++) await sleep(50);
    const m = /^watching (\d+) parent (\d+)\n$/.exec(out);
    expect(m?.[2]).toBe(String(middle.pid));
    const childPid = Number(m?.[1]);
    expect(running(childPid)).toBe(true);
    // Still running while its parent runs.
    await sleep(1200);
    expect(running(childPid)).toBe(true);

    const killed = performance.now();
    middle.kill("SIGKILL");
    while (running(childPid) && performance.now() - killed < 5000) await sleep(20);
    const goneAfter = performance.now() - killed;
    // The child's stderr is the pipe the test holds: its last line arrived.
    for (let i = 0; i < 50 && !err.includes("gone"); i++) await sleep(20);
    if (running(childPid)) process.kill(childPid, "SIGKILL");
    expect(err).toBe(`parent ${middle.pid} gone\n`);
    expect(goneAfter).toBeLessThan(1000);
  }, 30_000);
});
