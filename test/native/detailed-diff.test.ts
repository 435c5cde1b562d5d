/**
 * The native provider's detailed diff (`provider/native/server.ts` `detailedDiff`): from a kind's
 * `diff` answer to the engine's per-property changes, so `pulumi preview --diff` and the JSON steps
 * name the changed inputs (the SDK's provider server passes on no property at all). Each case runs
 * the kind's real `diff` (no request) on recorded outputs and new inputs.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { NATIVE_KINDS_BY_TOKEN, type NativeKind } from "../../provider/native/kinds";
import { detailedDiff, PropertyDiffKind } from "../../provider/native/server";

const kind = (name: string): NativeKind => {
  const k = NATIVE_KINDS_BY_TOKEN.get(`flagstack:index:${name}`);
  if (!k) throw new Error(name);
  return k;
};

async function diffOf(name: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  const k = kind(name);
  const result = await k.impl.diff("id", olds, news);
  return Object.fromEntries(detailedDiff(k, olds, news, result));
}

const flagOutputs = {
  workspace: "Default",
  trafficType: "user",
  name: "checkout",
  description: "The checkout",
  tags: ["owner:payments"],
  rolloutStatus: "Ramping",
  adopt: false,
  flagId: "f-1",
  workspaceId: "ws-1",
  workspaceName: "Default",
  trafficTypeId: "tt-1",
  rolloutStatusId: "rs-1",
};
const flagInputs = {
  workspace: "Default",
  trafficType: "user",
  name: "checkout",
  description: "The checkout",
  tags: ["owner:payments"],
  rolloutStatus: "Ramping",
  adopt: false,
};

describe("native provider: detailed diff", () => {
  it("no change: nothing", async () => {
    expect(await diffOf("Flag", flagOutputs, flagInputs)).toEqual({});
  });

  it("an in-place change names each changed input, and only those", async () => {
    expect(
      await diffOf("Flag", flagOutputs, {
        ...flagInputs,
        description: "New",
        tags: ["owner:web"],
        adopt: true,
      }),
    ).toEqual({ description: PropertyDiffKind.UPDATE, tags: PropertyDiffKind.UPDATE });
  });

  it("a removed input is a delete; a change that means nothing is no change", async () => {
    const { description: _, ...withoutDescription } = flagInputs;
    expect(await diffOf("Flag", flagOutputs, { ...withoutDescription, workspace: "ws-1" })).toEqual({
      description: PropertyDiffKind.DELETE,
    });
  });

  it("a change request's note and wait are no change of their own, beside the field that changed", async () => {
    const place = {
      workspace: "Default",
      environment: "Gated",
      segment: "pro_users",
      excludedKeys: [],
      excludedSegments: [],
      adopt: false,
    };
    const outs = {
      ...place,
      rules: [],
      workspaceId: "ws-1",
      workspaceName: "Default",
      environmentId: "env-1",
      environmentName: "Gated",
      trafficType: "user",
      creationTime: 1,
      pendingChangeRequest: { id: "cr-1", status: "REQUESTED", reference: "changeRequests/cr-1" },
    };
    const rules = [{ condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta" }] } }];
    expect(
      await diffOf("RuleBasedSegmentDefinition", outs, {
        ...place,
        rules,
        changeRequest: { title: "Pro users", approvers: ["lead@example.com"] },
        waitForApproval: { timeoutSeconds: 60, pollSeconds: 10 },
      }),
    ).toEqual({ rules: PropertyDiffKind.UPDATE });
  });

  it("a change that replaces is marked so", async () => {
    expect(await diffOf("Flag", flagOutputs, { ...flagInputs, name: "checkout-2" })).toEqual({
      name: PropertyDiffKind.UPDATE_REPLACE,
    });
  });

  it("a group's new description on an object that had none is an add", async () => {
    expect(
      await diffOf("Group", { name: "g", adopt: false, groupId: "g-1" }, { name: "g", description: "d" }),
    ).toEqual({ description: PropertyDiffKind.ADD });
  });

  it("a diff answer that names no field gives no detailed diff (the engine compares the inputs)", () => {
    expect(detailedDiff(kind("Group"), {}, {}, { changes: true })).toEqual(new Map());
    expect(detailedDiff(kind("Group"), {}, {}, { changes: false, stables: [] })).toEqual(new Map());
  });

  it("a pipeline's content and identifier are its YAML text; a connector's type its spec", () => {
    expect(
      Object.fromEntries(
        detailedDiff(
          kind("Pipeline"),
          { org: "default", project: "p", yaml: "a" },
          { org: "default", project: "p", yaml: "b" },
          { changes: true, replaces: [], stables: ["org", "project", "identifier"] },
        ),
      ),
    ).toEqual({ yaml: PropertyDiffKind.UPDATE });
    expect(
      Object.fromEntries(
        detailedDiff(
          kind("Pipeline"),
          { org: "default", project: "p", yaml: "a", pipeline: { identifier: "a" } },
          { org: "default", project: "p", pipeline: { identifier: "b" } },
          { changes: true, replaces: ["identifier"], stables: ["org", "project"] },
        ),
      ),
    ).toEqual({ pipeline: PropertyDiffKind.UPDATE_REPLACE });
    expect(
      Object.fromEntries(
        detailedDiff(
          kind("Connector"),
          { identifier: "r", name: "R", dockerRegistry: { url: "u" } },
          { identifier: "r", name: "R", generic: { type: "Git", spec: {} } },
          {
            changes: true,
            replaces: ["type"],
            // What the connector's diff answers: every unchanged field, the absent typed specs too.
            stables: [
              ...["org", "project", "identifier", "name", "description", "tags"],
              ...["github", "git", "kubernetes", "aws", "gcp", "httpHelm"],
            ],
          },
        ),
      ),
    ).toEqual({ dockerRegistry: PropertyDiffKind.DELETE, generic: PropertyDiffKind.ADD_REPLACE });
  });
});

// What makes a kind's detailed diff differ is data of the kind's own `impl` (`diffFields`,
// `replaceReasons`: provider/core/resource.ts), read the same way for every kind.
describe("native provider: a kind's diff hooks", () => {
  // A kind of no list: what the server does with the hooks, whatever kind declares them.
  const made = (impl: Pick<NativeKind["impl"], "diffFields" | "replaceReasons">) => ({
    inputs: z.object({
      a: z.number(),
      b: z.number().optional(),
      c: z.number().optional(),
      adopt: z.boolean(),
    }),
    impl,
  });

  it("diffFields: each field stands for the inputs the new inputs give of its own, or all of them", () => {
    const kind = made({ diffFields: { a: ["a"], both: ["b", "c"] } });
    const result = { changes: true, replaces: [], stables: ["a"] };
    expect(Object.fromEntries(detailedDiff(kind, { a: 1, b: 1 }, { a: 1, b: 2 }, result))).toEqual({
      b: PropertyDiffKind.UPDATE,
    });
    expect(Object.fromEntries(detailedDiff(kind, { a: 1, b: 1 }, { a: 1 }, result))).toEqual({
      b: PropertyDiffKind.DELETE,
      c: PropertyDiffKind.DELETE,
    });
  });

  it("without diffFields, each input but adopt is a field of its own name", () => {
    const kind = made({});
    expect(
      Object.fromEntries(
        detailedDiff(kind, { a: 1, b: 1 }, { a: 1, b: 2, adopt: true }, { changes: true, stables: ["a"] }),
      ),
    ).toEqual({ b: PropertyDiffKind.UPDATE, c: PropertyDiffKind.DELETE });
  });

  it("replaceReasons: a reason that is no field replaces the inputs of its entry the new inputs give", () => {
    const kind = made({ replaceReasons: { shape: ["b", "c"] } });
    const stables = ["a", "b", "c"];
    expect(
      Object.fromEntries(
        detailedDiff(kind, { a: 1, b: 1 }, { a: 1, c: 1 }, { changes: true, replaces: ["shape"], stables }),
      ),
    ).toEqual({ c: PropertyDiffKind.ADD_REPLACE });
    // A reason without an entry stands for the input of its name.
    expect(
      Object.fromEntries(
        detailedDiff(kind, { a: 1 }, { a: 1 }, { changes: true, replaces: ["other"], stables }),
      ),
    ).toEqual({ other: PropertyDiffKind.DELETE_REPLACE });
  });

  it("a pipeline declares its diff's fields, the ones its diff answers, read from its YAML text or model", async () => {
    const pipeline = kind("Pipeline");
    expect(pipeline.impl.diffFields).toEqual({
      org: ["org"],
      project: ["project"],
      identifier: ["yaml", "pipeline"],
      content: ["yaml", "pipeline"],
    });
    const yaml =
      "pipeline:\n  identifier: build\n  name: Build\n  orgIdentifier: default\n  projectIdentifier: payments\n  stages: []\n";
    const renamed = yaml.replace("identifier: build\n", "identifier: build2\n");
    const outs = { org: "default", project: "payments", yaml, identifier: "build", name: "Build" };
    const same = await pipeline.impl.diff("id", outs, { org: "default", project: "payments", yaml });
    expect(same.stables).toEqual(Object.keys(pipeline.impl.diffFields ?? {}));
    expect(await diffOf("Pipeline", outs, { org: "default", project: "payments", yaml: renamed })).toEqual({
      yaml: PropertyDiffKind.UPDATE_REPLACE,
    });
  });

  it("a connector's type is decided by whichever spec input the program gives", async () => {
    expect(kind("Connector").impl.replaceReasons).toEqual({
      type: ["dockerRegistry", "github", "git", "kubernetes", "aws", "gcp", "httpHelm", "generic"],
    });
    const dockerRegistry = {
      url: "https://registry.example/v2/",
      providerType: "DockerHub",
      auth: { type: "Anonymous" },
      delegateSelectors: [],
      executeOnDelegate: true,
    };
    const outs = {
      identifier: "hub",
      name: "Hub",
      tags: {},
      type: "DockerRegistry",
      spec: {},
      dockerRegistry,
    };
    const news = {
      identifier: "hub",
      name: "Hub",
      tags: {},
      generic: { type: "Git", spec: { url: "https://git.example" } },
    };
    expect(await diffOf("Connector", outs, news)).toEqual({
      dockerRegistry: PropertyDiffKind.DELETE,
      generic: PropertyDiffKind.ADD_REPLACE,
    });
  });
});
