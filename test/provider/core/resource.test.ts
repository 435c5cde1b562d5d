/**
 * `FlagstackResource`, through `pulumi.runtime.setMocks`: the stack-trace limit is 0 only while
 * the SDK's constructor runs (seen from a transformation, which the SDK calls synchronously there),
 * `PULUMI_DEBUG_PROMISE_LEAKS` keeps it, and an error thrown there carries the program's stack.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Flag, Group, Organization } from "../../../provider";
import { FLAG_TYPE } from "../../../provider/types";

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: () => ({}),
    },
    "shop",
    "dev",
  );
});

const saved = { limit: Error.stackTraceLimit, debug: process.env.PULUMI_DEBUG_PROMISE_LEAKS };
beforeEach(() => {
  Error.stackTraceLimit = 17;
  delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
});
afterEach(() => {
  Error.stackTraceLimit = saved.limit;
  if (saved.debug === undefined) delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  else process.env.PULUMI_DEBUG_PROMISE_LEAKS = saved.debug;
});

/** A transformation that records the stack-trace limit in force while the SDK registers. */
function probe(seen: number[]): pulumi.ResourceTransformation {
  return () => {
    seen.push(Error.stackTraceLimit);
    return undefined;
  };
}

describe("FlagstackResource", () => {
  it("sets the stack-trace limit to 0 only while the SDK's constructor runs", () => {
    const seen: number[] = [];
    const flag = new Flag(
      "f",
      { workspace: "Default", name: "checkout" },
      { transformations: [probe(seen)] },
    );
    new Group("g", { name: "reviewers" }, { transformations: [probe(seen)] });
    expect(seen).toEqual([0, 0]);
    expect(Error.stackTraceLimit).toBe(17);
    expect(flag).toBeInstanceOf(pulumi.CustomResource);
    expect(Flag.__pulumiType).toBe(FLAG_TYPE);
  });

  it("keeps the limit when PULUMI_DEBUG_PROMISE_LEAKS asks for the SDK's debug stacks", () => {
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
    const seen: number[] = [];
    new Flag("f2", { workspace: "Default", name: "checkout" }, { transformations: [probe(seen)] });
    expect(seen).toEqual([17]);
    expect(Error.stackTraceLimit).toBe(17);
  });

  it("restores the limit and gives the program's stack to an error thrown inside", () => {
    const boom: pulumi.ResourceTransformation = () => {
      throw new Error("transformation failed");
    };
    let caught: unknown;
    try {
      new Flag("f3", { workspace: "Default", name: "checkout" }, { transformations: [boom] });
    } catch (e) {
      caught = e;
    }
    expect(Error.stackTraceLimit).toBe(17);
    expect(caught).toBeInstanceOf(Error);
    const stack = (caught as Error).stack ?? "";
    expect(stack.split("\n")[0]).toBe("Error: transformation failed");
    expect(stack).toContain("resource.test.ts");
  });
});

describe("an input holding a key named __proto__ (issue 23 item 2)", () => {
  it("is refused when the resource is declared, naming the field, as Pulumi's runtime would drop it", () => {
    const tags = JSON.parse('{"team":"web","__proto__":"x"}') as Record<string, string>;
    expect(() => new Organization("o", { identifier: "acme", name: "Acme", tags })).toThrow(
      new TypeError(
        'o: tags.__proto__: a key named "__proto__" cannot pass through Pulumi: its Node.js runtime builds each input object by assignment, which drops that key without a word (the service and the flagstack SDK keep it); use another key',
      ),
    );
  });

  it("lets identifiers and tag keys constructor and prototype pass", () => {
    const org = new Organization("p", {
      identifier: "__proto__",
      name: "Proto",
      tags: JSON.parse('{"constructor":"c","prototype":"p"}') as Record<string, string>,
    });
    expect(org).toBeInstanceOf(pulumi.CustomResource);
  });
});
