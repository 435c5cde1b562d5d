/**
 * The reference docs of every kind, rendered from its definition (`provider/kinds.ts`) and the
 * package schema (`provider-plugin/schema.json`, which `npm run schema` generates from the zod
 * schemas and their TSDoc: the one source of every description here):
 * - in `docs/flag-resources.md` and `docs/platform-resources.md`, each kind's section between
 *   `<!-- generated:kind <Name> -->` and `<!-- /generated -->`: its description, its row of the
 *   README table (what replaces it, what updates in place), its import id, an example program (the
 *   kind's `example`, with the objects it names declared first), its inputs (type, required,
 *   secret, replaces on change, description) and its outputs. A kind with no section yet gets one
 *   at the end of its area's page, before `<!-- generated: new kinds -->`; the hand-written text
 *   around the sections (stories, API calls, longer examples) stays as it is;
 * - the Terraform Registry's layout under `docs/terraform/`: `index.md` (the provider block, from
 *   the provider's settings), `resources/<name>.md` per kind and `data-sources/<name>.md` per
 *   lookup, from the Terraform schema the provider serves (`provider/terraform/schema.ts`:
 *   snake_case attributes, required, optional, computed, sensitive, nested attributes), with an
 *   HCL example derived from the kind's example and its import syntax.
 * `npm run generate` writes them with the rest (`./generate.ts`); its test fails when one is stale.
 * @module
 */
import { SETTINGS } from "../provider/core/config";
import { importIdOf } from "../provider/core/import-id";
import { type ExampleRef, type Kind, valueAt, withValueAt } from "../provider/core/kind";
import { NATIVE_FUNCTIONS, type NativeFunction } from "../provider/native/functions";
import {
  dataSourceSchema,
  type PackageSchemaPart,
  PROVIDER_NAME,
  providerConfigSchema,
  readPackageSchema,
  resourceSchema,
  snakeCase,
  type TfAttribute,
  type TfType,
} from "../provider/terraform/schema";

type Props = Record<string, unknown>;

/** A Pulumi package schema's type, as far as the docs read it. */
interface PulumiType {
  type?: string;
  items?: PulumiType;
  additionalProperties?: PulumiType;
  $ref?: string;
  oneOf?: PulumiType[];
  description?: string;
  properties?: Record<string, PulumiType>;
  required?: string[];
  enum?: { value: unknown }[];
}

interface PulumiResource {
  description?: string;
  properties: Record<string, PulumiType>;
  inputProperties: Record<string, PulumiType>;
  requiredInputs?: string[];
}

/** The package schema, read once. */
let cached: PackageSchemaPart | undefined;
const packageSchema = (): PackageSchemaPart => {
  cached ??= readPackageSchema(__dirname);
  return cached;
};

const TYPE_PREFIX = "#/types/flagstack:index:";

/** A table cell: one line, `|` escaped. */
const cell = (text: string | undefined): string =>
  (text ?? "")
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("|", "\\|")
    .trim();

/** A Pulumi type in words: `string`, `FlagDefinitionTreatment[]`, `one of "a", "b"`, `map of string`. */
function typeText(t: PulumiType | undefined, schema: PackageSchemaPart): string {
  if (t === undefined) return "any";
  if (t.$ref !== undefined) {
    if (!t.$ref.startsWith(TYPE_PREFIX)) return "any";
    const name = t.$ref.slice(TYPE_PREFIX.length);
    const named = (schema.types as Record<string, PulumiType>)[`flagstack:index:${name}`];
    if (named?.enum) return `one of ${named.enum.map((e) => `\`${JSON.stringify(e.value)}\``).join(", ")}`;
    if (named?.properties) {
      const required = new Set(named.required ?? []);
      const members = Object.keys(named.properties).map((m) => (required.has(m) ? m : `${m}?`));
      return `{${members.join(", ")}}`;
    }
    return typeText(named, schema);
  }
  if (t.oneOf) return t.oneOf.map((o) => typeText(o, schema)).join(" or ");
  if (t.enum) return `one of ${t.enum.map((e) => `\`${JSON.stringify(e.value)}\``).join(", ")}`;
  switch (t.type) {
    case "array":
      return `list of ${typeText(t.items, schema)}`;
    case "object":
      return t.additionalProperties ? `map of ${typeText(t.additionalProperties, schema)}` : "object";
    case undefined:
      return "any";
    default:
      return t.type;
  }
}

// ---------------------------------------------------------------------------------------------
// The example: the kind's object and the objects it names, in TypeScript and HCL

/** One object of an example program: its kind, its variable, its inputs and what names others. */
interface ExampleObject {
  kind: Kind;
  /** The TypeScript variable and the HCL label. */
  variable: string;
  /** The resource's name in the program (its first unique input's value, else the kind's). */
  name: string;
  inputs: Props;
  /** Each input that names another object of the program: that object's variable and output. */
  refs: Record<string, { variable: string; output: string }>;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const kebab = (s: string) => snakeCase(s).replaceAll("_", "-");

/**
 * The objects of `kind`'s example program, the ones it names first (a `shared` one once), each
 * with its ref's changes over its own example.
 */
export function exampleProgram(kind: Kind, kinds: readonly Kind[]): ExampleObject[] {
  const objects: ExampleObject[] = [];
  const shared = new Map<string, ExampleObject>();
  const used = new Set<string>();
  const add = (k: Kind, change: Props | undefined): ExampleObject => {
    const example = k.example ?? { inputs: {} };
    const refs: ExampleObject["refs"] = {};
    for (const [path, ref] of Object.entries(example.refs ?? {})) {
      const other = objectOf(ref);
      refs[path] = { variable: other.variable, output: ref.output };
    }
    let inputs: unknown = structuredClone(example.inputs);
    for (const [path, value] of Object.entries(change ?? {})) inputs = withValueAt(inputs, path, value);
    let variable = lowerFirst(k.name);
    for (let n = 2; used.has(variable); n++) variable = `${lowerFirst(k.name)}${n}`;
    used.add(variable);
    const first = example.unique?.[0];
    const name = first !== undefined ? String(valueAt(inputs, first)) : kebab(k.name);
    const object = { kind: k, variable, name, inputs: inputs as Props, refs };
    objects.push(object);
    return object;
  };
  const objectOf = (ref: ExampleRef): ExampleObject => {
    const k = kinds.find((x) => x.name === ref.kind);
    if (k === undefined) throw new Error(`an example names no kind ${ref.kind}`);
    if (!ref.shared) return add(k, ref.change);
    const known = shared.get(ref.kind) ?? add(k, ref.change);
    shared.set(ref.kind, known);
    return known;
  };
  add(kind, undefined);
  return objects;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A value as TypeScript source, `refs` (by path) as expressions; short values on one line. */
function tsValue(value: unknown, refs: Record<string, string>, path: string, indent: string): string {
  if (path in refs) return refs[path] as string;
  const inner = `${indent}  `;
  const at = (key: string | number) => (path === "" ? String(key) : `${path}.${key}`);
  if (Array.isArray(value)) {
    const items = value.map((v, i) => tsValue(v, refs, at(i), inner));
    const flat = `[${items.join(", ")}]`;
    return flat.length <= 80 && !flat.includes("\n")
      ? flat
      : `[\n${items.map((i) => `${inner}${i},\n`).join("")}${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Props).map(
      ([k, v]) => `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${tsValue(v, refs, at(k), inner)}`,
    );
    const flat = `{ ${entries.join(", ")} }`;
    return flat.length <= 80 && !flat.includes("\n")
      ? flat
      : `{\n${entries.map((e) => `${inner}${e},\n`).join("")}${indent}}`;
  }
  return JSON.stringify(value);
}

/** The example program in TypeScript: each object a `new <Kind>(...)`, the kind's own last. */
export function tsExample(kind: Kind, kinds: readonly Kind[]): string {
  const objects = exampleProgram(kind, kinds);
  const names = [...new Set(objects.map((o) => o.kind.name))].sort();
  const lines = [`import { ${names.join(", ")} } from "flagstack/provider";`, ""];
  const referenced = new Set(objects.flatMap((o) => Object.values(o.refs).map((r) => r.variable)));
  for (const o of objects) {
    const refs = Object.fromEntries(Object.entries(o.refs).map(([p, r]) => [p, `${r.variable}.${r.output}`]));
    const decl = referenced.has(o.variable) ? `const ${o.variable} = ` : "";
    lines.push(`${decl}new ${o.kind.name}(${JSON.stringify(o.name)}, ${tsValue(o.inputs, refs, "", "")});`);
  }
  return `${lines.join("\n")}\n`;
}

/** A string as HCL: JSON's escapes, and template sequences (`${`, `%{`) escaped. */
// A function replacer: in a replacement string `$$` is one `$`, which would leave `${` as it was.
const hclString = (s: string) =>
  JSON.stringify(s)
    .replaceAll("${", () => "$${")
    .replaceAll("%{", () => "%%{");

/** A value as HCL for an attribute of type `type` (object members by their snake_case names). */
function hclValue(
  value: unknown,
  type: TfType | undefined,
  refs: Record<string, string>,
  path: string,
  indent: string,
): string {
  if (path in refs) return refs[path] as string;
  const inner = `${indent}  `;
  const at = (key: string | number) => `${path}.${key}`;
  if (Array.isArray(value)) {
    const element = type?.kind === "list" || type?.kind === "map" ? type.element : undefined;
    const items = value.map((v, i) => hclValue(v, element, refs, at(i), inner));
    const flat = `[${items.join(", ")}]`;
    return flat.length <= 80 && !flat.includes("\n")
      ? flat
      : `[\n${items.map((i) => `${inner}${i},\n`).join("")}${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Props).map(([k, v]) => {
      if (type?.kind === "object") {
        const a = type.attributes.find((x) => x.key === k);
        return `${a?.name ?? snakeCase(k)} = ${hclValue(v, a?.type, refs, at(k), inner)}`;
      }
      const element = type?.kind === "map" ? type.element : undefined;
      const key = /^[A-Za-z_][\w-]*$/.test(k) ? k : JSON.stringify(k);
      return `${key} = ${hclValue(v, element, refs, at(k), inner)}`;
    });
    const flat = `{ ${entries.join(", ")} }`;
    return flat.length <= 80 && !flat.includes("\n")
      ? flat
      : `{\n${entries.map((e) => `${inner}${e}\n`).join("")}${indent}}`;
  }
  return typeof value === "string" ? hclString(value) : JSON.stringify(value);
}

/** The Terraform label of an example object: its name in snake_case. */
const hclLabel = (o: ExampleObject) => o.name.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^(\d)/, "_$1");

/** The example program in HCL: a `resource` block per object, the kind's own last. */
export function hclExample(kind: Kind, kinds: readonly Kind[], schema = packageSchema()): string {
  const objects = exampleProgram(kind, kinds);
  const blocks = objects.map((o) => {
    const tf = resourceSchema(o.kind, schema);
    const refs = Object.fromEntries(
      Object.entries(o.refs).map(([p, r]) => {
        const target = objects.find((x) => x.variable === r.variable) as ExampleObject;
        return [`.${p}`, `${resourceTypeOf(target)}.${hclLabel(target)}.${snakeCase(r.output)}`];
      }),
    );
    const members = Object.entries(o.inputs).map(([k, v]) => {
      const a = tf.attributes.find((x) => x.key === k);
      return [a?.name ?? snakeCase(k), hclValue(v, a?.type, refs, `.${k}`, "  ")] as const;
    });
    const width = Math.max(...members.map(([n]) => n.length));
    const body = members.map(([n, v]) => `  ${n.padEnd(width)} = ${v}\n`).join("");
    return `resource "${resourceTypeOf(o)}" "${hclLabel(o)}" {\n${body}}\n`;
  });
  return blocks.join("\n");
}

const resourceTypeOf = (o: ExampleObject) => `${PROVIDER_NAME}_${snakeCase(o.kind.name)}`;

// ---------------------------------------------------------------------------------------------
// A kind's section of its area's page

/** The begin marker of a kind's generated section. */
export const kindBegin = (name: string) => `<!-- generated:kind ${name} -->\n`;
/** The end marker of every generated section. */
export const KIND_END = "<!-- /generated -->\n";
/** Where a page's new kinds' sections go (before it). */
export const NEW_KINDS = "<!-- generated: new kinds -->\n";

/** A kind's generated section (between its markers). */
export function kindSection(kind: Kind, kinds: readonly Kind[], schema = packageSchema()): string {
  const spec = (schema.resources as Record<string, PulumiResource>)[kind.nativeToken];
  if (spec === undefined)
    throw new Error(`docs: the package schema has no ${kind.nativeToken} (npm run schema)`);
  const required = new Set(spec.requiredInputs ?? []);
  const inputs = Object.keys(kind.resource.inputs.shape);
  const outputs = Object.keys(kind.resource.outputs.shape).filter((o) => !inputs.includes(o));
  const yes = (b: boolean) => (b ? "yes" : "");
  const id = kind.importId
    ? `Import id: \`${kind.importId.form}\` (\`${kind.importId.example}\`).`
    : "Import id: none (the API cannot show the object again).";
  const lines = [
    `${cell(spec.description ?? kind.doc.what)}`,
    "",
    `Replaces on: ${cell(kind.doc.replaces) || "nothing"}. Updates in place: ${cell(kind.doc.updates) || "nothing"}. ${id}`,
    "",
    ...(kind.example
      ? ["```ts generated", tsExample(kind, kinds).trimEnd(), "```", ""]
      : ["No example yet: the kind's definition gives none (`example` in `defineKind`).", ""]),
    "| input | type | required | secret | replaces | description |",
    "|---|---|---|---|---|---|",
    ...inputs.map((f) => {
      const p = spec.inputProperties[f];
      return `| \`${f}\` | ${cell(typeText(p, schema))} | ${yes(required.has(f))} | ${yes(kind.secretInputs.includes(f))} | ${yes(kind.replaceOnChange.includes(f))} | ${cell(p?.description)} |`;
    }),
    "",
    "| output | type | secret | description |",
    "|---|---|---|---|",
    "| every input | as above | | as the service holds it, or as given |",
    ...outputs.map((f) => {
      const p = spec.properties[f];
      return `| \`${f}\` | ${cell(typeText(p, schema))} | ${yes(kind.secretOutputs.includes(f))} | ${cell(p?.description)} |`;
    }),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * A page with each of `kinds`' sections rendered between its markers; a kind with no section yet
 * gets a new `## <Name>` heading and section before {@link NEW_KINDS}.
 */
export function kindSections(
  kinds: readonly Kind[],
  all: readonly Kind[],
  text: string,
  file: string,
): string {
  let out = text;
  for (const kind of kinds) {
    const begin = kindBegin(kind.name);
    const from = out.indexOf(begin);
    if (from < 0) {
      const anchor = out.indexOf(NEW_KINDS);
      if (anchor < 0) throw new Error(`${file}: no section of ${kind.name} and no ${NEW_KINDS.trim()}`);
      const section = `## ${kind.name}\n\n${begin}${kindSection(kind, all)}${KIND_END}\n`;
      out = out.slice(0, anchor) + section + out.slice(anchor);
      continue;
    }
    const to = out.indexOf(KIND_END, from);
    if (to < 0) throw new Error(`${file}: the section of ${kind.name} never ends (${KIND_END.trim()})`);
    out = out.slice(0, from + begin.length) + kindSection(kind, all) + out.slice(to);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The Terraform Registry's layout

const HEAD =
  "<!-- Generated from the list of kinds by `npm run generate` (scripts/kind-docs.ts): do not edit. -->";

/** A Terraform type in the Registry's words: `String`, `List of Object`, `Map of String`. */
function tfTypeText(t: TfType): string {
  switch (t.kind) {
    case "string":
      return "String";
    case "number":
      return "Number";
    case "bool":
      return "Boolean";
    case "dynamic":
      return "Dynamic";
    case "list":
      return `List of ${tfTypeText(t.element)}`;
    case "map":
      return `Map of ${tfTypeText(t.element)}`;
    case "object":
      return "Object";
  }
}

/** The nested object type of an attribute's type (single, list or map of objects). */
function nestedOf(t: TfType): TfAttribute[] | undefined {
  if (t.kind === "object") return t.attributes;
  if ((t.kind === "list" || t.kind === "map") && t.element.kind === "object") return t.element.attributes;
  return undefined;
}

/** The Registry's schema lists: Required, Optional, Read-Only, then each nested schema once. */
function schemaLists(attributes: readonly TfAttribute[], anchor: string): string {
  const nested: { anchor: string; attributes: TfAttribute[] }[] = [];
  const seen = new Set<string>();
  const list = (attrs: readonly TfAttribute[], at: string): string => {
    const item = (a: TfAttribute) => {
      const inner = nestedOf(a.type);
      let ref = "";
      if (inner) {
        const id = `${at}--${a.name}`;
        ref = ` (see [below for nested schema](#nestedatt--${id}))`;
        if (!seen.has(id)) {
          seen.add(id);
          nested.push({ anchor: id, attributes: inner });
        }
      }
      const flags = [tfTypeText(a.type), ...(a.sensitive ? ["Sensitive"] : [])].join(", ");
      return `- \`${a.name}\` (${flags}) ${cell(a.description)}${ref}\n`;
    };
    const groups: [string, TfAttribute[]][] = [
      ["Required", attrs.filter((a) => a.required)],
      ["Optional", attrs.filter((a) => a.optional)],
      ["Read-Only", attrs.filter((a) => a.computed && !a.optional && !a.required)],
    ];
    return groups
      .filter(([, g]) => g.length > 0)
      .map(([title, g]) => `### ${title}\n\n${g.map(item).join("")}`)
      .join("\n");
  };
  let out = `## Schema\n\n${list(attributes, anchor)}`;
  for (let i = 0; i < nested.length; i++) {
    const n = nested[i] as { anchor: string; attributes: TfAttribute[] };
    const path = n.anchor.split("--").slice(1).join(".");
    out += `\n<a id="nestedatt--${n.anchor}"></a>\n### Nested Schema for \`${path}\`\n\n${list(n.attributes, n.anchor).replaceAll("### ", "#### ")}`;
  }
  return out;
}

/**
 * The import id of the example's own object: the kind's `importId` form filled from the example's
 * inputs (`../provider/core/import-id.ts`). So the import example names the object the example
 * declares (a segment named `beta-testers`, not its label).
 */
export function exampleImportId(kind: Kind, object: ExampleObject): string {
  const form = kind.importId?.form;
  if (form === undefined) throw new Error(`${kind.name}: no import id`);
  const id = importIdOf(form, object.inputs);
  if (id === undefined)
    throw new Error(`${kind.name}: its example gives no input for a part of its import id ${form}`);
  return id;
}

/** `docs/terraform/resources/<name>.md` of a kind. */
export function tfResourcePage(kind: Kind, kinds: readonly Kind[], schema = packageSchema()): string {
  const tf = resourceSchema(kind, schema);
  const short = tf.typeName.slice(PROVIDER_NAME.length + 1);
  const own = exampleProgram(kind, kinds).at(-1) as ExampleObject;
  const label = hclLabel(own);
  const importId = kind.importId && (kind.example ? exampleImportId(kind, own) : kind.importId.example);
  const importPart = kind.importId
    ? [
        "## Import",
        "",
        `The id is the natural key, \`${kind.importId.form}\`:`,
        "",
        "```hcl",
        "import {",
        `  to = ${tf.typeName}.${label}`,
        `  id = ${hclString(importId as string)}`,
        "}",
        "```",
        "",
        "```sh",
        `tofu import ${tf.typeName}.${label} ${importId}`,
        "```",
        "",
      ]
    : ["## Import", "", "Not importable: the API cannot show the object again.", ""];
  return [
    "---",
    `page_title: "${tf.typeName} Resource - ${PROVIDER_NAME}"`,
    `subcategory: "${kind.area === "flags" ? "Feature flags" : "Delivery platform"}"`,
    `description: |-`,
    `  ${cell(tf.description ?? kind.doc.what)}`,
    "---",
    "",
    HEAD,
    "",
    `# ${tf.typeName} (Resource)`,
    "",
    cell(tf.description ?? kind.doc.what),
    "",
    `Replaces on: ${cell(kind.doc.replaces) || "nothing"}. Updates in place: ${cell(kind.doc.updates) || "nothing"}. The Pulumi resource is \`${kind.name}\` ([${kind.area === "flags" ? "flag" : "platform"}-resources.md](../../${kind.area === "flags" ? "flag" : "platform"}-resources.md#${kind.name.toLowerCase()})); \`${short}\` is its name in snake_case.`,
    "",
    ...(kind.example
      ? ["## Example Usage", "", "```hcl", hclExample(kind, kinds, schema).trimEnd(), "```", ""]
      : []),
    schemaLists(tf.attributes, "schema"),
    ...importPart,
  ].join("\n");
}

/** `docs/terraform/data-sources/<name>.md` of a lookup. */
export function tfDataSourcePage(lookup: NativeFunction, schema = packageSchema()): string {
  const d = dataSourceSchema(lookup, schema);
  return [
    "---",
    `page_title: "${d.typeName} Data Source - ${PROVIDER_NAME}"`,
    `description: |-`,
    `  ${cell(d.description)}`,
    "---",
    "",
    HEAD,
    "",
    `# ${d.typeName} (Data Source)`,
    "",
    cell(d.description),
    "",
    `The Pulumi function \`${lookup.name}\` (\`${lookup.token}\`).`,
    "",
    schemaLists(d.attributes, "schema"),
  ].join("\n");
}

/** `docs/terraform/index.md`: the provider, its configuration, its resources and data sources. */
export function tfIndexPage(
  kinds: readonly Kind[],
  lookups: readonly NativeFunction[],
  schema = packageSchema(),
): string {
  const config = providerConfigSchema(schema, Object.keys(SETTINGS));
  const env = SETTINGS as Record<string, { env: string }>;
  const rows = config.map(
    (a) =>
      `| \`${a.name}\` | ${tfTypeText(a.type)}${a.sensitive ? ", Sensitive" : ""} | \`${env[a.key]?.env ?? ""}\` | ${cell(a.description)} |`,
  );
  const resources = kinds.map((k) => {
    const name = `${PROVIDER_NAME}_${snakeCase(k.name)}`;
    return `- [\`${name}\`](resources/${name.slice(PROVIDER_NAME.length + 1)}.md): ${cell(k.doc.what)}`;
  });
  const dataSources = lookups.map((l) => {
    const d = dataSourceSchema(l, schema);
    return `- [\`${d.typeName}\`](data-sources/${d.typeName.slice(PROVIDER_NAME.length + 1)}.md): ${cell(d.description).split(". ")[0]}`;
  });
  return [
    "---",
    `page_title: "Provider: ${PROVIDER_NAME}"`,
    "description: |-",
    "  Feature flags and delivery pipelines as code, for Terraform and OpenTofu.",
    "---",
    "",
    HEAD,
    "",
    `# ${PROVIDER_NAME} Provider`,
    "",
    "Every kind of the flagstack package as a resource, and every lookup as a data source, served",
    "over the plugin protocol 6 by the package's own process: the same checks, minimal guarded",
    "writes and natural import ids as the Pulumi resources. Installation and the commands are in",
    "[../terraform.md](../terraform.md).",
    "",
    "## Example Usage",
    "",
    "```hcl",
    "terraform {",
    "  required_providers {",
    "    flagstack = {",
    '      source = "flagstack.local/flagstack/flagstack"',
    "    }",
    "  }",
    "}",
    "",
    'provider "flagstack" {',
    '  admin_api_url = "http://127.0.0.1:8787" # FLAGSTACK_ADMIN_API_KEY holds the key',
    "}",
    "```",
    "",
    "## Schema",
    "",
    "Every argument is optional and falls back to its environment variable.",
    "",
    "| argument | type | environment variable | description |",
    "|---|---|---|---|",
    ...rows,
    "",
    "## Resources",
    "",
    ...resources,
    "",
    "## Data Sources",
    "",
    ...dataSources,
    "",
  ].join("\n");
}

/** Every page of `docs/terraform/`, by path from the repository's root. */
export function terraformPages(
  kinds: readonly Kind[],
  lookups: readonly NativeFunction[] = NATIVE_FUNCTIONS,
): Map<string, () => string> {
  const pages = new Map<string, () => string>();
  pages.set("docs/terraform/index.md", () => tfIndexPage(kinds, lookups));
  for (const kind of kinds)
    pages.set(`docs/terraform/resources/${snakeCase(kind.name)}.md`, () => tfResourcePage(kind, kinds));
  for (const lookup of lookups) {
    const name = snakeCase(lookup.name.replace(/^get/, ""));
    pages.set(`docs/terraform/data-sources/${name}.md`, () => tfDataSourcePage(lookup));
  }
  return pages;
}
