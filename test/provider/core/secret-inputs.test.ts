/**
 * Secret inputs never printed by the provider's own errors (issue 23 item 4): a `check` failure
 * that quotes a secret input's value and a refused update over a secret field show `[secret]`;
 * every kind's secret inputs are marked in its input schema, which is what `check` hides by.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkInputs } from "../../../provider/core/check";
import type { DiffSpec } from "../../../provider/core/diff";
import { fieldsToWrite } from "../../../provider/core/guard";
import { NATIVE_KINDS } from "../../../provider/native/kinds";
import { impl as secretImpl } from "../../../provider/platform/secret";
import { secretField, secretFieldNames } from "../../../sdk/core/secret-fields";

const SENTINEL = "Sentinel-Secret-4e7a1c";

describe("check", () => {
  const Inputs = z.strictObject({
    name: z.string(),
    value: secretField(z.string()).optional(),
    nested: z.object({ pin: secretField(z.string()) }).optional(),
  });
  const spec = {
    schema: Inputs,
    validate: (i: z.output<typeof Inputs>) => [
      { path: ["value"], message: `value ${JSON.stringify(i.value)} is weak; pin ${i.nested?.pin} too` },
      { path: ["name"], message: `name ${i.name} is taken` },
    ],
  };

  it("shows a secret input's value as [secret] wherever a reason quotes it", () => {
    const { failures } = checkInputs(spec, { name: "db", value: SENTINEL, nested: { pin: "9731" } });
    expect(failures).toEqual([
      { property: "value", reason: "value [secret] is weak; pin [secret] too" },
      { property: "name", reason: "name db is taken" },
    ]);
  });

  it("leaves reasons alone when no secret input is set, and values too short to tell", () => {
    expect(checkInputs(spec, { name: "db" }).failures).toEqual([
      { property: "value", reason: "value undefined is weak; pin undefined too" },
      { property: "name", reason: "name db is taken" },
    ]);
    expect(checkInputs(spec, { name: "db", value: "ab" }).failures?.[0]?.reason).toBe(
      'value "ab" is weak; pin undefined too',
    );
  });

  it("a Secret's check never quotes its value or file", async () => {
    const { failures } = await secretImpl.check(
      {},
      { identifier: "x", name: "x", value: SENTINEL, file: SENTINEL },
    );
    expect(JSON.stringify(failures)).not.toContain(SENTINEL);
    expect(failures?.map((f) => f.property)).toEqual(["file"]);
  });
});

describe("a refused update", () => {
  const spec: DiffSpec<"name" | "value"> = {
    fields: ["name", "value"],
    replaceOnChange: [],
    secret: ["value"],
  };

  it("shows a secret field's recorded, live and desired values as [secret], and keeps them out of the error", () => {
    let error: unknown;
    try {
      fieldsToWrite(
        'secret "s"',
        spec,
        { name: "a", value: `${SENTINEL}-recorded` },
        { name: "b", value: `${SENTINEL}-desired` },
        { name: "c", value: `${SENTINEL}-live` },
      );
    } catch (e) {
      error = e;
    }
    expect((error as Error).message.split("\n").slice(1, 3)).toEqual([
      '  name: recorded "a", live "c", desired "b"',
      "  value: recorded [secret], live [secret], desired [secret]",
    ]);
    expect(JSON.stringify((error as { fields: unknown }).fields)).not.toContain(SENTINEL);
    expect(inspect(error, { depth: 8 })).not.toContain(SENTINEL);
  });
});

describe("every kind", () => {
  it("marks each of its secret inputs in its input schema, so check hides them", () => {
    const withSecrets = NATIVE_KINDS.filter((k) => (k.secretInputs ?? []).length > 0);
    expect(withSecrets.map((k) => k.name)).toEqual(["Secret"]);
    for (const kind of NATIVE_KINDS) {
      expect(secretFieldNames(kind.inputs), kind.name).toEqual(
        expect.arrayContaining([...(kind.secretInputs ?? [])]),
      );
    }
  });
});
