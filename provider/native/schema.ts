/**
 * The Pulumi package schema of the native provider `flagstack`, generated from the zod schemas:
 * each resource's inputs schema gives its `inputProperties` and `requiredInputs`, its outputs
 * schema its `properties` and `required`, its `...ReplaceOnChange` list the `replaceOnChanges`
 * flags, and the provider settings (`provider/core/config.ts`) the provider's configuration.
 * Descriptions come from the TSDoc of the schemas and of the resource classes, read at build time
 * (`./docs.ts`) and passed in, so this module needs no compiler at run time.
 *
 * zod → JSON Schema (zod's own `z.toJSONSchema`) → Pulumi types:
 * - string, number, integer, boolean as they are; a string enum → an enum type; a constant → string;
 * - an object with properties → a named object type (`#/types/flagstack:index:<Name>`), named
 *   after where it first appears (`FlagDefinitionRule`, `FlagDefinitionRuleCondition`, ...);
 *   types that differ only in descriptions or in which members are required (an input's default
 *   makes the output member required) are one type, whose required members are those of both;
 * - a record → a map (`additionalProperties`); an array → an array;
 * - a union of objects that share a constant member (zod's discriminated union) → `oneOf` with a
 *   `discriminator` and one named type per variant; any other union → `oneOf`;
 * - what JSON Schema cannot say (`unknown`, the output of a transform) → `pulumi.json#/Any`, except
 *   an output whose input is describable: a transform here only normalises (a set sorted, JSON
 *   text from an object) and keeps the type, so the input's type stands for it.
 * Constraints (lengths, patterns, ranges) stay in `check`, which reports them per field; the
 * schema carries types only.
 * @module
 */
import { z } from "zod";
import { SETTINGS, type SettingName } from "../core/config";
import { canonicalJson } from "../core/diff";
import type { NativeFunction } from "./functions";
import type { NativeKind } from "./kinds";
import { PACKAGE } from "./kinds";

// ---------------------------------------------------------------------------------------------
// The documentation passed in

/** The TSDoc of an object schema's members, by member name; `members` for a nested object's. */
export interface DocTree {
  [member: string]: { doc?: string; members?: DocTree };
}

/** The TSDoc the schema's descriptions come from (`./docs.ts` reads it from the sources). */
export interface SchemaDocs {
  /** By type name (`Flag`, ...): the resource class's TSDoc and its schemas' members' TSDoc. */
  resources: Record<string, { description?: string; inputs: DocTree; outputs: DocTree }>;
  /** By function name (`getWorkspace`, ...): the lookup's TSDoc, its arguments' and its result's. */
  functions?: Record<string, { description?: string; args: DocTree; result: DocTree }>;
}

// ---------------------------------------------------------------------------------------------
// The Pulumi package schema (the parts this package uses)

/** A type in the Pulumi schema: a primitive, an array, a map, a reference or a union. */
export interface TypeSpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
  discriminator?: { propertyName: string; mapping: Record<string, string> };
}

/** A property: its type, description, default and flags. */
export interface PropertySpec extends TypeSpec {
  description?: string;
  default?: string | number | boolean;
  secret?: boolean;
  replaceOnChanges?: boolean;
}

/** A named object type. */
export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

/** A named enum type. */
export interface EnumTypeSpec {
  type: "string";
  description?: string;
  enum: { name: string; value: string }[];
}

/** A resource. */
export interface ResourceSpec {
  description?: string;
  properties: Record<string, PropertySpec>;
  required: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
}

/** A function (an invoke): its arguments and its result, each an object. */
export interface FunctionSpec {
  description?: string;
  inputs: { properties: Record<string, PropertySpec>; required?: string[] };
  outputs: { properties: Record<string, PropertySpec>; required?: string[] };
}

/** The package schema (`pulumi package get-schema` prints it). */
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  license: string;
  keywords: string[];
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectTypeSpec | EnumTypeSpec>;
  language: Record<string, Record<string, unknown>>;
}

/** The Pulumi schema's "any value" type. */
export const ANY: TypeSpec = Object.freeze({ $ref: "pulumi.json#/Any" });

// ---------------------------------------------------------------------------------------------
// Provider configuration

/**
 * What each setting means (the README's configuration table). Typed by the settings' names, so a
 * setting added to `SETTINGS` fails the type check until it is described here.
 */
export const SETTING_DOCS: Readonly<Record<SettingName, string>> = {
  adminApiUrl: "Base URL of the feature-flag admin API.",
  adminApiKey: "Admin API key.",
  adminAuth:
    "How the admin key is sent: `bearer` (`Authorization: Bearer`, a Split admin API key) or `x-api-key` (a Harness token). Default: `x-api-key` for a Harness token (`pat.…`, `sat.…`), else `bearer`.",
  platformApiUrl: "Base URL of the platform API.",
  platformApiKey: "Platform API key (`x-api-key`).",
  accountId: "Platform account identifier.",
  requestsPerSecond:
    "Client-side rate limit per base URL, requests per second (`Infinity` for none). Default: 10.",
  maxRetries: "How often a failed request is retried (429, 5xx, connection errors). Default: 4.",
  changeTitle: "Title of the changes sent with flag-definition writes, when a resource gives none.",
  changeComment: "Comment of the changes sent with flag-definition writes, when a resource gives none.",
};

/** The settings that are credentials: secret in the schema (`flagstack:adminApiKey`, ...). */
export const SECRET_SETTINGS: ReadonlySet<SettingName> = new Set(["adminApiKey", "platformApiKey"]);

/**
 * The configuration's properties, from the settings' zod schema: a setting that may be a number
 * is a number (`requestsPerSecond` also takes `Infinity` as stack config text), an integer an
 * integer, the rest strings; credentials are secret.
 */
export function configProperties(settings: z.ZodObject): Record<string, PropertySpec> {
  const js = z.toJSONSchema(settings, { io: "input", unrepresentable: "any" }) as Json;
  const props = (js.properties ?? {}) as Record<string, Json>;
  const out: Record<string, PropertySpec> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const types = primitiveTypes(props[name] ?? {});
    const type = types.has("integer") ? "integer" : types.has("number") ? "number" : "string";
    out[name] = {
      type,
      description: SETTING_DOCS[name],
      ...(SECRET_SETTINGS.has(name) ? { secret: true } : {}),
    };
  }
  return out;
}

function primitiveTypes(js: Json): Set<string> {
  const found = new Set<string>();
  const visit = (node: Json) => {
    if (typeof node.type === "string") found.add(node.type);
    if (Array.isArray(node.type)) for (const t of node.type) found.add(String(t));
    for (const key of ["anyOf", "oneOf"] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const v of list) visit(v as Json);
    }
  };
  visit(js);
  return found;
}

// ---------------------------------------------------------------------------------------------
// JSON Schema → Pulumi types

type Json = Record<string, unknown>;

const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => (w[0] as string).toUpperCase() + w.slice(1))
    .join("");

/**
 * The name of an enum member, which the SDK generators turn into each language's identifier:
 * `IN_LIST_STRING` → `InListString` (Python then writes `IN_LIST_STRING`; left to the generators,
 * a screaming-case value came out as `I_N_LIS_T_STRING`), `Pre-Production` → `PreProduction`.
 */
export function enumName(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(
      (w) => (w[0] as string).toUpperCase() + (w === w.toUpperCase() ? w.slice(1).toLowerCase() : w.slice(1)),
    )
    .join("");
}

/** `treatments` → `treatment`, `failureStrategies` → `failureStrategy`; `status` stays. */
export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  return word.endsWith("s") ? word.slice(0, -1) : word;
}

const isAny = (t: TypeSpec): boolean => t.$ref === ANY.$ref;

/** A property name every SDK generator can use as an identifier. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The named types of one package, shared by every resource so equal types are declared once. */
class TypeTable {
  readonly types: Record<string, ObjectTypeSpec | EnumTypeSpec> = {};
  private readonly byShape = new Map<string, string>();

  /**
   * The name of `spec`: an earlier name of the same shape, else `hint` (`<hint>Output` for an
   * output type whose input type of the same place differs); registers it if new.
   */
  add(hint: string, spec: ObjectTypeSpec | EnumTypeSpec, io: "input" | "output"): string {
    const shape = canonicalJson(withoutDocs(spec));
    const known = this.byShape.get(shape);
    if (known !== undefined) {
      merge(this.types[known] as ObjectTypeSpec | EnumTypeSpec, spec);
      return known;
    }
    const base = hint in this.types && io === "output" ? `${hint}Output` : hint;
    let name = base;
    for (let n = 2; name in this.types; n++) name = `${base}${n}`;
    this.types[name] = spec;
    this.byShape.set(shape, name);
    return name;
  }
}

/** The type's shape: no descriptions, defaults or required list (an output's differ from its input's). */
function withoutDocs(spec: ObjectTypeSpec | EnumTypeSpec): unknown {
  if (spec.type === "string") return { enum: spec.enum };
  const properties: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(spec.properties)) {
    const { description: _d, default: _default, ...rest } = p;
    properties[k] = rest;
  }
  return { properties };
}

/** Merges a type of the same shape into a known one: required by both, descriptions and defaults filled in. */
function merge(into: ObjectTypeSpec | EnumTypeSpec, from: ObjectTypeSpec | EnumTypeSpec): void {
  if (into.description === undefined && from.description !== undefined) into.description = from.description;
  if (into.type !== "object" || from.type !== "object") return;
  const both = (into.required ?? []).filter((r) => (from.required ?? []).includes(r));
  if (both.length > 0) into.required = both;
  else delete into.required;
  for (const [k, p] of Object.entries(from.properties)) {
    const target = into.properties[k];
    if (target && target.description === undefined && p.description !== undefined) {
      target.description = p.description;
    }
    if (target && target.default === undefined && p.default !== undefined) target.default = p.default;
  }
}

const typeRef = (name: string): string => `#/types/${PACKAGE}:index:${name}`;

/** Converts one zod-generated JSON Schema (with its `$defs`) into Pulumi types. */
class Converter {
  private readonly defs: Record<string, Json>;
  /** The `$ref`s being expanded: a recursive schema would expand forever. */
  private readonly expanding = new Set<string>();

  constructor(
    private readonly table: TypeTable,
    private readonly root: Json,
    private readonly io: "input" | "output",
  ) {
    this.defs = (root.$defs ?? {}) as Record<string, Json>;
  }

  /** A node with its `$ref` followed (sibling keywords such as `default` kept). */
  private deref(node: Json): Json {
    const ref = node.$ref;
    if (typeof ref !== "string") return node;
    const target = ref === "#" ? this.root : this.defs[ref.replace(/^#\/\$defs\//, "")];
    if (target === undefined) throw new Error(`schema: unresolved $ref ${ref}`);
    const { $ref: _r, ...siblings } = node;
    return Object.keys(siblings).length === 0 ? target : { ...target, ...siblings };
  }

  /**
   * The Pulumi type of `node`. `hint` names a named type made here; `fallback` is the input
   * side's node at the same place, used where this node says nothing (an output transform).
   */
  type(raw: Json, hint: string, docs: DocTree | undefined, fallback?: Json): TypeSpec {
    const ref = raw.$ref;
    if (typeof ref !== "string") return this.expand(raw, hint, docs, fallback);
    // No flagstack schema is recursive (zod emits $defs only for cycles here); say so if one becomes so.
    if (this.expanding.has(ref))
      throw new Error(`schema: ${hint} is recursive, which the generator does not support`);
    this.expanding.add(ref);
    try {
      return this.expand(this.deref(raw), hint, docs, fallback);
    } finally {
      this.expanding.delete(ref);
    }
  }

  private expand(node: Json, hint: string, docs: DocTree | undefined, fallback?: Json): TypeSpec {
    const variants = (node.anyOf ?? node.oneOf) as Json[] | undefined;
    if (Array.isArray(variants)) return this.union(variants, hint, docs, fallback);
    if (Array.isArray(node.type))
      return this.union(
        (node.type as string[]).map((t) => ({ type: t })),
        hint,
        docs,
      );
    if (typeof node.const === "string") return { type: "string" };
    if (typeof node.const === "number") return { type: "number" };
    if (typeof node.const === "boolean") return { type: "boolean" };
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter((v): v is string => typeof v === "string");
      if (values.length !== node.enum.length) return ANY;
      const members = values.map((value) => ({ name: enumName(value), value }));
      return { $ref: typeRef(this.table.add(hint, { type: "string", enum: members }, this.io)) };
    }
    switch (node.type) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
        return { type: node.type };
      case "array":
        return {
          type: "array",
          items: this.type(
            (node.items ?? {}) as Json,
            hint,
            docs,
            fallback && (this.derefFallback(fallback).items as Json | undefined),
          ),
        };
      case "object":
        return this.object(node, hint, docs, fallback && this.derefFallback(fallback));
      case "null":
        return ANY;
      default:
        // `{}`: unknown, or the output of a transform; the input side may know better.
        return fallback !== undefined && Object.keys(this.derefFallback(fallback)).length > 0
          ? this.type(fallback, hint, docs)
          : ANY;
    }
  }

  private derefFallback(node: Json): Json {
    return typeof node.$ref === "string" ? this.deref(node) : node;
  }

  private object(node: Json, hint: string, docs: DocTree | undefined, fallback?: Json): TypeSpec {
    const props = node.properties as Record<string, Json> | undefined;
    if (props === undefined || Object.keys(props).length === 0) {
      const extra = node.additionalProperties;
      if (extra === undefined || extra === true || extra === false)
        return { type: "object", additionalProperties: ANY };
      return { type: "object", additionalProperties: this.type(extra as Json, hint, docs) };
    }
    const spec: ObjectTypeSpec = { type: "object", properties: this.properties(node, hint, docs, fallback) };
    const required = ((node.required ?? []) as string[]).filter((r) => r in spec.properties);
    if (required.length > 0) spec.required = required;
    return { $ref: typeRef(this.table.add(hint, spec, this.io)) };
  }

  /** The properties of an object node: each member's type, description and (primitive) default. */
  properties(
    node: Json,
    hint: string,
    docs: DocTree | undefined,
    fallback?: Json,
  ): Record<string, PropertySpec> {
    const out: Record<string, PropertySpec> = {};
    const fallbackProps = (fallback?.properties ?? {}) as Record<string, Json>;
    for (const [name, raw] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
      // A wire name that is no identifier (the user's `2fa`) would be no property in the SDKs the
      // schema generates (the TypeScript one does not compile); the value still comes back, untyped.
      if (!IDENTIFIER.test(name)) continue;
      const member = docs?.[name];
      const child = this.deref(raw);
      const memberHint = `${hint}${pascal(child.type === "array" ? singular(name) : name)}`;
      const spec: PropertySpec = { ...this.type(raw, memberHint, member?.members, fallbackProps[name]) };
      if (member?.doc) spec.description = member.doc;
      const dflt = child.default;
      if (
        this.io === "input" &&
        (typeof dflt === "string" || typeof dflt === "number" || typeof dflt === "boolean") &&
        (spec.type === "string" ||
          spec.type === "number" ||
          spec.type === "integer" ||
          spec.type === "boolean")
      ) {
        spec.default = dflt;
      }
      out[name] = spec;
    }
    return out;
  }

  private union(variants: Json[], hint: string, docs: DocTree | undefined, fallback?: Json): TypeSpec {
    const fallbackNode = fallback && this.derefFallback(fallback);
    const fallbacks = ((fallbackNode?.anyOf ?? fallbackNode?.oneOf ?? []) as Json[])
      .map((v) => this.deref(v))
      .filter((v) => v.type !== "null");
    const sameShape = fallbacks.length === variants.filter((v) => v.type !== "null").length;
    // A variant that is a transform's output says nothing (`{}`); its input twin stands for it.
    const present = variants
      .map((v) => this.deref(v))
      .filter((v) => v.type !== "null")
      .map((v, i) => (Object.keys(v).length === 0 && sameShape ? (fallbacks[i] as Json) : v));
    if (present.length === 1) return this.type(present[0] as Json, hint, docs, fallbacks[0] ?? fallback);
    const discriminator = discriminatorOf(present);
    if (discriminator !== undefined) {
      const mapping: Record<string, string> = {};
      const oneOf = present.map((variant) => {
        const values = tagValues(variant, discriminator) as string[];
        const twin = fallbacks.find((f) => tagValues(f, discriminator)?.[0] === values[0]);
        const ref = this.object(variant, `${hint}${pascal(values[0] as string)}`, docs, twin).$ref as string;
        for (const value of values) mapping[value] = ref;
        return { $ref: ref };
      });
      return { oneOf, discriminator: { propertyName: discriminator, mapping } };
    }
    const types = present.map((v, i) =>
      this.type(v, `${hint}${i + 1}`, docs, sameShape ? fallbacks[i] : undefined),
    );
    if (types.some(isAny)) return ANY;
    const unique = [...new Map(types.map((t) => [canonicalJson(t), t])).values()];
    return unique.length === 1 ? (unique[0] as TypeSpec) : { oneOf: unique };
  }
}

/** The string values a variant's member `key` may take: its constant, or its enum. */
function tagValues(variant: Json, key: string): string[] | undefined {
  const member = (variant.properties as Record<string, Json> | undefined)?.[key];
  if (typeof member?.const === "string") return [member.const];
  if (Array.isArray(member?.enum) && member.enum.every((v) => typeof v === "string")) return member.enum;
  return undefined;
}

/**
 * The member whose string values (a constant, or an enum) tell the variants apart: a
 * discriminated union's key.
 */
function discriminatorOf(variants: Json[]): string | undefined {
  if (variants.some((v) => v.type !== "object" || v.properties === undefined)) return undefined;
  for (const key of Object.keys(variants[0]?.properties as Record<string, Json>)) {
    const values = variants.map((v) => tagValues(v, key));
    if (values.some((v) => v === undefined)) continue;
    const all = values.flat() as string[];
    if (new Set(all).size === all.length) return key;
  }
  return undefined;
}

const JSON_OPTIONS = { unrepresentable: "any", cycles: "ref", reused: "inline" } as const;

/** The top-level properties of a resource's schema in one direction, converted. */
function topLevel(
  table: TypeTable,
  schema: z.ZodObject,
  io: "input" | "output",
  hint: string,
  docs: DocTree,
): { properties: Record<string, PropertySpec>; required: string[] } {
  const js = z.toJSONSchema(schema, { io, ...JSON_OPTIONS }) as Json;
  const fallback =
    io === "output" ? (z.toJSONSchema(schema, { io: "input", ...JSON_OPTIONS }) as Json) : undefined;
  const converter = new Converter(table, js, io);
  const properties = converter.properties(js, hint, docs, fallback);
  return { properties, required: ((js.required ?? []) as string[]).filter((r) => r in properties) };
}

/** What {@link packageSchema} needs beside the kinds. */
export interface SchemaOptions {
  /** The package version (`package.json`). */
  version: string;
  /** The TSDoc (`./docs.ts`); without it the schema has no descriptions. */
  docs?: SchemaDocs;
  /** The provider settings' zod schema (`ProviderSettings`). */
  settings: z.ZodObject;
  /** The functions (`./functions.ts`). */
  functions?: readonly NativeFunction[];
}

/** The package schema of the native provider, from the kinds' zod schemas. */
export function packageSchema(kinds: readonly NativeKind[], options: SchemaOptions): PackageSchema {
  const table = new TypeTable();
  const resources: Record<string, ResourceSpec> = {};
  for (const kind of kinds) {
    const docs = options.docs?.resources[kind.name] ?? { inputs: {}, outputs: {} };
    const inputs = topLevel(table, kind.inputs, "input", kind.name, docs.inputs);
    // An output documented only where it is an input (an `extend` that narrows a type) keeps that text.
    const outputDocs: DocTree = { ...docs.inputs };
    for (const [k, v] of Object.entries(docs.outputs)) {
      outputDocs[k] = { doc: v.doc ?? docs.inputs[k]?.doc, members: v.members ?? docs.inputs[k]?.members };
    }
    const outputs = topLevel(table, kind.outputs, "output", kind.name, outputDocs);
    for (const name of kind.replaceOnChange) {
      for (const props of [inputs.properties, outputs.properties]) {
        const prop = props[name];
        if (prop) prop.replaceOnChanges = true;
      }
    }
    for (const name of kind.secretOutputs ?? []) {
      const prop = outputs.properties[name];
      if (prop) prop.secret = true;
    }
    // A secret input (a `Secret`'s value): the generated SDKs wrap it with `secret()`; YAML does not
    // read the schema for that, so `Check` marks it too (`./server.ts` `withSecretInputs`).
    for (const name of kind.secretInputs ?? []) {
      const prop = inputs.properties[name];
      if (prop) prop.secret = true;
    }
    resources[kind.token] = {
      ...(docs.description ? { description: docs.description } : {}),
      properties: outputs.properties,
      required: outputs.required,
      inputProperties: inputs.properties,
      requiredInputs: inputs.required,
    };
  }
  const functions: Record<string, FunctionSpec> = {};
  for (const f of options.functions ?? []) {
    const docs = options.docs?.functions?.[f.name] ?? { args: {}, result: {} };
    const hint = pascal(f.name);
    const args = topLevel(table, f.args, "input", hint, docs.args);
    const result = topLevel(table, f.result, "output", hint, docs.result);
    const part = (p: { properties: Record<string, PropertySpec>; required: string[] }) => ({
      properties: p.properties,
      ...(p.required.length > 0 ? { required: p.required } : {}),
    });
    functions[f.token] = {
      ...(docs.description ? { description: docs.description } : {}),
      inputs: part(args),
      outputs: part(result),
    };
  }
  const config = configProperties(options.settings);
  const types: PackageSchema["types"] = {};
  for (const name of Object.keys(table.types).sort()) {
    types[`${PACKAGE}:index:${name}`] = table.types[name] as ObjectTypeSpec | EnumTypeSpec;
  }
  return {
    name: PACKAGE,
    displayName: "flagstack",
    version: options.version,
    description:
      "Feature flags and delivery pipelines as code: flags, their per-environment targeting, groups, invited users, and platform projects, connectors and pipelines.",
    license: "Apache-2.0",
    keywords: ["pulumi", "flagstack", "feature-flags", "category/utility"],
    config: { variables: config },
    provider: {
      description:
        "The flagstack provider. Its settings are the stack config `flagstack:<name>`, each with an environment-variable fallback (`FLAGSTACK_ADMIN_API_URL`, ...); an explicit provider instance takes them as inputs, so one program can manage several accounts.",
      inputProperties: config,
    },
    resources,
    functions,
    types,
    language: {
      nodejs: { packageName: "@flagstack/pulumi", respectSchemaVersion: true },
      // The wheel `npm run release` builds requires the Pulumi SDK the provider is built and tested with.
      python: {
        packageName: "pulumi_flagstack",
        respectSchemaVersion: true,
        requires: { pulumi: ">=3.259.0,<4.0.0" },
      },
      // The Go SDK's import path: the module `npm run release` writes (github.com/flagstack/flagstack/sdk).
      go: { importBasePath: "github.com/flagstack/flagstack/sdk/go/flagstack", respectSchemaVersion: true },
    },
  };
}
