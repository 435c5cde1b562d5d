/**
 * `flagstack recover`'s reading of the stack (cli/recover-command.ts): which update was the
 * interrupted one (issue 23 item 8: an `up` retried after the kill, failed, must not count), and
 * the state handed to `pulumi stack import` on its standard input (cli/pulumi.ts), never a file.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumi } from "../../cli/pulumi";
import { describeReport, interruptedRunStarts, lastUpdateEnd } from "../../cli/recover-command";

const T = (s: string) => Date.parse(`2026-11-23T${s}Z`);
const history = (...entries: { version: number; result: string; end: string }[]) =>
  JSON.stringify(
    entries.map((e) => ({
      version: e.version,
      kind: "update",
      result: e.result,
      startTime: `2026-11-23T${e.end}Z`,
      endTime: `2026-11-23T${e.end}Z`,
    })),
  );
const state = (...pending: string[]) =>
  JSON.stringify({
    version: 3,
    deployment: { pending_operations: pending.map((urn) => ({ type: "creating", resource: { urn } })) },
  });

describe("which update was interrupted", () => {
  // v1 succeeded; the killed run left A and B pending; v2 (a retry, failed) carried them over.
  const ci = history(
    { version: 2, result: "failed", end: "10:05:00" },
    { version: 1, result: "succeeded", end: "10:00:00" },
  );

  it("lastUpdateEnd: the last update that succeeded; a failed retry does not count", () => {
    expect(lastUpdateEnd(ci)).toBe(T("10:00:00"));
    expect(lastUpdateEnd("[]")).toBe(0);
  });

  it("per pending create: the end of the newest update whose final state does not hold it", async () => {
    const exported: number[] = [];
    const start = await interruptedRunStarts(ci, ["A", "B"], async (v) => {
      exported.push(v);
      return v === 2 ? state("A", "B") : state();
    });
    expect([start("A"), start("B")]).toEqual([T("10:00:00"), T("10:00:00")]);
    expect(exported).toEqual([2, 1]);
  });

  it("a failed update before the kill counts: the pending create is not in its final state", async () => {
    const h = history(
      { version: 3, result: "failed", end: "10:09:00" },
      { version: 2, result: "failed", end: "10:05:00" },
      { version: 1, result: "succeeded", end: "10:00:00" },
    );
    // A was left by a run killed after v2; B by one killed after v1 (v2 carried it over too).
    const start = await interruptedRunStarts(h, ["A", "B"], async (v) =>
      v === 3 ? state("A", "B") : v === 2 ? state("B") : state(),
    );
    expect([start("A"), start("B")]).toEqual([T("10:05:00"), T("10:00:00")]);
  });

  it("pending since before the oldest update: 0; no history: 0, and nothing is exported", async () => {
    const start = await interruptedRunStarts(ci, ["A"], async () => state("A"));
    expect(start("A")).toBe(0);
    const none = await interruptedRunStarts("[]", ["A"], async () => {
      throw new Error("not called");
    });
    expect(none("A")).toBe(0);
  });

  it("a backend that cannot export an old version: the last update that succeeded", async () => {
    const start = await interruptedRunStarts(ci, ["A"], async () => {
      throw new Error("unsupported");
    });
    expect(start("A")).toBe(T("10:00:00"));
  });
});

describe("the report", () => {
  it("names each outcome", () => {
    expect(
      describeReport({
        recovered: [{ urn: "u1", id: "i1" }],
        cleared: ["u2"],
        recorded: ["u3"],
        kept: [{ urn: "u4", reason: "why" }],
        unknown: [{ urn: "u5", reason: "what to do" }],
      }),
    ).toEqual([
      "recovered u1 (id i1): created by the interrupted run",
      "cleared u2: never created; the next `pulumi up` creates it",
      "cleared u3: a later update already recorded it",
      "kept pending u4: why",
      "unknown u5: what to do",
    ]);
  });
});

describe("pulumi(): standard input", () => {
  let dir: string;
  let path: string | undefined;
  beforeAll(() => {
    // A stand-in `pulumi` that echoes its arguments and its standard input.
    dir = mkdtempSync(join(tmpdir(), "flagstack-fake-pulumi-"));
    writeFileSync(join(dir, "pulumi"), '#!/bin/sh\necho "args: $*"\ncat\n');
    chmodSync(join(dir, "pulumi"), 0o755);
    path = process.env.PATH;
    process.env.PATH = `${dir}${delimiter}${path ?? ""}`;
  });
  afterAll(() => {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(process.platform === "win32")(
    "writes the input to the command's standard input, and none when not given",
    async () => {
      expect(await pulumi({ cwd: dir, stack: "dev" }, ["stack", "import"], '{"version":3}')).toBe(
        'args: stack import --stack dev\n{"version":3}',
      );
      expect(await pulumi({ cwd: dir }, ["stack", "export"])).toBe("args: stack export\n");
    },
  );
});
