/**
 * The deletes held back for their owner's (`provider/terraform/held-deletes.ts`): the owner's key,
 * what the owner's delete takes, and what is sent on its own with its failures.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  failedHeldDeletesPath,
  HeldDeletes,
  heldEnvironments,
  noteFailedHeldDeletes,
  takeFailedHeldDeletes,
} from "../../../provider/terraform/held-deletes";

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.FLAGSTACK_JOURNAL_DIR;
  process.env.FLAGSTACK_JOURNAL_DIR = mkdtempSync(join(tmpdir(), "flagstack-held-"));
});
afterEach(() => {
  if (saved === undefined) delete process.env.FLAGSTACK_JOURNAL_DIR;
  else process.env.FLAGSTACK_JOURNAL_DIR = saved;
});

describe("HeldDeletes", () => {
  it("keys an owner by type, workspace id and name; nothing without both", () => {
    expect(HeldDeletes.key("T:Flag", "ws1", "checkout")).toBe("T:Flag\u0000ws1\u0000checkout");
    expect(HeldDeletes.key("T:Flag", "ws1", "")).toBeUndefined();
    expect(HeldDeletes.key("T:Flag", undefined, "checkout")).toBeUndefined();
  });

  it("the environments whose gates decide a hold: a definition's one, each of a flag's definitions in several, none where the state names none", () => {
    expect(heldEnvironments({ environmentId: "env-p" })).toEqual(["env-p"]);
    expect(
      heldEnvironments({
        environments: { Production: { environmentId: "env-p" }, Staging: { environmentId: "env-s" } },
      }),
    ).toEqual(["env-p", "env-s"]);
    expect(
      heldEnvironments({ environments: { Production: { environmentId: "env-p" }, Staging: {} } }),
    ).toBeUndefined();
    expect(heldEnvironments({ environments: {} })).toBeUndefined();
    expect(heldEnvironments({ name: "checkout" })).toBeUndefined();
  });

  it("the owner's delete takes what it held; the rest is sent on its own, failures named", async () => {
    const h = new HeldDeletes();
    const sent: string[] = [];
    const run =
      (what: string, fail = false) =>
      async () => {
        sent.push(what);
        if (fail) throw new Error("503 unavailable");
      };
    h.hold("a", { describe: "def a1", run: run("a1") });
    h.hold("a", { describe: "def a2", run: run("a2") });
    h.hold("b", { describe: "def b1", run: run("b1", true) });
    h.hold("c", { describe: "def c1", run: run("c1") });
    expect(h.size).toBe(4);
    h.done("a");
    expect([h.size, sent]).toEqual([2, []]);
    expect(await h.send("b")).toEqual(["def b1: 503 unavailable"]);
    expect(await h.send()).toEqual([]);
    expect([h.size, sent]).toEqual([0, ["b1", "c1"]]);
  });

  it("drop forgets every held delete and sends none: what they were, in the order held", async () => {
    const h = new HeldDeletes();
    const sent: string[] = [];
    h.hold("a", { describe: "flagstack_flag_definition f1:e1", run: async () => void sent.push("a1") });
    h.hold("b", { describe: "flagstack_flag_definition f2:e1", run: async () => void sent.push("b1") });
    h.hold("a", { describe: "flagstack_flag_definition f1:e2", run: async () => void sent.push("a2") });
    expect(h.drop()).toEqual([
      "flagstack_flag_definition f1:e1",
      "flagstack_flag_definition f1:e2",
      "flagstack_flag_definition f2:e1",
    ]);
    expect(h.size).toBe(0);
    expect(await h.send()).toEqual([]);
    expect(h.drop()).toEqual([]);
    expect(sent).toEqual([]);
  });

  it("the failures at the end of a run are noted for the next run in the same directory, each taken once", () => {
    const at = new Date("2026-11-26T12:00:00.000Z");
    noteFailedHeldDeletes(["flagstack_flag_definition f1:e1: 503 unavailable"], "/work/a", at);
    noteFailedHeldDeletes(["flagstack_flag_definition f2:e1: 401"], "/work/b", at);
    noteFailedHeldDeletes([], "/work/a", at);
    expect(failedHeldDeletesPath()).toBe(
      join(process.env.FLAGSTACK_JOURNAL_DIR as string, "held-deletes.jsonl"),
    );
    expect(takeFailedHeldDeletes("/work/a")).toEqual([
      {
        at: "2026-11-26T12:00:00.000Z",
        dir: "/work/a",
        failure: "flagstack_flag_definition f1:e1: 503 unavailable",
      },
    ]);
    expect(takeFailedHeldDeletes("/work/a")).toEqual([]);
    expect(readFileSync(failedHeldDeletesPath(), "utf8")).toBe(
      '{"at":"2026-11-26T12:00:00.000Z","dir":"/work/b","failure":"flagstack_flag_definition f2:e1: 401"}\n',
    );
    expect(takeFailedHeldDeletes("/work/b").map((n) => n.failure)).toEqual([
      "flagstack_flag_definition f2:e1: 401",
    ]);
    expect(readFileSync(failedHeldDeletesPath(), "utf8")).toBe("");
  });
});
