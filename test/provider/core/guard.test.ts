/**
 * The guarded update (`provider/core/guard.ts`) on its own, with a read and a write of the test's
 * making: what it refuses and how the refusal names the fields (an optional field's recorded
 * "none", a derived YAML field named by the inputs the read parsed, long values named by the
 * places inside them that differ).
 */
import { describe, expect, it } from "vitest";
import { changedFields, type DiffSpec } from "../../../provider/core/diff";
import { fieldsToWrite, guardedUpdate } from "../../../provider/core/guard";

type Props = Record<string, unknown>;

const TAIL =
  "Nothing was written. Run `pulumi refresh` to record the live values (the next `pulumi preview` then shows exactly what `pulumi up` will change), or `pulumi up --refresh`.";
/** The refusal of `fields` fields (one line each, unless a long value takes several). */
const refusal = (lines: string[], fields = lines.length) =>
  `thing "t" was changed outside Pulumi since its state was recorded, in ${
    fields === 1 ? "a field" : "fields"
  } this update changes:\n${lines.join("\n")}\n${TAIL}`;

/** Runs a guarded update over `recorded` and `live`; the message it fails with, or the fields it wrote. */
async function run<K extends string>(
  spec: DiffSpec<K>,
  recorded: Props,
  desired: Props,
  live: { props: Props; inputs?: Props },
  view?: (o: Props) => Props,
): Promise<string | K[]> {
  let written: K[] | undefined;
  try {
    await guardedUpdate<K, Props>({
      describe: 'thing "t"',
      spec,
      recorded,
      desired,
      ...(view ? { view } : {}),
      read: async () => ({ id: "t", ...live }),
      write: async (fields, l) => {
        written = fields;
        return l;
      },
    });
  } catch (e) {
    return (e as Error).message;
  }
  return written as K[];
}

describe("a field the program may leave out (optional)", () => {
  const spec: DiffSpec<"baseline"> = {
    fields: ["baseline"],
    replaceOnChange: [],
    rules: { baseline: { optional: true } },
  };

  it("left out: no change, whatever was recorded", () => {
    expect(changedFields(spec, { baseline: "on" }, {})).toEqual([]);
    expect(changedFields(spec, {}, {})).toEqual([]);
  });

  it("a colleague's value where the state recorded none is an edit since: refused naming it, nothing written", async () => {
    expect(await run(spec, {}, { baseline: "off" }, { props: { baseline: "on" } })).toBe(
      refusal(['  baseline: recorded (none), live "on", desired "off"']),
    );
  });

  it("still none live: written; already as desired: nothing to write", async () => {
    expect(await run(spec, {}, { baseline: "off" }, { props: {} })).toEqual(["baseline"]);
    expect(await run(spec, {}, { baseline: "off" }, { props: { baseline: "off" } })).toEqual([]);
  });
});

describe("a field the view derives (a YAML document compared whole)", () => {
  type F = "identifier" | "name" | "content";
  const spec: DiffSpec<F> = {
    fields: ["identifier", "name", "content"],
    replaceOnChange: ["identifier"],
    rules: { content: { equals: (a, b) => a === b } },
  };
  const view = (o: Props) => ({ ...o, content: o.yaml });
  const vars = (value: number) => [{ name: "replicas", type: "Number", value }];
  const yaml = (value: number, extra = "") => `environment:\n  variables: [${value}]\n${extra}`;
  const outputs = (value: number, extra = "") => ({
    identifier: "t",
    name: "T",
    variables: vars(value),
    adopt: false,
    yaml: yaml(value, extra),
    version: value,
  });
  const inputs = (value: number) => ({ identifier: "t", name: "T", variables: vars(value), adopt: false });
  const desired = { ...inputs(5), content: yaml(5) };

  it("is named by each input the read parsed whose live value differs from the recorded one, with its three values", async () => {
    const live = { props: outputs(4), inputs: inputs(4) };
    expect(await run(spec, outputs(3), desired, live, view)).toBe(
      refusal([
        '  variables: recorded [{"name":"replicas","type":"Number","value":3}], live [{"name":"replicas","type":"Number","value":4}], desired [{"name":"replicas","type":"Number","value":5}]',
      ]),
    );
  });

  it("beside a field of its own that conflicts too, each named once", async () => {
    const live = { props: { ...outputs(4), name: "Theirs" }, inputs: { ...inputs(4), name: "Theirs" } };
    expect(await run(spec, outputs(3), { ...desired, name: "Ours" }, live, view)).toBe(
      refusal([
        '  name: recorded "T", live "Theirs", desired "Ours"',
        '  variables: recorded [{"name":"replicas","type":"Number","value":3}], live [{"name":"replicas","type":"Number","value":4}], desired [{"name":"replicas","type":"Number","value":5}]',
      ]),
    );
  });

  it("is named itself when no input shows the difference (a part of the YAML the inputs do not hold)", async () => {
    const live = { props: outputs(3, "  colour: red\n"), inputs: inputs(3) };
    expect(await run(spec, outputs(3), desired, live, view)).toBe(
      refusal([
        `  content: recorded ${JSON.stringify(yaml(3))}, live ${JSON.stringify(yaml(3, "  colour: red\n"))}, desired ${JSON.stringify(yaml(5))}`,
      ]),
    );
  });

  it("unchanged live: the content is written, with no refusal", async () => {
    expect(await run(spec, outputs(3), desired, { props: outputs(3), inputs: inputs(3) }, view)).toEqual([
      "content",
    ]);
  });
});

describe("a value too long to show whole", () => {
  const spec: DiffSpec<"rules"> = { fields: ["rules"], replaceOnChange: [] };
  const rules = (changed: Record<number, string>) =>
    Array.from({ length: 12 }, (_, i) => ({ name: `rule-${i}`, treatment: changed[i] ?? "on" }));

  it("is named at each place inside it where the live value differs from the recorded one", () => {
    expect(() =>
      fieldsToWrite(
        'thing "t"',
        spec,
        { rules: rules({}) },
        { rules: rules({ 3: "ours" }) },
        { rules: rules({ 3: "theirs" }) },
      ),
    ).toThrow(refusal(['  rules[3].treatment: recorded "on", live "theirs", desired "ours"']));
  });

  it("beyond five places, counts the rest", () => {
    const theirs = rules({ 0: "x", 1: "x", 2: "x", 3: "x", 4: "x", 5: "x", 6: "x" });
    expect(() =>
      fieldsToWrite(
        'thing "t"',
        spec,
        { rules: rules({}) },
        { rules: rules({ 11: "ours" }) },
        { rules: theirs },
      ),
    ).toThrow(
      refusal(
        [
          ...[0, 1, 2, 3, 4].map((i) => `  rules[${i}].treatment: recorded "on", live "x", desired "on"`),
          "  (2 more differences in rules)",
        ],
        1,
      ),
    );
  });
});
