import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeSharedPool, sharedPool } from "../../../sdk/core/pool";

const root = join(__dirname, "../../..");

/** The undici modules a fresh Node process has loaded after requiring `modules` (built, from dist/). */
function undiciLoadedAfter(modules: string[]): number {
  const script = `${modules.map((m) => `require(${JSON.stringify(join(root, "dist", m))});`).join("")}
process.stdout.write(String(Object.keys(require.cache).filter((k) => k.includes("/node_modules/undici/")).length));`;
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

describe("sharedPool", () => {
  it("loading the provider and the SDK clients loads no undici: a process that sends nothing does not pay for it", () => {
    expect(
      undiciLoadedAfter([
        "provider/index.js",
        "provider/native/server.js",
        "provider/native/kinds.js",
        "provider/native/functions.js",
        "sdk/core/request.js",
      ]),
    ).toBe(0);
  });

  it("one pool per origin, made on first use (no connection yet) and made again after it is closed", async () => {
    const origin = "http://127.0.0.1:9";
    const first = sharedPool(origin);
    expect(sharedPool(origin)).toBe(first);
    expect(first.constructor.name).toBe("Pool");
    await closeSharedPool(origin);
    expect(first.closed).toBe(true);
    const second = sharedPool(origin);
    expect(second).not.toBe(first);
    await closeSharedPool(origin);
  });
});
