/**
 * A kind's example is checked: valid input of the kind and the paths it names present
 * (`checkExample`, here over the list: not at load, which would compile every kind's schema in
 * every provider start), and at load, over the list, the kinds and outputs its refs name.
 */
import { describe, expect, it } from "vitest";
import {
  checkExample,
  checkExampleRefs,
  defineKind,
  type Kind,
  valueAt,
  withValueAt,
} from "../../../provider/core/kind";
import { KIND_LIST } from "../../../provider/kinds";

const flag = KIND_LIST.find((k) => k.name === "Flag") as Kind;
const definition = KIND_LIST.find((k) => k.name === "FlagDefinition") as Kind;
const spec = (k: Kind) => ({
  resource: k.resource,
  impl: k.impl,
  area: k.area,
  replaceOnChange: k.replaceOnChange,
  importId: k.importId,
  doc: k.doc,
});

describe("defineKind: the example", () => {
  it("each kind's example is valid input of the kind", () => {
    const withExample = KIND_LIST.filter((k) => k.example !== undefined);
    expect(withExample.length).toBeGreaterThanOrEqual(27);
    for (const k of withExample) {
      expect({ kind: k.name, ok: k.resource.inputs.safeParse(k.example?.inputs).success }).toEqual({
        kind: k.name,
        ok: true,
      });
      expect(() => checkExample(k)).not.toThrow();
    }
  });

  it("an example that is no valid input fails the check, naming the field", () => {
    const bad = defineKind({
      ...spec(flag),
      example: { inputs: { workspace: "Default", name: "x", tags: "a" } },
    });
    expect(() => checkExample(bad)).toThrow(/^kind Flag: its example is not valid input: tags: /);
  });

  it("a unique or ref path the example does not have fails the check", () => {
    const bad = defineKind({
      ...spec(flag),
      example: { inputs: { workspace: "Default", name: "x" }, unique: ["title"] },
    });
    expect(() => checkExample(bad)).toThrow("kind Flag: its example has no input at title");
  });

  it("a ref to a kind not in the list, or to an output it has not, fails", () => {
    const withRef = (ref: { kind: string; output: string }): Kind => ({
      ...definition,
      example: { ...(definition.example as NonNullable<Kind["example"]>), refs: { flag: ref } },
    });
    expect(() => checkExampleRefs([flag, withRef({ kind: "Flag", output: "name" })])).not.toThrow();
    expect(() => checkExampleRefs([flag, withRef({ kind: "Nope", output: "name" })])).toThrow(
      "kind FlagDefinition: its example's flag names no kind Nope",
    );
    expect(() => checkExampleRefs([flag, withRef({ kind: "Flag", output: "nope" })])).toThrow(
      "kind FlagDefinition: its example's flag names no output Flag.nope",
    );
    expect(() =>
      checkExampleRefs([{ ...flag, example: undefined }, withRef({ kind: "Flag", output: "name" })]),
    ).toThrow("kind FlagDefinition: its example's flag names Flag, which has no example");
  });

  it("paths read and replace members and list elements", () => {
    const value = { viewers: [{ type: "group", id: "a" }], name: "n" };
    expect(valueAt(value, "viewers.0.id")).toBe("a");
    expect(valueAt(value, "viewers.1.id")).toBeUndefined();
    expect(withValueAt(value, "viewers.0.id", "b")).toEqual({
      viewers: [{ type: "group", id: "b" }],
      name: "n",
    });
    expect(value.viewers[0]?.id).toBe("a");
  });
});
