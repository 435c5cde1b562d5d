/**
 * A kind's one definition: what every door, registry, doc and generic test reads about a resource
 * kind. Each resource module ends with `export const kind = defineKind({...})`, and
 * `provider/kinds.ts` lists the kinds, one line each; the dynamic resources' registry, the native
 * provider's kinds and package schema, the policy pack's token map, the README's resource table and
 * the kind-wide test suites are all derived from that list.
 *
 * What the definition holds:
 * - the resource class ({@link resourceClass}): name, type token, module, zod inputs and outputs
 *   (their TSDoc is each field's description), the owner it is deleted with, the secret inputs and
 *   outputs;
 * - the lifecycle verbs (`impl`, one object behind the dynamic and the native provider);
 * - the inputs whose change replaces the object;
 * - its natural key as an import id (`<workspace>/<name>`, with an example), or none where the API
 *   cannot show the object again (an API key);
 * - the fields a policy reads (`policy`);
 * - its documentation row: what it is, what replaces it, what updates in place.
 * @module
 */
import type { ResourceClass, ResourceHandlers } from "./resource";

/** A resource's implementation with its inputs and outputs erased to plain records. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds implementations of every input and output type.
export type AnyHandlers = ResourceHandlers<any, any>;

/** The package name of the native provider: the first part of its tokens and of its config keys. */
export const PACKAGE = "flagstack";

/** The dynamic resource type token of a kind: `pulumi-nodejs:dynamic/flagstack:<Name>`. */
export const kindToken = (name: string): string => `pulumi-nodejs:dynamic/${PACKAGE}:${name}`;

/** The native type token of a dynamic one: `pulumi-nodejs:dynamic/flagstack:Flag` → `flagstack:index:Flag`. */
export const nativeToken = (dynamicToken: string): string =>
  `${PACKAGE}:index:${dynamicToken.slice(dynamicToken.lastIndexOf(":") + 1)}`;

/** Which of the two APIs a kind lives in: the feature-flag admin API or the delivery platform API. */
export type Area = "flags" | "platform";

/** A kind's natural key, written as its import id. */
export interface ImportId {
  /** The parts, `<workspace>/<name>` (what `pulumi import` and the dynamic resources' `read` take). */
  form: string;
  /** One id of that form: `Default/new-checkout`. */
  example: string;
}

/** The kind's row in the README's resource table. */
export interface KindDoc {
  /** What an object of the kind is. */
  what: string;
  /** The inputs whose change replaces the object, in words. */
  replaces: string;
  /** What changes in place, and by which request. */
  updates: string;
}

/** A resource class as a definition holds it: its schemas, token, module and marks. */
export type KindResource = Pick<
  ResourceClass<never, never>,
  "__pulumiType" | "providerText" | "file" | "inputs" | "outputs" | "owner"
> & {
  readonly secretOutputs?: readonly string[];
  readonly secretInputs?: readonly string[];
};

/** What a resource module gives {@link defineKind}. */
export interface KindSpec<C extends KindResource = KindResource, H extends AnyHandlers = AnyHandlers> {
  /** The resource class (`resourceClass(...)`, with its secret marks). */
  resource: C;
  /** The lifecycle verbs. */
  impl: H;
  /** The API the kind lives in. */
  area: Area;
  /** The inputs whose change replaces the object (`replaceOnChanges` of the native schema). */
  replaceOnChange: readonly string[];
  /** Its natural key as an import id; `undefined` for a kind that cannot be imported. */
  importId: ImportId | undefined;
  /** The inputs a policy reads of it, when the policy pack reads the kind by field list. */
  policy?: readonly string[];
  /** Its documentation row. */
  doc: KindDoc;
}

/** A kind's definition, with what is derived from its resource class. */
export interface Kind<C extends KindResource = KindResource, H extends AnyHandlers = AnyHandlers>
  extends KindSpec<C, H> {
  /** The type name: `Flag`, `FlagDefinition`, ... (the resource class's name). */
  readonly name: string;
  /** The dynamic resource's type token, `pulumi-nodejs:dynamic/flagstack:<name>`. */
  readonly token: string;
  /** The native provider's type token, `flagstack:index:<name>`. */
  readonly nativeToken: string;
  /**
   * The name the stored `__provider` text requires the kind's `impl` by, `flagstack/provider/<file>`
   * (the package's exports map it to {@link module}); kept as it was when the kind's module lived
   * at `provider/<file>.ts`, so every state written since works.
   */
  readonly file: string;
  /** The kind's module under `provider/`, `<area>/<file>` (`flags/flag-definition`). */
  readonly module: string;
  /** The outputs the engine stores as secrets. */
  readonly secretOutputs: readonly string[];
  /** The inputs always stored as secrets. */
  readonly secretInputs: readonly string[];
}

/**
 * A kind's definition from its spec: name, tokens, module and secret marks read from the resource
 * class, so they are written once. Fails at load when the spec contradicts itself (a replace or
 * policy field that is no input, a token that is not the name's).
 */
export function defineKind<C extends KindResource, H extends AnyHandlers>(spec: KindSpec<C, H>): Kind<C, H> {
  const cls = spec.resource;
  const token = cls.__pulumiType;
  const name = token.slice(token.lastIndexOf(":") + 1);
  if (token !== kindToken(name))
    throw new Error(`kind ${name}: its token ${token} is not ${kindToken(name)}`);
  const inputs = Object.keys(cls.inputs.shape);
  const outputs = Object.keys(cls.outputs.shape);
  const unknown = (list: readonly string[] | undefined, names: readonly string[], what: string) => {
    const bad = (list ?? []).filter((f) => !names.includes(f));
    if (bad.length > 0) throw new Error(`kind ${name}: ${what} names no field: ${bad.join(", ")}`);
  };
  unknown(spec.replaceOnChange, inputs, "replaceOnChange");
  unknown(spec.policy, inputs, "policy");
  unknown(cls.secretInputs, inputs, "secretInputs");
  unknown(cls.secretOutputs, outputs, "secretOutputs");
  return {
    ...spec,
    name,
    token,
    nativeToken: nativeToken(token),
    file: cls.file,
    module: `${spec.area}/${cls.file}`,
    secretOutputs: cls.secretOutputs ?? [],
    secretInputs: cls.secretInputs ?? [],
  };
}
