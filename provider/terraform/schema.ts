/**
 * The Terraform schema of every kind, derived from the list of kinds (`../kinds.ts`): one resource
 * type per kind, `flagstack_<snake name>` (`Flag` → `flagstack_flag`), one attribute per input and
 * output in snake_case (`trafficType` → `traffic_type`), plus the computed `id`.
 *
 * What each attribute is comes from the kind's definition:
 * - required: an input the zod inputs schema requires; optional and computed: any other input (left
 *   out, the service's value is kept and shown, as in Pulumi), but one only the program holds
 *   (`programInputs`: a change's `title`, `change_request`, `wait_for_approval`), which is optional
 *   alone; computed: an output that is no input;
 * - sensitive: the kind's `secretInputs` and `secretOutputs`;
 * - replace on change: the kind's `replaceOnChange` (Terraform learns it per plan, from the kind's
 *   `diff`: `./server.ts`);
 * - types and descriptions: the kind's Pulumi package schema (`provider-plugin/schema.json`), which
 *   `npm run schema` generates from the same zod schemas and their TSDoc (`../native/schema.ts`,
 *   `../native/docs.ts`; its test fails when it is stale), so the TSDoc is read without the compiler
 *   at run time.
 *
 * Pulumi types → Terraform types: string and enums → `string`; number, integer → `number`; boolean →
 * `bool`; array → list; a map (`additionalProperties`) → map; a named object type → a nested
 * attribute (protocol 6 `nested_type`: single, list or map of objects, each member required or
 * optional by the type's `required`); a union of object types → one nested object with the members
 * of every variant, all optional; any other union, `Any`, and a type that refers to itself →
 * `dynamic` (OpenTofu decides its type from the value).
 * @module
 */
import type { Kind } from "../core/kind";
import { readPackageFile } from "../core/package-file";

// ---------------------------------------------------------------------------------------------
// The type tree both the schema and the value conversion read

/** A Terraform type, with each object member's Terraform and provider names. */
export type TfType =
  | { kind: "string" | "number" | "bool" | "dynamic" }
  | { kind: "list" | "map"; element: TfType }
  | { kind: "object"; attributes: TfAttribute[] };

/** One attribute of a resource or of a nested object. */
export interface TfAttribute {
  /** The Terraform name: `traffic_type`. */
  name: string;
  /** The provider's (zod schema's) name: `trafficType`. */
  key: string;
  type: TfType;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  description?: string;
}

/** A kind as a Terraform resource type. */
export interface TfResource {
  /** `flagstack_flag`. */
  typeName: string;
  kind: Kind;
  description?: string;
  /** The schema version (state upgrades start from 0). */
  version: number;
  /** The attributes, `id` first. */
  attributes: TfAttribute[];
}

/** The provider name that prefixes every resource type. */
export const PROVIDER_NAME = "flagstack";

/** `trafficType` → `traffic_type`, `FlagDefinition` → `flag_definition`, `apiKeyId` → `api_key_id`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

/** The Terraform resource type name of a kind: `flagstack_flag_definition`. */
export const resourceTypeName = (kindName: string): string => `${PROVIDER_NAME}_${snakeCase(kindName)}`;

// ---------------------------------------------------------------------------------------------
// The Pulumi package schema (the parts read here)

interface PulumiType {
  type?: string;
  items?: PulumiType;
  additionalProperties?: PulumiType;
  $ref?: string;
  oneOf?: PulumiType[];
  description?: string;
  properties?: Record<string, PulumiType>;
  required?: string[];
  enum?: unknown[];
}

interface PulumiResource {
  description?: string;
  properties: Record<string, PulumiType>;
  required?: string[];
  inputProperties: Record<string, PulumiType>;
  requiredInputs?: string[];
}

interface PulumiFunction {
  description?: string;
  inputs: { properties: Record<string, PulumiType>; required?: string[] };
  outputs: { properties: Record<string, PulumiType>; required?: string[] };
}

/** What this module reads of the package schema. */
export interface PackageSchemaPart {
  resources: Record<string, PulumiResource>;
  functions?: Record<string, PulumiFunction>;
  types: Record<string, PulumiType>;
  config: { variables: Record<string, PulumiType> };
}

/**
 * The committed package schema (`provider-plugin/schema.json`), from the copy the provider binary
 * carries, the source tree or a build (`../core/package-file.ts`).
 */
export function readPackageSchema(from: string = __dirname): PackageSchemaPart {
  const text = readPackageFile("provider-plugin/schema.json", from);
  if (text === undefined) throw new Error(`terraform: no provider-plugin/schema.json above ${from}`);
  return JSON.parse(text) as PackageSchemaPart;
}

const TYPE_PREFIX = "#/types/";

/** Converts Pulumi types to Terraform types, following `$ref`s into the package's named types. */
class Converter {
  private readonly expanding = new Set<string>();
  constructor(private readonly schema: PackageSchemaPart) {}

  private named(ref: string): PulumiType | undefined {
    return ref.startsWith(TYPE_PREFIX) ? this.schema.types[ref.slice(TYPE_PREFIX.length)] : undefined;
  }

  type(t: PulumiType, computed: boolean): TfType {
    if (t.$ref !== undefined) {
      const target = this.named(t.$ref);
      if (target === undefined || this.expanding.has(t.$ref)) return { kind: "dynamic" };
      this.expanding.add(t.$ref);
      try {
        return this.type(target, computed);
      } finally {
        this.expanding.delete(t.$ref);
      }
    }
    if (t.oneOf !== undefined) {
      const variants = t.oneOf.map((v) => (v.$ref ? this.named(v.$ref) : v));
      if (variants.every((v) => v?.type === "object" && v.properties !== undefined)) {
        // One object with every variant's members, each optional: the variant is what is given.
        const properties: Record<string, PulumiType> = {};
        for (const v of variants) Object.assign(properties, v?.properties);
        return this.type({ type: "object", properties, required: [] }, computed);
      }
      return { kind: "dynamic" };
    }
    switch (t.type) {
      case "string":
        return { kind: "string" };
      case "number":
      case "integer":
        return { kind: "number" };
      case "boolean":
        return { kind: "bool" };
      case "array":
        return { kind: "list", element: t.items ? this.type(t.items, computed) : { kind: "dynamic" } };
      case "object":
        if (t.properties !== undefined) return this.object(t, computed);
        return {
          kind: "map",
          element: t.additionalProperties ? this.type(t.additionalProperties, computed) : { kind: "dynamic" },
        };
      default:
        return { kind: "dynamic" };
    }
  }

  private object(t: PulumiType, computed: boolean): TfType {
    const required = new Set(t.required ?? []);
    const attributes = Object.entries(t.properties ?? {}).map(([key, p]) =>
      attribute(key, this.type(p, computed), {
        required: !computed && required.has(key),
        optional: !computed && !required.has(key),
        computed,
        sensitive: false,
        ...(p.description ? { description: p.description } : {}),
      }),
    );
    return { kind: "object", attributes };
  }
}

function attribute(
  key: string,
  type: TfType,
  flags: Omit<TfAttribute, "name" | "key" | "type">,
): TfAttribute {
  return { name: snakeCase(key), key, type, ...flags };
}

/**
 * The Terraform resource of a kind: its inputs (required, or optional and computed), its outputs
 * that are no input (computed), and `id`, from the kind's entry of the package schema.
 */
export function resourceSchema(kind: Kind, schema: PackageSchemaPart): TfResource {
  const spec = schema.resources[kind.nativeToken];
  if (spec === undefined) throw new Error(`terraform: the package schema has no ${kind.nativeToken}`);
  const convert = new Converter(schema);
  const required = new Set(spec.requiredInputs ?? []);
  const secret = new Set([...kind.secretInputs, ...kind.secretOutputs]);
  const attributes: TfAttribute[] = [
    attribute(
      "id",
      { kind: "string" },
      {
        required: false,
        optional: false,
        computed: true,
        sensitive: false,
        description: "The object's id, as the provider's verbs take it.",
      },
    ),
  ];
  const inputs = Object.keys(kind.resource.inputs.shape);
  // What only the program holds (a change request's settings) is no service value to keep when
  // the configuration leaves it out: optional, not computed.
  const programOnly = new Set<string>(kind.impl.programInputs ?? []);
  for (const key of inputs) {
    const p = spec.inputProperties[key] ?? {};
    const isRequired = required.has(key);
    attributes.push(
      attribute(key, convert.type(p, false), {
        required: isRequired,
        optional: !isRequired,
        computed: !isRequired && !programOnly.has(key),
        sensitive: secret.has(key),
        ...(p.description ? { description: p.description } : {}),
      }),
    );
  }
  for (const key of Object.keys(kind.resource.outputs.shape)) {
    if (inputs.includes(key)) continue;
    const p = spec.properties[key] ?? {};
    attributes.push(
      attribute(key, convert.type(p, true), {
        required: false,
        optional: false,
        computed: true,
        sensitive: secret.has(key),
        ...(p.description ? { description: p.description } : {}),
      }),
    );
  }
  const names = new Set<string>();
  for (const a of attributes) {
    if (names.has(a.name)) throw new Error(`terraform: ${kind.name} has two attributes named ${a.name}`);
    names.add(a.name);
  }
  return {
    typeName: resourceTypeName(kind.name),
    kind,
    ...(spec.description ? { description: spec.description } : {}),
    version: 0,
    attributes,
  };
}

/** A lookup as a Terraform data source. */
export interface TfDataSource {
  /** `flagstack_workspace` for `getWorkspace`. */
  typeName: string;
  /** The lookup's native token, `flagstack:index:getWorkspace`. */
  token: string;
  description?: string;
  /** Its arguments (required or optional) and its result's members (computed). */
  attributes: TfAttribute[];
}

/** The data source name of a lookup: `getWorkspace` → `flagstack_workspace`. */
export const dataSourceTypeName = (lookupName: string): string =>
  `${PROVIDER_NAME}_${snakeCase(lookupName.replace(/^get/, ""))}`;

/**
 * The Terraform data source of a lookup (`provider/native/functions.ts`): each argument required or
 * optional (and computed: the result may fill it) as the lookup's zod arguments say, each member
 * of its result computed; types and descriptions from the package schema's function.
 */
export function dataSourceSchema(
  lookup: { name: string; token: string },
  schema: PackageSchemaPart,
): TfDataSource {
  const spec = schema.functions?.[lookup.token];
  if (spec === undefined) throw new Error(`terraform: the package schema has no function ${lookup.token}`);
  const convert = new Converter(schema);
  const required = new Set(spec.inputs.required ?? []);
  const attributes: TfAttribute[] = [];
  for (const [key, p] of Object.entries(spec.inputs.properties)) {
    const isRequired = required.has(key);
    attributes.push(
      attribute(key, convert.type(p, false), {
        required: isRequired,
        optional: !isRequired,
        computed: !isRequired && key in spec.outputs.properties,
        sensitive: false,
        ...(p.description ? { description: p.description } : {}),
      }),
    );
  }
  for (const [key, p] of Object.entries(spec.outputs.properties)) {
    if (key in spec.inputs.properties) continue;
    attributes.push(
      attribute(key, convert.type(p, true), {
        required: false,
        optional: false,
        computed: true,
        sensitive: false,
        ...(p.description ? { description: p.description } : {}),
      }),
    );
  }
  return {
    typeName: dataSourceTypeName(lookup.name),
    token: lookup.token,
    ...(spec.description ? { description: spec.description } : {}),
    attributes,
  };
}

/**
 * The provider's configuration block: each setting of `provider/core/config.ts` in snake_case
 * (`admin_api_url`, ...), optional (each has its environment-variable fallback), the credentials
 * sensitive; types and descriptions from the package schema's configuration.
 */
export function providerConfigSchema(schema: PackageSchemaPart, settings: readonly string[]): TfAttribute[] {
  const convert = new Converter(schema);
  return settings.map((key) => {
    const p = schema.config.variables[key] ?? { type: "string" };
    return attribute(key, convert.type(p, false), {
      required: false,
      optional: true,
      computed: false,
      sensitive: /Key$/.test(key),
      ...(p.description ? { description: p.description } : {}),
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The protocol's Schema message

/** The type constraint's JSON (`"string"`, `["list","string"]`, `["object",{...}]`). */
export function typeJson(t: TfType): unknown {
  switch (t.kind) {
    case "list":
    case "map":
      return [t.kind, typeJson(t.element)];
    case "object":
      return ["object", Object.fromEntries(t.attributes.map((a) => [a.name, typeJson(a.type)]))];
    default:
      return t.kind;
  }
}

/** `Schema.Object.NestingMode`. */
const NESTING = { SINGLE: 1, LIST: 2, MAP: 4 } as const;

/** A `Schema.Attribute` message: a nested attribute for objects, a type constraint otherwise. */
export function attributeMessage(a: TfAttribute): Record<string, unknown> {
  const base = {
    name: a.name,
    description: a.description ?? "",
    description_kind: 1,
    required: a.required,
    optional: a.optional,
    computed: a.computed,
    sensitive: a.sensitive,
  };
  const nested = nestedObject(a.type);
  if (nested !== undefined) return { ...base, nested_type: nested };
  return { ...base, type: Buffer.from(JSON.stringify(typeJson(a.type))) };
}

function nestedObject(t: TfType): Record<string, unknown> | undefined {
  const object = (o: TfType, nesting: number) =>
    o.kind === "object" ? { attributes: o.attributes.map(attributeMessage), nesting } : undefined;
  if (t.kind === "object") return object(t, NESTING.SINGLE);
  if (t.kind === "list") return object(t.element, NESTING.LIST);
  if (t.kind === "map") return object(t.element, NESTING.MAP);
  return undefined;
}

/** A `Schema` message of a block of attributes. */
export function schemaMessage(attributes: readonly TfAttribute[], version: number, description?: string) {
  return {
    version,
    block: {
      version,
      attributes: attributes.map(attributeMessage),
      description: description ?? "",
      description_kind: 1,
    },
  };
}
