import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  isSecretField,
  secretField,
  secretFieldNames,
  secretPaths,
  secretValues,
} from "../../../sdk/core/secret-fields";

describe("secretField", () => {
  it("marks a schema without changing what it parses, through the wrappers put around it", () => {
    const marked = secretField(z.string().min(1));
    expect(marked.parse("x")).toBe("x");
    expect(isSecretField(marked)).toBe(true);
    expect(isSecretField(marked.optional())).toBe(true);
    expect(isSecretField(marked.nullable().default("d"))).toBe(true);
    expect(isSecretField(marked.transform((s) => s.trim()))).toBe(true);
    expect(isSecretField(secretField(z.string()).optional().optional())).toBe(true);
    expect(isSecretField(z.string())).toBe(false);
    expect(isSecretField(z.string().optional())).toBe(false);
  });
});

describe("secretPaths", () => {
  const Spec = z.looseObject({ manager: z.string(), value: secretField(z.string()).optional() });
  const Body = z.object({
    secret: z.discriminatedUnion("type", [
      z.object({ type: z.literal("text"), spec: Spec }),
      z.object({ type: z.literal("file"), spec: z.object({ manager: z.string() }) }),
    ]),
    tokens: z.array(z.object({ id: z.string(), key: secretField(z.string()).optional() })).optional(),
    byName: z.record(z.string(), z.object({ token: secretField(z.string()) })),
    plain: z.object({ value: z.string() }),
  });

  it("finds every secret field through objects, unions, arrays and records", () => {
    expect(secretPaths(Body)).toEqual([
      ["secret", "spec", "value"],
      ["tokens", "*", "key"],
      ["byName", "*", "token"],
    ]);
    expect(secretFieldNames(Body)).toEqual(["value", "key", "token"]);
    expect(secretPaths(z.object({ a: z.string() }))).toEqual([]);
  });

  it("terminates on recursive schemas", () => {
    type Node = { name: string; pin?: string; children: Node[] };
    const NodeSchema: z.ZodType<Node> = z.lazy(() =>
      z.object({ name: z.string(), pin: secretField(z.string()).optional(), children: z.array(NodeSchema) }),
    );
    expect(secretPaths(NodeSchema)).toEqual([["pin"]]);
  });

  it("collects a body's values at those paths, and nothing where they are absent", () => {
    const paths = secretPaths(Body);
    expect(
      secretValues(paths, {
        secret: { type: "text", spec: { manager: "m", value: "hunter2-pw" } },
        tokens: [{ id: "a", key: "sdk-1" }, { id: "b" }, { id: "c", key: null }],
        byName: { x: { token: "t-1" }, y: { token: 42 } },
        plain: { value: "not secret" },
      }),
    ).toEqual(["hunter2-pw", "sdk-1", "t-1", "42"]);
    expect(secretValues(paths, undefined)).toEqual([]);
    expect(secretValues(paths, "text")).toEqual([]);
    expect(secretValues(paths, { secret: { type: "file", spec: { manager: "m" } } })).toEqual([]);
  });
});
