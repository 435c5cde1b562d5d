/**
 * The one place where policies read resources, and they read them through the provider: the
 * `props` of a flagstack resource go through the resource's own `check` (`provider/kinds.ts`: its
 * zod input schema, its defaults, its normalisation and its whole-document rules), and each reader
 * turns the checked inputs into a small view. No input name, shape or default of the provider is
 * repeated here, so a change to a provider input changes what the policies see with it.
 *
 * What the engine hands a policy: a resource policy gets the resource's checked inputs (what the
 * provider's `check` returned), a stack policy gets each resource's state, which is the checked
 * inputs during a preview and the outputs after an update (the outputs schemas extend the inputs
 * schemas, so the inputs are picked out of them). Checking the checked inputs again changes
 * nothing: `check` is idempotent.
 *
 * Values unknown during a preview: the engine's `props` throw an `UnknownValueError` when an unknown
 * value is read, and the engine reports "can't run policy ... during preview" for it. The readers
 * copy the props first, each unknown value replaced by the provider's `UNKNOWN` sentinel, which its
 * `check` tolerates, then read the field they need; when that field holds an unknown value they
 * read it through the engine's `props` again, so the engine gets its own error and reports it
 * instead of the policy guessing. A definition is only judged with every input known, since the
 * provider's `check` decides a document's whole-document rules only then.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { containsUnknown, issuesToFailures, PROVIDER_KEY, UNKNOWN } from "../provider/core/check";
import type { Kind } from "../provider/core/kind";
import { ApiKeyInputs, kind as apiKeyKind } from "../provider/flags/api-key";
import { EnvironmentInputs, kind as environmentKind } from "../provider/flags/environment";
import { FlagInputs, kind as flagKind } from "../provider/flags/flag";
import { desiredDoc, FlagDefinitionInputs, FlagDefinitionOutputs } from "../provider/flags/flag-definition";
import { definitionsByEnvironment } from "../provider/flags/flag-definitions";
import { SegmentKeysInputs } from "../provider/flags/segment-keys";
import { KIND_LIST, KINDS } from "../provider/kinds";
import { ConnectorInputs, ConnectorOutputs, SPEC_FIELDS, wireSpec } from "../provider/platform/connector";
import {
  DeliveryEnvironmentInputs,
  kind as deliveryEnvironmentKind,
} from "../provider/platform/delivery-environment";
import { PipelineInputs } from "../provider/platform/pipeline";
import { ProjectInputs, kind as projectKind } from "../provider/platform/project";
import { ServiceInputs } from "../provider/platform/service";
import { TriggerInputs, kind as triggerKind } from "../provider/platform/trigger";
import {
  API_KEY_TYPE,
  CONNECTOR_TYPE,
  DELIVERY_ENVIRONMENT_TYPE,
  ENVIRONMENT_TYPE,
  FLAG_DEFINITION_TYPE,
  FLAG_DEFINITIONS_TYPE,
  FLAG_TYPE,
  PIPELINE_TYPE,
  PROJECT_TYPE,
  SEGMENT_KEYS_TYPE,
  SERVICE_TYPE,
  TRIGGER_TYPE,
} from "../provider/types";
import { DefinitionBody } from "../sdk/admin/schemas";
import {
  loadYaml,
  type PipelineView,
  pipelineViewOfModel,
  pipelineViewOfYaml,
} from "../sdk/platform/pipeline";

export { PipelineView, StageView, StepView } from "../sdk/platform/pipeline";

/**
 * Type tokens the views apply to (dynamic resources match on `type`, never on a class). Each kind
 * has two: the dynamic resources' (these) and the native provider's (`flagstack:index:Flag`, from
 * programs in any language); {@link isType} accepts both.
 */
export const TYPES = {
  flag: FLAG_TYPE,
  definition: FLAG_DEFINITION_TYPE,
  /** A flag's definitions in several environments: read as one definition per environment ({@link readDefinitions}). */
  definitions: FLAG_DEFINITIONS_TYPE,
  pipeline: PIPELINE_TYPE,
  connector: CONNECTOR_TYPE,
  project: PROJECT_TYPE,
  segmentKeys: SEGMENT_KEYS_TYPE,
  environment: ENVIRONMENT_TYPE,
  apiKey: API_KEY_TYPE,
  service: SERVICE_TYPE,
  deliveryEnvironment: DELIVERY_ENVIRONMENT_TYPE,
  trigger: TRIGGER_TYPE,
} as const;

type Props = Record<string, unknown>;

/** The native token of each kind, to the dynamic one (the key of `KINDS` and {@link TYPES}). */
const FROM_NATIVE: ReadonlyMap<string, string> = new Map(KIND_LIST.map((k) => [k.nativeToken, k.token]));

/** The dynamic token of a type token of either family; another type is returned as it is. */
export const dynamicToken = (type: string): string => FROM_NATIVE.get(type) ?? type;

/** Whether `type` (either family) is the kind `kind` (a {@link TYPES} value). */
export const isType = (type: string, kind: string): boolean => dynamicToken(type) === kind;

const isRecord = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * True for the error `@pulumi/policy` throws when a policy reads a value that is unknown during a
 * preview (`UnknownValueError`, matched by shape: the pack and the engine may load different
 * copies of the module).
 */
export const isUnknownValueError = (e: unknown): e is Error =>
  e instanceof Error && "unknownTypeSentinel" in e;

/**
 * An input unknown during a preview, read from props that are not the engine's (a tool calling the
 * readers with plain data holding the `UNKNOWN` sentinel). Shaped like the engine's
 * `UnknownValueError`, so {@link isUnknownValueError} recognises it.
 */
export class UnknownInputError extends Error {
  /** The sentinel found, as on the engine's error. */
  readonly unknownTypeSentinel = UNKNOWN;
  constructor(
    /** The path of the unknown value. */
    readonly props: readonly PropertyKey[],
    /** The resource holding it, when its props were named ({@link nameProps}). */
    readonly address?: string,
  ) {
    super(`value at .${props.map(String).join(".")} can't be known during preview`);
  }
}

/** The resources of plain props handed to the readers, by props object ({@link nameProps}). */
const propsAddresses = new WeakMap<object, string>();

/**
 * Names plain props by their resource's address, so the {@link UnknownInputError} of a value unknown
 * in them names the resource (a stack policy reads many): the Terraform plan checker names each
 * resource's props. Returns the props.
 */
export function nameProps<P extends Props>(props: P, address: string): P {
  propsAddresses.set(props, address);
  return props;
}

/**
 * The props as plain data: every value read through the engine's props one property at a time
 * (never by spreading them, which would read every value at once), a value unknown during a
 * preview replaced by `UNKNOWN`, `__provider` left out.
 */
export function plainProps(props: Props): Props {
  const read = (from: object, key: PropertyKey): unknown => {
    try {
      return copy((from as Record<PropertyKey, unknown>)[key]);
    } catch (e) {
      if (isUnknownValueError(e)) return UNKNOWN;
      throw e;
    }
  };
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return Array.from({ length: value.length }, (_, i) => read(value, i));
    if (isRecord(value)) return Object.fromEntries(Object.keys(value).map((k) => [k, read(value, k)]));
    return value;
  };
  const out: Props = {};
  for (const key of Object.keys(props)) if (key !== PROVIDER_KEY) out[key] = read(props, key);
  return out;
}

/**
 * Throws the engine's error for the unknown value held at `props[key]`: reads it through the
 * engine's props, every nested value included, so the engine's proxy throws its own
 * `UnknownValueError` (which the engine reports); plain props throw an {@link UnknownInputError}.
 */
function rethrowUnknown(props: Props, key: string): never {
  const touch = (value: unknown) => {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) touch(value[i]);
    else if (isRecord(value)) for (const k of Object.keys(value)) touch(value[k]);
  };
  touch(props[key]);
  throw new UnknownInputError([key], propsAddresses.get(props));
}

/** What the provider's `check` makes of a resource's props. */
export interface Checked<T> {
  /** The props as plain data (see {@link plainProps}): the outputs too when a stack policy reads them. */
  props: Props;
  /** The inputs among the props, as given to the provider's `check`. */
  given: Props;
  /**
   * The checked value of each input that passed its schema: the provider's defaults applied and its
   * normalisation done. When the provider accepts the inputs, exactly the inputs it creates the
   * resource from.
   */
  inputs: Partial<T>;
  /** Inputs the provider's schema refuses, with the value given (its `check` reports them). */
  refused: Partial<Record<keyof T, unknown>>;
  /** Inputs that hold a value unknown during a preview. */
  unknown: (keyof T & string)[];
  /** The provider's check failures: none when it accepts the inputs. */
  failures: pulumi.dynamic.CheckFailure[];
  /** True when the provider's check accepts the inputs, every value known. */
  valid: boolean;
}

/**
 * Runs a resource's props through its provider's `check` (`KINDS[type]`, whose `check` is pure:
 * no request), with its input schema `schema` naming the inputs among the props.
 */
export async function checkProps<S extends z.ZodObject>(
  type: string,
  schema: S,
  props: Props,
): Promise<Checked<z.output<S>>> {
  type T = z.output<S>;
  const handlers = KINDS[dynamicToken(type)];
  if (!handlers) throw new Error(`no flagstack resource has the type ${type}`);
  const plain = plainProps(props);
  const shape = schema.shape as Record<string, z.ZodType>;
  const given: Props = {};
  for (const key of Object.keys(shape)) if (key in plain) given[key] = plain[key];
  const result = (await handlers.check({}, given)) as pulumi.dynamic.CheckResult<T>;
  const failures = [...(result.failures ?? [])];
  const unknown = Object.keys(shape).filter((k) => containsUnknown(given[k])) as (keyof T & string)[];
  if (failures.length === 0 && unknown.length === 0) {
    const inputs: Partial<T> = result.inputs ?? {};
    return { props: plain, given, inputs, refused: {}, unknown, failures, valid: true };
  }
  // The provider's check hands back what it was given when a field fails, so the fields are read
  // one by one, each with its own schema (its default applies), as its check reads them when a
  // value is unknown.
  const inputs: Props = {};
  const refused: Props = {};
  for (const [key, field] of Object.entries(shape)) {
    if (containsUnknown(given[key])) continue;
    const parsed = field.safeParse(given[key]);
    if (!parsed.success) refused[key] = given[key];
    else if (parsed.data !== undefined) inputs[key] = parsed.data;
  }
  return {
    props: plain,
    given,
    inputs: inputs as Partial<T>,
    refused: refused as Partial<Record<keyof T, unknown>>,
    unknown,
    failures,
    valid: false,
  };
}

/**
 * The checked value of the input `key`, or undefined when it is absent or refused; throws the
 * engine's error when it is unknown during a preview.
 */
function need<T, K extends keyof T & string>(props: Props, c: Checked<T>, key: K): T[K] | undefined {
  if (c.unknown.includes(key)) rethrowUnknown(props, key);
  return c.inputs[key];
}

/** The value given for a refused input when it is text (a policy may judge it anyway). */
const refusedText = <T>(c: Checked<T>, key: keyof T): string | undefined => {
  const v = c.refused[key];
  return typeof v === "string" ? v : undefined;
};

/**
 * The checked value of a text input, or the value given when the provider refuses it (a policy names
 * the resource by it in messages; the provider's check reports the refusal).
 */
const textOf = <T, K extends keyof T & string>(props: Props, c: Checked<T>, key: K) =>
  need(props, c, key) ?? refusedText(c, key);

/** An output-only field of a resource's state, by its outputs schema; undefined when absent or unknown. */
function output<S extends z.ZodObject, K extends keyof S["shape"] & string>(
  schema: S,
  plain: Props,
  key: K,
): z.output<S["shape"][K]> | undefined {
  const value = plain[key];
  if (value === undefined || containsUnknown(value)) return undefined;
  const parsed = (schema.shape[key] as z.ZodType).safeParse(value);
  return parsed.success ? (parsed.data as z.output<S["shape"][K]>) : undefined;
}

// ---------------------------------------------------------------------------------------------
// The views of kinds whose definition lists the fields a policy reads (`policy`)

/**
 * The view of a kind whose definition names the inputs policies read (`policy` in its
 * `defineKind`): those inputs of its schema (`schema`, the kind's own inputs schema, for the
 * types), each optional (a preview may not know it, a refused one may be absent). Typed as the
 * kind's whole inputs, partial; only the listed ones are read.
 */
function kindView<S extends z.ZodObject>(schema: S, kind: Kind) {
  if (schema !== kind.resource.inputs) throw new Error(`policy view of ${kind.name}: not its inputs schema`);
  const mask = Object.fromEntries((kind.policy ?? []).map((f) => [f, true as const]));
  return (schema as z.ZodObject)
    .pick(mask as Record<string, true> & Record<number, never>)
    .partial() as unknown as z.ZodObject<{
    [F in keyof S["shape"]]: z.ZodOptional<S["shape"][F]>;
  }>;
}

/** Whether a field's schema takes text (an optional or defaulted string included). */
function takesText(field: z.ZodType): boolean {
  let f: z.ZodType = field;
  for (;;) {
    const def = f.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (def.type === "string") return true;
    const inner = def.innerType ?? def.in;
    if (inner === undefined) return false;
    f = inner;
  }
}

/**
 * The reader of a kind's view: the props through the kind's `check`, then each listed input as
 * checked; a text input the provider refuses is read as given, so a message can name it.
 */
function kindReader<V extends z.ZodObject>(kind: Kind, _view: V): (props: Props) => Promise<z.output<V>> {
  const shape = kind.resource.inputs.shape as Record<string, z.ZodType>;
  return async (props) => {
    const c = await checkProps(kind.token, kind.resource.inputs, props);
    const read = (f: string) => (takesText(shape[f]!) ? textOf(props, c, f) : need(props, c, f));
    return Object.fromEntries((kind.policy ?? []).map((f) => [f, read(f)])) as z.output<V>;
  };
}

// ---------------------------------------------------------------------------------------------
// Flags

/** What the policies read of a Flag: its checked inputs. */
export const FlagView = kindView(FlagInputs, flagKind);
export type FlagView = z.output<typeof FlagView>;

/** Reads a Flag: the fields of its definition's `policy`. */
export const readFlag = kindReader(flagKind, FlagView);

// ---------------------------------------------------------------------------------------------
// Flag definitions

/** What the policies read of a FlagDefinition: its checked inputs, and the document they make. */
export const DefinitionView = z.object({
  /** The flag's name. */
  flagName: FlagDefinitionInputs.shape.flag.optional(),
  /** The environment as given (name or id). */
  environment: FlagDefinitionInputs.shape.environment.optional(),
  /**
   * Every name the environment goes by: as given and, in a stack's outputs, its resolved name and
   * id, so that configured lists match any of them.
   */
  environmentNames: z.array(z.string()),
  workspace: FlagDefinitionInputs.shape.workspace.optional(),
  /** The flag's traffic type, known from the outputs only. */
  trafficType: FlagDefinitionOutputs.shape.trafficType.optional(),
  killed: z.boolean(),
  comment: FlagDefinitionInputs.shape.comment,
  /**
   * The document the provider sends (`desiredDoc`, with `killed`) when its check accepts the
   * inputs; undefined for a definition it refuses.
   */
  document: DefinitionBody.optional(),
  /**
   * Every problem the provider's check finds, as `property: reason` lines, the value given quoted
   * after a field's reason when it is text or a number: empty when the definition is well formed.
   */
  problems: z.array(z.string()),
});
export type DefinitionView = z.output<typeof DefinitionView>;

/** The `property: reason` lines of a refused definition (see {@link DefinitionView}'s `problems`). */
function definitionProblems(c: Checked<FlagDefinitionInputs>): string[] {
  const parsed = FlagDefinitionInputs.safeParse(c.given, { reportInput: true });
  // Every field passed its schema: the failures are the whole-document rules, which name values.
  if (parsed.success) return c.failures.map((f) => `${f.property}: ${f.reason}`);
  return parsed.error.issues.flatMap((issue) => {
    const got =
      typeof issue.input === "string" || typeof issue.input === "number"
        ? ` (got ${JSON.stringify(issue.input)})`
        : "";
    return issuesToFailures([issue]).map((f) => `${f.property || "definition"}: ${f.reason}${got}`);
  });
}

/**
 * Reads a FlagDefinition. Its document is only judged with every input known (the provider's check
 * skips the whole-document rules otherwise), so an input unknown during a preview throws the
 * engine's error for it. The workspace, flag and environment the provider refuses are still read
 * as given, to name the definition in messages.
 */
export async function readDefinition(props: Props): Promise<DefinitionView> {
  const c = await checkProps(FLAG_DEFINITION_TYPE, FlagDefinitionInputs, props);
  const [unknown] = c.unknown;
  if (unknown !== undefined) rethrowUnknown(props, unknown);
  const i = c.inputs;
  const environment = i.environment ?? refusedText(c, "environment");
  const resolved = [
    output(FlagDefinitionOutputs, c.props, "environmentName"),
    output(FlagDefinitionOutputs, c.props, "environmentId"),
  ];
  return {
    flagName: i.flag ?? refusedText(c, "flag"),
    environment,
    environmentNames: [...new Set([environment, ...resolved].filter((n): n is string => n !== undefined))],
    workspace: i.workspace ?? refusedText(c, "workspace"),
    trafficType: output(FlagDefinitionOutputs, c.props, "trafficType"),
    killed: i.killed === true,
    comment: i.comment,
    document: c.valid
      ? DefinitionBody.parse({
          ...desiredDoc(i as FlagDefinitionInputs),
          killed: (i as FlagDefinitionInputs).killed,
        })
      : undefined,
    problems: c.valid ? [] : definitionProblems(c),
  };
}

/** Whether `type` (either family) holds flag definitions: a FlagDefinition, or a FlagDefinitions (one per environment). */
export const holdsDefinitions = (type: string): boolean =>
  isType(type, TYPES.definition) || isType(type, TYPES.definitions);

/**
 * The FlagDefinition props of each environment of a FlagDefinitions' props, as plain data, keyed
 * by environment (`definitionsByEnvironment`, the provider's own split). A value unknown during a
 * preview anywhere in `definitions` throws the engine's error for it, as an unknown input of a
 * FlagDefinition does: the map is judged whole or not at all.
 */
export function definitionPropsOf(props: Props): Map<string, Props> {
  const plain = plainProps(props);
  if (containsUnknown(plain.definitions)) rethrowUnknown(props, "definitions");
  const address = propsAddresses.get(props);
  const out = definitionsByEnvironment(plain);
  if (address !== undefined) for (const p of out.values()) nameProps(p, address);
  return out;
}

/**
 * Reads every flag definition a resource holds: a FlagDefinition's one, or a FlagDefinitions' one
 * per environment, each read as the FlagDefinition it is ({@link readDefinition}); none for another kind.
 */
export async function readDefinitions(target: { type: string; props: Props }): Promise<DefinitionView[]> {
  if (isType(target.type, TYPES.definition)) return [await readDefinition(target.props)];
  if (!isType(target.type, TYPES.definitions)) return [];
  return Promise.all([...definitionPropsOf(target.props).values()].map(readDefinition));
}

// ---------------------------------------------------------------------------------------------
// Pipelines: read by the pipeline package's tolerant walker (`sdk/platform/pipeline/walk.ts`), so
// no pipeline grammar is copied here.

/**
 * Reads a Pipeline: its checked model (`pipeline`, every default of the model applied, a step's
 * timeout included) or its YAML text (`yaml`). A pipeline the provider refuses is still read as
 * given, by the tolerant walker: the policies report what they find in it too.
 * @throws Error when the YAML does not parse (the provider's check reports it with its position).
 */
export async function readPipeline(props: Props): Promise<PipelineView | undefined> {
  const c = await checkProps(PIPELINE_TYPE, PipelineInputs, props);
  const model = need(props, c, "pipeline") ?? c.refused.pipeline;
  if (isRecord(model)) return pipelineViewOfModel(model);
  const yaml = need(props, c, "yaml") ?? c.refused.yaml;
  return typeof yaml === "string" ? pipelineViewOfYaml(yaml) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Connectors and projects

/** What the policies read of a Connector: its scope, and its type and auth as the provider sends them. */
export const ConnectorView = ConnectorInputs.pick({ identifier: true, org: true, project: true })
  .partial()
  .extend({
    /** The connector type sent (`DockerRegistry`, or `generic.type`). */
    type: ConnectorOutputs.shape.type.optional(),
    /** `spec.auth.type` of the spec sent: Anonymous, UsernamePassword, ... */
    authType: z.string().optional(),
  });
export type ConnectorView = z.output<typeof ConnectorView>;

/** Reads a Connector: the type and spec are the provider's wire form of its checked inputs (`wireSpec`). */
export async function readConnector(props: Props): Promise<ConnectorView> {
  const c = await checkProps(CONNECTOR_TYPE, ConnectorInputs, props);
  // Every spec input (the typed kinds and `generic`), so a typed kind's auth is read as it is sent.
  const specs = Object.fromEntries(SPEC_FIELDS.map((f) => [f, need(props, c, f)]));
  const given = Object.values(specs).some((v) => v !== undefined);
  const wire = given ? wireSpec(specs) : undefined;
  // Registries and Helm repositories put their auth under `auth`, Git providers under
  // `authentication.spec` (the wire shapes of provider/platform/connector.ts).
  const authentication = wire?.spec.authentication;
  const auth = wire?.spec.auth ?? (isRecord(authentication) ? authentication.spec : undefined);
  return {
    identifier: need(props, c, "identifier"),
    org: need(props, c, "org"),
    project: need(props, c, "project"),
    type: wire?.type,
    authType: isRecord(auth) && typeof auth.type === "string" ? auth.type : undefined,
  };
}

/** What the policies read of a Project: its checked inputs. */
export const ProjectView = kindView(ProjectInputs, projectKind);
export type ProjectView = z.output<typeof ProjectView>;

/** Reads a Project: the fields of its definition's `policy`. */
export const readProject = kindReader(projectKind, ProjectView);

// ---------------------------------------------------------------------------------------------
// Segment members

/** What the policies read of a SegmentKeys: where the members live, and how many there are. */
export const SegmentKeysView = SegmentKeysInputs.pick({ workspace: true, environment: true, segment: true })
  .partial()
  .extend({
    /**
     * The number of distinct members: of the checked set, or, when the provider refuses the list
     * (more than it takes), of the distinct keys given.
     */
    members: z.number().int(),
  });
export type SegmentKeysView = z.output<typeof SegmentKeysView>;

/** Reads a SegmentKeys: the members are a set, as the provider's check makes them. */
export async function readSegmentKeys(props: Props): Promise<SegmentKeysView> {
  const c = await checkProps(SEGMENT_KEYS_TYPE, SegmentKeysInputs, props);
  const given = need(props, c, "keys") ?? c.refused.keys;
  return {
    workspace: textOf(props, c, "workspace"),
    environment: textOf(props, c, "environment"),
    segment: textOf(props, c, "segment"),
    members: Array.isArray(given) ? new Set(given).size : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Environments and API keys

/** What the policies read of an Environment: its checked inputs (the change permissions' defaults applied). */
export const EnvironmentView = kindView(EnvironmentInputs, environmentKind);
export type EnvironmentView = z.output<typeof EnvironmentView>;

/** Reads an Environment: the fields of its definition's `policy`. */
export const readEnvironment = kindReader(environmentKind, EnvironmentView);

/** What the policies read of an ApiKey: its checked inputs. */
export const ApiKeyView = kindView(ApiKeyInputs, apiKeyKind);
export type ApiKeyView = z.output<typeof ApiKeyView>;

/** Reads an ApiKey. A name the provider refuses is still read as given, to name it in messages. */
export const readApiKey = kindReader(apiKeyKind, ApiKeyView);

// ---------------------------------------------------------------------------------------------
// Definitions as documents: a pipeline's or a service's definition as the program gives it, for
// policies that look at every field (the pipeline view keeps only what the pipeline policies read).

/** A platform entity's definition as given: the typed model, or the YAML text parsed. */
export interface DefinitionDocument {
  /** The entity's identifier (from its input, the model or the YAML); undefined when it has none. */
  identifier: string | undefined;
  /** The input the definition came from: `pipeline`, `kubernetes` or `yaml`. */
  input: string;
  /** The typed definition (as checked, or as given when refused), or the parsed YAML. */
  document: unknown;
}

/**
 * The definition held by one of `keys` (tried in order): the checked value, or the value given when
 * the provider refuses it; YAML text is parsed strictly (`loadYaml`). Undefined when none is given
 * or the YAML does not parse (the provider's check reports that with its position).
 */
function definitionOf<T>(props: Props, c: Checked<T>, keys: readonly (keyof T & string)[]) {
  for (const key of keys) {
    const value = need(props, c, key) ?? c.refused[key];
    if (value === undefined) continue;
    if (typeof value !== "string") return { input: key, document: value as unknown };
    const read = loadYaml(value);
    return read.ok ? { input: key, document: read.value } : undefined;
  }
  return undefined;
}

const field = (doc: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (isRecord(v) ? v[k] : undefined), doc);
const textField = (doc: unknown, ...path: string[]) => {
  const v = field(doc, ...path);
  return typeof v === "string" ? v : undefined;
};

/** Reads a Pipeline's definition: its typed model (`pipeline`) or its YAML (`yaml`). */
export async function readPipelineDocument(props: Props): Promise<DefinitionDocument | undefined> {
  const c = await checkProps(PIPELINE_TYPE, PipelineInputs, props);
  const def = definitionOf(props, c, ["pipeline", "yaml"]);
  if (!def) return undefined;
  const identifier =
    def.input === "yaml"
      ? textField(def.document, "pipeline", "identifier")
      : textField(def.document, "identifier");
  return { ...def, identifier };
}

/** Reads a Service's definition: its typed Kubernetes definition (`kubernetes`) or its YAML (`yaml`). */
export async function readServiceDocument(props: Props): Promise<DefinitionDocument | undefined> {
  const c = await checkProps(SERVICE_TYPE, ServiceInputs, props);
  const def = definitionOf(props, c, ["kubernetes", "yaml"]);
  if (!def) return undefined;
  return {
    ...def,
    identifier: textOf(props, c, "identifier") ?? textField(def.document, "service", "identifier"),
  };
}

// ---------------------------------------------------------------------------------------------
// Delivery environments and triggers

/** What the policies read of a DeliveryEnvironment: its identifier, scope and type. */
export const DeliveryEnvironmentView = kindView(DeliveryEnvironmentInputs, deliveryEnvironmentKind);
export type DeliveryEnvironmentView = z.output<typeof DeliveryEnvironmentView>;

/** Reads a DeliveryEnvironment. */
export const readDeliveryEnvironment = kindReader(deliveryEnvironmentKind, DeliveryEnvironmentView);

/** What the policies read of a Trigger: its identifier, its pipeline and its input sets. */
export const TriggerView = kindView(TriggerInputs, triggerKind);
export type TriggerView = z.output<typeof TriggerView>;

/** Reads a Trigger. */
export const readTrigger = kindReader(triggerKind, TriggerView);
