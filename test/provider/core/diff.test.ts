import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../../provider/core/check";
import { canonicalJson, type DiffSpec, diffInputs } from "../../../provider/core/diff";

const spec: DiffSpec<"name" | "description" | "tags" | "workspace"> = {
  fields: ["name", "description", "tags", "workspace"],
  replaceOnChange: ["name", "workspace"],
  deleteBeforeReplace: true,
  rules: {
    tags: { normalize: (v) => [...new Set((v as string[] | undefined) ?? [])].sort() },
    workspace: { equals: (o, n, olds) => n === o || n === olds.workspaceId },
  },
};
const olds = {
  name: "f",
  description: "d",
  tags: ["b", "a"],
  workspace: "Default",
  workspaceId: "ws-1",
  __provider: "old code",
};

describe("diffInputs", () => {
  it("reports no change for the same semantic values, ignoring __provider and outputs", () => {
    expect(
      diffInputs(spec, olds, {
        name: "f",
        description: "d",
        tags: ["a", "b", "a"],
        workspace: "ws-1",
        __provider: "new code",
      }),
    ).toEqual({
      changes: false,
      replaces: [],
      stables: ["name", "description", "tags", "workspace"],
      deleteBeforeReplace: false,
    });
  });

  it("names in-place changes", () => {
    expect(diffInputs(spec, olds, { ...olds, description: "e" })).toMatchObject({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("names replacements and asks for delete-before-replace", () => {
    expect(diffInputs(spec, olds, { ...olds, name: "g" })).toMatchObject({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
  });

  it("treats an unknown value as a change (a replacement for a replace field)", () => {
    expect(diffInputs(spec, olds, { ...olds, workspace: UNKNOWN, tags: [UNKNOWN] })).toMatchObject({
      changes: true,
      replaces: ["workspace"],
    });
  });

  it("treats a missing and an undefined member alike", () => {
    expect(canonicalJson({ b: 1, a: undefined, c: { y: 1, x: 2 } })).toBe('{"b":1,"c":{"x":2,"y":1}}');
  });
});
