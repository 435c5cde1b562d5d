/**
 * The program of test/e2e/policy-check.test.ts. `spec.json` beside it lists resources as
 * `{kind, name, args}`: `new <kind>(name, args)` of `flagstack/provider`, the arguments exactly as a
 * program passes them. An argument `{"$ref": "<name>.<output>"}` is that output of the resource
 * declared before under that name (the test renders it as `flagstack_<kind>.<name>.<output>` in HCL).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import * as flagstack from "flagstack/provider";

interface Declared {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

type ResourceClass = new (name: string, args: Record<string, unknown>) => pulumi.CustomResource;

const spec = JSON.parse(readFileSync(join(__dirname, "spec.json"), "utf8")) as Declared[];
const declared = new Map<string, pulumi.CustomResource>();

/** The arguments with each `{"$ref": "name.output"}` replaced by that resource's output. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== "object") return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const [name, output] = ref.split(".") as [string, string];
    const resource = declared.get(name);
    if (!resource) throw new Error(`$ref ${ref}: no resource ${name} declared before`);
    return (resource as unknown as Record<string, unknown>)[output];
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
}

for (const { kind, name, args } of spec) {
  const Class = (flagstack as unknown as Record<string, ResourceClass | undefined>)[kind];
  if (!Class) throw new Error(`${name}: flagstack/provider exports no ${kind}`);
  declared.set(name, new Class(name, resolve(args) as Record<string, unknown>));
}
