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

/** What a write was called with. */
interface Written<K> {
  fields: K[];
  merged?: Props | undefined;
}

/** Runs a guarded update over `recorded` and `live`; the message it fails with, or what it wrote. */
async function runWith<K extends string>(
  spec: DiffSpec<K>,
  recorded: Props,
  desired: Props,
  live: { props: Props; inputs?: Props },
  shape: { view?: (o: Props) => Props; derive?: (i: Props) => Props } = {},
): Promise<string | Written<K>> {
  let written: Written<K> | undefined;
  try {
    await guardedUpdate<K, Props>({
      describe: 'thing "t"',
      spec,
      recorded,
      desired,
      ...shape,
      read: async () => ({ id: "t", ...live }),
      write: async (fields, l, merged) => {
        written = { fields, merged };
        return l;
      },
    });
  } catch (e) {
    return (e as Error).message;
  }
  return written as Written<K>;
}

/** {@link runWith}: the message, or the fields written. */
async function run<K extends string>(
  spec: DiffSpec<K>,
  recorded: Props,
  desired: Props,
  live: { props: Props; inputs?: Props },
  view?: (o: Props) => Props,
): Promise<string | K[]> {
  const r = await runWith(spec, recorded, desired, live, view ? { view } : {});
  return typeof r === "string" ? r : r.fields;
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

describe("a derived field the kind renders from inputs (derive): decided input by input", () => {
  // Like a trigger: the name lives in the YAML only, so the diff compares it as `content`.
  type F = "identifier" | "content";
  const spec: DiffSpec<F> = {
    fields: ["identifier", "content"],
    replaceOnChange: ["identifier"],
    rules: { content: { equals: (a, b) => a === b } },
  };
  const render = (i: Props) => `name: ${i.name}\nvariables: ${JSON.stringify(i.variables)}\n`;
  const shape = {
    view: (o: Props) => ({ ...o, content: o.yaml }),
    derive: (i: Props) => ({ ...i, content: render(i) }),
  };
  const vars = (value: number) => [{ name: "replicas", value }];
  const inputs = (name: string, value: number) => ({
    identifier: "t",
    name,
    variables: vars(value),
    adopt: false,
  });
  const outputs = (name: string, value: number, extra = "") => ({
    ...inputs(name, value),
    yaml: render(inputs(name, value)) + extra,
    version: value,
  });
  const desired = (name: string, value: number) => shape.derive(inputs(name, value));
  const liveOf = (name: string, value: number, extra = "") => ({
    props: outputs(name, value, extra),
    inputs: inputs(name, value),
  });

  it("a colleague's edit of another input survives: the content is written from the merged inputs", async () => {
    expect(await runWith(spec, outputs("T", 3), desired("T", 5), liveOf("Theirs", 3), shape)).toEqual({
      fields: ["content"],
      merged: inputs("Theirs", 5),
    });
  });

  it("the colleague's edit is the program's change: nothing to write", async () => {
    expect(await runWith(spec, outputs("T", 3), desired("T", 5), liveOf("T", 5), shape)).toEqual({
      fields: [],
    });
  });

  it("an input both changed, differently: refused naming that input alone", async () => {
    expect(await runWith(spec, outputs("T", 3), desired("T", 5), liveOf("Theirs", 4), shape)).toBe(
      refusal([
        '  variables: recorded [{"name":"replicas","value":3}], live [{"name":"replicas","value":4}], desired [{"name":"replicas","value":5}]',
      ]),
    );
  });

  it("a live document its inputs do not render (a part they do not hold, which a write would lose): refused naming it", async () => {
    const extra = "colour: red\n";
    expect(await runWith(spec, outputs("T", 3), desired("T", 5), liveOf("Theirs", 3, extra), shape)).toBe(
      refusal(['  name: recorded "T", live "Theirs", desired "T"']),
    );
  });

  it("a document the program gives whole (its source input desired): refused, not merged", async () => {
    const text = (name: string, value: number) => render(inputs(name, value));
    const given = (name: string, value: number) => ({
      identifier: "t",
      yaml: text(name, value),
      adopt: false,
    });
    const live = { props: { ...given("Theirs", 3), version: 1 }, inputs: given("Theirs", 3) };
    expect(
      await runWith(
        spec,
        { ...given("T", 3), version: 0 },
        { ...given("T", 5), content: text("T", 5) },
        live,
        shape,
      ),
    ).toBe(
      refusal([
        `  yaml: recorded ${JSON.stringify(text("T", 3))}, live ${JSON.stringify(text("Theirs", 3))}, desired ${JSON.stringify(text("T", 5))}`,
      ]),
    );
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
