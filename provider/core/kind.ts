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
 * - its documentation row: what it is, what replaces it, what updates in place;
 * - its example: one valid object's inputs, with the inputs that name an object of another kind
 *   (made first) and those that must be unique; checked against the inputs schema at load, shown
 *   by the generated docs (TypeScript and HCL) and made by the kind-wide test suites.
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

/** An input of an example that names an object of another kind, which is made first. */
export interface ExampleRef {
  /** The other kind's name (`Flag`). */
  kind: string;
  /** The output of that object the input takes (`name`). */
  output: string;
  /** Changes over the other kind's example inputs for this object (a pipeline with a runtime input). */
  change?: Record<string, unknown>;
  /** One object serves every example that names it (the project platform objects live in). */
  shared?: boolean;
}

/** One valid object of a kind, as a program declares it. */
export interface KindExample {
  /**
   * The inputs a program gives it, with the values the docs show; an input that names another
   * object holds that object's example value (`"new-checkout"` for a flag's name).
   */
  inputs: Record<string, unknown>;
  /**
   * The inputs naming an object of another kind, by path (`flag`, `environments.0`,
   * `viewers.0.id`): the docs show the other resource's output, the suites make that object first.
   */
  refs?: Record<string, ExampleRef>;
  /**
   * The inputs (paths, `pipeline.identifier`) that name the object itself: the suites make each
   * unique per object (the example's value and a serial).
   */
  unique?: readonly string[];
}

/** The value at `path` (`viewers.0.id`) of `value`, `undefined` where it has none. */
export function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** `value` with `replacement` at `path` (copied along the path; arrays stay arrays). */
export function withValueAt(value: unknown, path: string, replacement: unknown): unknown {
  const [head, ...rest] = path.split(".") as [string, ...string[]];
  const tail = rest.join(".");
  const next = (old: unknown) => (rest.length === 0 ? replacement : withValueAt(old, tail, replacement));
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[Number(head)] = next(copy[Number(head)]);
    return copy;
  }
  const object = (value ?? {}) as Record<string, unknown>;
  return { ...object, [head]: next(object[head]) };
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
  /**
   * One valid object: the docs' example and the kind-wide suites' sample inputs. Every kind of
   * the list has one; a kind without it needs its sample's `inputs` in `test/reliability/samples.ts`
   * and its docs show no example.
   */
  example?: KindExample;
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
 * policy field that is no input, a token that is not the name's). The example is checked by
 * {@link checkExample} in the kinds' tests, not here: parsing it with the inputs schema at load
 * compiled every kind's schema in every provider start (about 20 ms of each of the three starts of
 * a `tofu plan`, issue 35).
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

/**
 * Fails when a kind's example is not valid input of the kind (its inputs schema, every member
 * named), or names a path it does not have (test/provider/core/kind.test.ts runs it over the list).
 */
export function checkExample(kind: Pick<Kind, "name" | "resource" | "example">): void {
  const { name, example } = kind;
  if (example === undefined) return;
  const parsed = kind.resource.inputs.safeParse(example.inputs);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`kind ${name}: its example is not valid input: ${issues.join("; ")}`);
  }
  for (const path of [...Object.keys(example.refs ?? {}), ...(example.unique ?? [])]) {
    if (valueAt(example.inputs, path) === undefined)
      throw new Error(`kind ${name}: its example has no input at ${path}`);
  }
}

/**
 * Fails when an example names a kind that is not in `kinds`, or an output that kind does not
 * have, or when examples name each other in a cycle (the kinds list checks its kinds with this).
 */
export function checkExampleRefs(kinds: readonly Kind[]): void {
  const byName = new Map(kinds.map((k) => [k.name, k]));
  const visit = (kind: Kind, seen: readonly string[]) => {
    if (seen.includes(kind.name))
      throw new Error(`kind examples name each other: ${[...seen, kind.name].join(" → ")}`);
    for (const [path, ref] of Object.entries(kind.example?.refs ?? {})) {
      const other = byName.get(ref.kind);
      if (other === undefined)
        throw new Error(`kind ${kind.name}: its example's ${path} names no kind ${ref.kind}`);
      if (other.example === undefined)
        throw new Error(`kind ${kind.name}: its example's ${path} names ${ref.kind}, which has no example`);
      if (!(ref.output in other.resource.outputs.shape))
        throw new Error(`kind ${kind.name}: its example's ${path} names no output ${ref.kind}.${ref.output}`);
      visit(other, [...seen, kind.name]);
    }
  };
  for (const kind of kinds) visit(kind, []);
}
