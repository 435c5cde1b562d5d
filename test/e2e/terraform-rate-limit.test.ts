/**
 * The Terraform door under the service's rate limit, with the real OpenTofu: `apply` and `destroy`
 * of 12 flags with a definition in Production and Staging (36 resources) against the emulator
 * limited to 20 requests per second, the provider set to the same limit. OpenTofu runs each
 * command as several provider processes in a row, each of which sends a second's budget at once
 * after an idle second; each hands what it sent to the next (`provider/core/rate-ledger.ts`, the
 * file in the configuration's notes directory), so no process's burst lands in a window another
 * filled: the service refuses nothing and never sees more than 20 requests in any second.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busiestSecond, type Emulator, startEmulator } from "../../emulator";
import { flagsHcl, TofuDir } from "./tofu";

const FLAGS = 12;
const LIMIT = 20;

describe("OpenTofu under the service's rate limit", () => {
  let emu: Emulator;
  let t: TofuDir;
  const limited = `-var=requests_per_second=${LIMIT}`;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    t = TofuDir.open(emu);
    t.write(flagsHcl("tf-rate", FLAGS));
    const init = await t.tf(["init", "-input=false"]);
    expect(init.code, init.out).toBe(0);
    emu.setRateLimit({ requestsPerSecond: LIMIT });
  }, 120_000);
  afterAll(async () => {
    t?.close();
    await emu?.stop();
  });

  it("apply: every request accepted, never more than the limit in a second, and the last window handed on in the notes directory", async () => {
    const apply = await t.tf(["apply", "-input=false", "-auto-approve", limited]);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain(`Resources: ${FLAGS * 3} added`);
    expect(apply.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(apply.requests.filter((r) => r.method === "POST")).toHaveLength(FLAGS * 3);
    expect(busiestSecond(apply.requests)).toBeLessThanOrEqual(LIMIT);
    const ledger = join(t.env.FLAGSTACK_JOURNAL_DIR as string, "rate-limits.json");
    expect(existsSync(ledger)).toBe(true);
    const handed = JSON.parse(readFileSync(ledger, "utf8")) as Record<string, { admitted: number[] }>;
    expect(Object.keys(handed)).toEqual([new URL(emu.url).origin]);
    expect(handed[new URL(emu.url).origin]?.admitted.length).toBeGreaterThan(0);
  }, 300_000);

  it("destroy: a DELETE per flag, every request accepted, never more than the limit in a second", async () => {
    const destroy = await t.tf(["destroy", "-input=false", "-auto-approve", limited]);
    expect(destroy.code, destroy.out).toBe(0);
    expect(destroy.out).toContain(`Resources: ${FLAGS * 3} destroyed`);
    expect(destroy.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(destroy.requests.filter((r) => r.method === "DELETE")).toHaveLength(FLAGS);
    expect(busiestSecond(destroy.requests)).toBeLessThanOrEqual(LIMIT);
  }, 300_000);
});
