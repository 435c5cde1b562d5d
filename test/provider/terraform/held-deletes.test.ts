/**
 * The deletes held back for their owner's (`provider/terraform/held-deletes.ts`): the owner's key,
 * what the owner's delete takes, and what is sent on its own with its failures.
 */
import { describe, expect, it } from "vitest";
import { HeldDeletes } from "../../../provider/terraform/held-deletes";

describe("HeldDeletes", () => {
  it("keys an owner by type, workspace id and name; nothing without both", () => {
    expect(HeldDeletes.key("T:Flag", "ws1", "checkout")).toBe("T:Flag\u0000ws1\u0000checkout");
    expect(HeldDeletes.key("T:Flag", "ws1", "")).toBeUndefined();
    expect(HeldDeletes.key("T:Flag", undefined, "checkout")).toBeUndefined();
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
});
