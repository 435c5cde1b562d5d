/**
 * The Terraform Registry pages' import examples (scripts/kind-docs.ts, `docs/terraform/resources/`):
 * on every resource page, the `import` block's address is the example's own resource block, and its
 * id is the natural key of the object the example declares: each part of the kind's `importId`
 * form is the example's input it names (the `<name>` part the `name` attribute's value, not the
 * resource's label), and the `tofu import` line says the same.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KIND_LIST } from "../../provider/kinds";
import { snakeCase } from "../../provider/terraform/schema";
import { ROOT } from "../../scripts/generate";

type Props = Record<string, unknown>;
const camel = (part: string) => part.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());

/** The parts of an id of `form` (`[<org>/[<project>/]]<identifier>`), by name; `undefined` when it is not of the form. */
function partsOf(form: string, id: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = form
    .split(/(<[^>]+>|\[|\])/)
    .map((t) => {
      if (t === "[") return "(?:";
      if (t === "]") return ")?";
      const name = /^<(.+)>$/.exec(t)?.[1];
      if (name === undefined) return t.replace(/[.*+?^${}()|\\/]/g, "\\$&");
      names.push(name);
      return "([^/]+)";
    })
    .join("");
  const m = new RegExp(`^${pattern}$`).exec(id);
  if (!m) return undefined;
  return Object.fromEntries(
    names.flatMap((n, i) => (m[i + 1] === undefined ? [] : [[n, m[i + 1] as string]])),
  );
}

/**
 * The example's input a part names: the input of its name (`<traffic type>` `trafficType`), the
 * identifier of the object it names (`<pipeline>` `pipelineIdentifier`), or the member of that name
 * of the one object input holding it (a `Pipeline`'s `<identifier>`, `pipeline.identifier`).
 */
function inputOf(inputs: Props, part: string): unknown {
  const key = camel(part);
  if (key in inputs) return inputs[key];
  if (`${key}Identifier` in inputs) return inputs[`${key}Identifier`];
  const holders = Object.values(inputs).filter(
    (v): v is Props => v !== null && typeof v === "object" && !Array.isArray(v) && key in v,
  );
  return holders.length === 1 ? holders[0]?.[key] : undefined;
}

const importable = KIND_LIST.filter((k) => k.importId !== undefined && k.example !== undefined);
const page = (name: string) =>
  readFileSync(join(ROOT, "docs", "terraform", "resources", `${snakeCase(name)}.md`), "utf8");

describe("the Terraform pages' import examples", () => {
  it.each(importable.map((k) => k.name))("%s: the import id is the example object's natural key", (name) => {
    const kind = importable.find((k) => k.name === name)!;
    const text = page(name);
    const block = /^import \{\n {2}to = (\S+)\n {2}id = "([^"]*)"\n\}$/m.exec(text);
    expect(block, "the page's import block").not.toBeNull();
    const [, address = "", id = ""] = block ?? [];
    // The address is the example's own resource block: the last one of the example.
    const resources = [...text.matchAll(/^resource "([^"]+)" "([^"]+)" \{$/gm)].map((m) => `${m[1]}.${m[2]}`);
    expect(resources.at(-1)).toBe(address);
    expect(text).toContain(`\ntofu import ${address} ${id}\n`);
    const parts = partsOf(kind.importId!.form, id);
    expect(parts, `"${id}" is of the form ${kind.importId!.form}`).toBeDefined();
    const inputs = kind.example!.inputs as Props;
    const named = Object.fromEntries(Object.keys(parts ?? {}).map((p) => [p, inputOf(inputs, p)]));
    expect(parts).toEqual(named);
  });

  it("names the object, not its label: a segment named beta-testers, a flag's definition in Staging", () => {
    expect(page("Segment")).toContain(
      'import {\n  to = flagstack_segment.beta_testers\n  id = "Default/beta-testers"\n}',
    );
    expect(page("Segment")).toMatch(/^ {2}name +?= "beta-testers"$/m);
    expect(page("FlagDefinition")).toContain('  id = "Default/new-checkout/Staging"\n');
    expect(page("Pipeline")).toContain('  id = "default/payments/hello"\n');
    expect(page("Template")).toContain('  id = "default/payments/say_hello/versions/v1"\n');
    expect(page("Restriction")).toContain('  id = "payments"\n');
  });

  it("covers every kind that can be imported", () => {
    expect(importable.length).toBe(KIND_LIST.filter((k) => k.importId !== undefined).length);
    expect(importable.length).toBeGreaterThan(20);
  });
});
