/**
 * What the resource files share: the public `Args` derived from a zod input type, the handlers
 * each resource implements, and {@link FlagstackResource}, the base class of every resource.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import type { CustomResource } from "@pulumi/pulumi/resource";
import type { z } from "zod";
import { protoKeyPath } from "../../sdk/core/data-record";
import { type CheckSpec, checkWith } from "./check";
import { configureProvider } from "./config";
import { withConfigProvider } from "./config-provider";
import { type DiffSpec, diffInputs } from "./diff";
import { engineAddress, watchEngine } from "./host";
import { openListReadsForOperation } from "./list-reads";
import { protoKeyMessage } from "./proto-keys";
import { pulumiResource } from "./pulumi-runtime";

/**
 * A value a program may pass for an input of type `T`: the value, a promise or an `Output`, at
 * every level of nesting (the engine resolves nested outputs before the provider sees them).
 */
export type DeepInput<T> = T extends string | number | boolean | null | undefined
  ? pulumi.Input<T>
  : T extends readonly (infer U)[]
    ? pulumi.Input<DeepInput<U>[]>
    : T extends object
      ? pulumi.Input<{ [K in keyof T]: DeepInput<T[K]> }>
      : pulumi.Input<T>;

/** The `Args` of a resource from the zod *input* type of its schema (optional keys stay optional). */
export type ResourceArgs<T> = { [K in keyof T]: DeepInput<T[K]> };

/**
 * The `Output`s of a resource, one for each member of its zod *outputs* type (see
 * {@link resourceClass}), each documented where the schema documents it; {@link FlagstackResource}
 * seeds the same names, so each has a value at run time.
 */
export type ResourceOutputs<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/**
 * What each resource file implements: every lifecycle method, typed by the resource's checked
 * inputs and outputs (`configure` is the shared one unless a resource needs more).
 */
export interface ResourceHandlers<Inputs, Outputs> {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  check(
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<pulumi.dynamic.CheckResult<Inputs>>;
  diff(id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult<Outputs>>;
  read(id: string, props: Outputs): Promise<pulumi.dynamic.ReadResult<Outputs>>;
  update(id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult<Outputs>>;
  delete(id: string, props: Outputs): Promise<void>;
  /**
   * Finds the object the checked inputs name by its natural key and changes nothing: `undefined`
   * when there is none. Used by `flagstack recover` to settle the creates of a killed
   * `pulumi up` (see `./recover.ts`).
   */
  lookup(inputs: Inputs): Promise<Found | undefined>;
  /**
   * Takes over the object that the interrupted create of a killed `pulumi up` made, for
   * `flagstack recover` (see `./recover.ts`), where `create` with `adopt: true` (what recover
   * does otherwise) would lose what only the create's answer showed, such as an environment's
   * SDK keys.
   */
  recover?(inputs: Inputs): Promise<Recovered<Outputs>>;
  /**
   * For a kind whose {@link lookup} cannot see its objects (the API has no read or list of them,
   * such as API keys): what a create whose answer never reached the provider may have left, and
   * what the operator does about it (`the create of ApiKey named "x" may have made a key that
   * nothing manages: revoke ...`). `flagstack recover` reports such a pending create as unknown
   * with it, rather than as never created, and drops it (see `./recover.ts`). `recordedId`: the
   * state already records an object of its URN (a later run's create), which is not to be revoked.
   */
  unseen?(inputs: Inputs, recordedId?: string): string;
  /**
   * The fields `diff` compares (the names its answer's `stables` and `replaces` use), each with the
   * inputs it is read from, for a kind whose fields are not its inputs by name: a pipeline's
   * `identifier` and `content` are read from `yaml` or `pipeline`. Of several inputs, the ones the
   * new inputs give stand for the field (all of them when none is given). Without it, each input
   * but those that say how a change is made (`adopt`, change-request titles) is a field of its own
   * name. The native provider's detailed diff names the inputs by it (`../native/server.ts`).
   */
  readonly diffFields?: Readonly<Record<string, readonly (keyof Inputs & string)[]>>;
  /**
   * The reasons to replace that `diff` may answer beside its fields, each with the inputs that
   * decide it, the ones the new inputs give: a connector's `type` is decided by whichever spec input
   * (`dockerRegistry`, ..., `generic`) the program gives. The native provider's detailed diff marks
   * those inputs as replacing (`../native/server.ts`).
   */
  readonly replaceReasons?: Readonly<Record<string, readonly (keyof Inputs & string)[]>>;
  /**
   * The inputs only the program holds, which the service never shows (a change's `title` and
   * `comment`, `adopt`, `changeRequest`, `waitForApproval`): recorded as the last call gave them,
   * so a program that leaves one out has none. The Terraform door makes them optional and not
   * computed, so a configuration that removes one removes it from the state (`../terraform/schema.ts`).
   */
  readonly programInputs?: readonly (keyof Inputs & string)[];
}

/**
 * What {@link ResourceHandlers.recover} made of the object: its id and outputs, and `note`, what
 * the operator must still do that recover cannot (an adopted environment's SDK keys are unknown),
 * which `flagstack recover` reports as unknown.
 */
export type Recovered<Outputs> = pulumi.dynamic.CreateResult<Outputs> & { note?: string };

/** What {@link ResourceHandlers.lookup} found. */
export interface Found {
  /** When the service created the object, epoch milliseconds, where the API reports it. */
  createdAt?: number | undefined;
}

/**
 * The shared `configure`: reads the `flagstack:*` stack config into the process settings, and in
 * the dynamic-provider host starts watching the engine, so that the process ends with it
 * (`./host.ts`), and opens the window in which reads share lists (`./list-reads.ts`). The host calls it before the first verb of any resource, a `check` included.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  configureProvider(req.config);
  watchEngine();
  // A host the engine started serves one operation: its reads may share lists (`./list-reads.ts`).
  if (engineAddress() !== undefined) openListReadsForOperation();
}

/**
 * The verbs of a resource that its data decides: the shared {@link configure}, `check` by its
 * {@link CheckSpec} and `diff` by its {@link DiffSpec}.
 */
export function dataVerbs<S extends z.ZodObject, K extends string>(check: CheckSpec<S>, diff: DiffSpec<K>) {
  return {
    configure,
    check: checkWith(check),
    async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
      return diffInputs(diff, olds, news);
    },
  };
}

/**
 * The props passed to `dynamic.Resource`: every output name seeded with `undefined` so that the
 * resource object gets an `Output` for it (ref pulumi-notes §5.5), then the program's inputs.
 */
export function seedOutputs(outputNames: readonly string[], args: object): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const name of outputNames) props[name] = undefined;
  return { ...props, ...args };
}

/**
 * The `__provider` text of the resources defined in `flagstack/provider/<file>`: a module whose
 * `handler()` returns that module's `impl`, the object of lifecycle verbs (`configure`, `check`,
 * `diff`, `create`, `read`, `update`, `delete`) that is the provider. The dynamic-provider host
 * loads the text with `requireFromString(text).handler()` once per distinct text (ref
 * pulumi-notes §1), so the `require` runs in the provider process and resolves the installed
 * package from the program's directory. About 70 bytes, stored in every resource's inputs and outputs. No secret can reach
 * it: it is a constant.
 */
export function providerText(file: string): string {
  return `exports.handler = () => require("flagstack/provider/${file}").impl;\n`;
}

/**
 * `@pulumi/pulumi`'s `CustomResource`, taken on the first construction of a resource: the kinds
 * define their classes at module load ({@link resourceClass}), and the Terraform door and the
 * provider binary load the kinds without the Pulumi runtime (`./pulumi-runtime.ts`). A function,
 * so that a class may extend it: constructed, it makes Pulumi's object with the caller's
 * `new.target`, whose prototype chain it first links through its own to `CustomResource`'s
 * (prototype and statics), so the object is a `CustomResource` as if the class had extended it.
 */
function LazyCustomResource(this: unknown, ...args: unknown[]): object {
  const base = pulumiResource().CustomResource;
  if (Object.getPrototypeOf(LazyCustomResource.prototype) !== base.prototype) {
    Object.setPrototypeOf(LazyCustomResource.prototype, base.prototype);
    Object.setPrototypeOf(LazyCustomResource, base);
  }
  return Reflect.construct(base, args, new.target ?? LazyCustomResource) as object;
}
const CustomResourceBase = LazyCustomResource as unknown as typeof CustomResource;

/**
 * The base class of every flagstack resource: a custom resource of the `pulumi-nodejs` provider
 * (the dynamic-provider host) whose URN type is the given token
 * (`pulumi-nodejs:dynamic/flagstack:<Type>`), whose props are the names of its zod outputs schema
 * seeded by {@link seedOutputs}, then the program's inputs, then `__provider` = {@link providerText}.
 *
 * This is what `pulumi.dynamic.Resource` registers, with the provider given as text instead of a
 * provider object that the SDK serializes with its closure serializer. That serializer's text
 * wraps each of the seven methods (about 1.9 KB per resource, in inputs and outputs, which the
 * file backend rewrites after every step), and loading and running it delays a program's first
 * registration by about 0.35 s.
 *
 * The constructor also removes the largest cost of declaring many resources. For every property
 * of a resource, the Pulumi SDK makes four promises and records a formatted stack trace on each
 * (`debuggablePromise`: about 90 stack traces per `FlagDefinition`, each frame mapped through
 * source maps). Those traces are printed only when `PULUMI_DEBUG_PROMISE_LEAKS` is set. So while
 * the SDK's constructor runs, and only then, `Error.stackTraceLimit` is 0, unless that variable is
 * set. The limit is restored before the constructor returns or throws. This took a program of 800
 * resources from 9.6 s to about 3.4 s on 2 cores (`up_rate_limited_first_request_seconds` in
 * `bench/up.bench.ts`). What stays the same:
 * - the source position and the stack trace that the SDK sends to the engine, which it captures
 *   with its own unlimited `stackTraceLimit`;
 * - an error thrown while the SDK's constructor runs, which gets this constructor's stack (the
 *   program's line).
 * The one thing lost is the JavaScript stack of a registration that the engine rejects later (for
 * example a duplicate name). The engine's message names the resource and its type.
 */
export abstract class FlagstackResource extends CustomResourceBase {
  protected constructor(
    provider: string,
    type: string,
    outputs: z.ZodObject,
    name: string,
    args: object,
    opts: pulumi.CustomResourceOptions | undefined,
  ) {
    // Pulumi's runtime would drop an own `__proto__` key silently (`proto-keys.ts`): refuse it.
    const protoKey = protoKeyPath(args);
    if (protoKey !== undefined) throw new TypeError(protoKeyMessage(name, protoKey));
    // Every output the schema names gets an `Output` on the object: the list cannot drift from it.
    const props = { ...seedOutputs(Object.keys(outputs.shape), args), __provider: provider };
    // A credential set in plain text stays out of the state (`config-provider.ts`).
    const options = withConfigProvider(type, opts);
    const limit = Error.stackTraceLimit;
    if (!process.env.PULUMI_DEBUG_PROMISE_LEAKS) Error.stackTraceLimit = 0;
    try {
      super(type, name, props, options);
    } catch (e) {
      Error.stackTraceLimit = limit;
      if (e instanceof Error) Error.captureStackTrace(e, new.target);
      throw e;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** What {@link resourceClass} makes: a resource class whose objects carry the schema's outputs. */
export interface ResourceClass<Args, Outs> {
  new (
    name: string,
    args: Args,
    opts?: pulumi.CustomResourceOptions,
  ): FlagstackResource & ResourceOutputs<Outs>;
  /** The type token, so policies can match the class (ref pulumi-notes §7.1). */
  readonly __pulumiType: string;
  /** What the engine stores as each object's `__provider` ({@link providerText} of the resource's file). */
  readonly providerText: string;
  /** The resource's module under `provider/` (`flag-definition`), whose `impl` is its provider. */
  readonly file: string;
  /** The zod schema of its inputs (the one `check` parses with). */
  readonly inputs: z.ZodObject;
  /** The zod schema of its outputs (one `Output` for each member). */
  readonly outputs: z.ZodObject;
  /** The resource its object lives inside and is deleted with, if any ({@link Owner}). */
  readonly owner: Owner<string> | undefined;
}

/**
 * An input that names the object this resource lives inside, when the service deletes the
 * resource's object with that one (a flag's definitions go with the flag: the admin spec's state
 * table, "DELETE on the project-level flag"). A program may pass the owning resource itself for
 * that input: the class then passes
 * the owner's `output` (its `name`) as the input, and sets Pulumi's `deletedWith` to the owner
 * unless the program set it, so a destroy (or a replace of the owner) sends one DELETE for the
 * owner and none for what the service removes with it. Given as a string or an `Output`, the
 * input works as before and the resource is deleted on its own.
 */
export interface Owner<K extends string> {
  /** The input naming the owner (`flag`). */
  input: K;
  /** The owner's type token (`flagstack:Flag`); a resource of another type is refused. */
  type: string;
  /** The owner's output the input takes (`name`). */
  output: string;
}

/** The `Args` of a class whose `K` input may also be given as its owner's resource ({@link Owner}). */
export type OwnedArgs<Args, K extends string> = Omit<Args, K> & {
  [P in K & keyof Args]: Args[P] | FlagstackResource;
};

/** Replaces an owner resource given for `owner.input` by its output, and sets `deletedWith` to it. */
function resolveOwner(
  owner: Owner<string>,
  name: string,
  args: Record<string, unknown>,
  opts: pulumi.CustomResourceOptions | undefined,
): [Record<string, unknown>, pulumi.CustomResourceOptions | undefined] {
  const given = args[owner.input];
  if (!(given instanceof FlagstackResource)) return [args, opts];
  const type = (given.constructor as { __pulumiType?: string }).__pulumiType;
  if (type !== owner.type) {
    const short = (t: string) => t.slice(t.lastIndexOf(":") + 1);
    throw new TypeError(
      `${name}: ${owner.input} must be a ${short(owner.type)} resource, its ${owner.output}, or a string; got a ${type === undefined ? "different" : short(type)} resource`,
    );
  }
  const value = (given as unknown as Record<string, unknown>)[owner.output];
  return [
    { ...args, [owner.input]: value },
    { ...opts, deletedWith: opts?.deletedWith ?? given },
  ];
}

/**
 * The class of one resource kind: a {@link FlagstackResource} with the kind's `__provider` text,
 * type token and outputs schema, its arguments typed from the inputs schema and its `Output`s from
 * the outputs schema. Every resource file ends with
 * `export const Flag = resourceClass("flag", FLAG_TYPE, FlagInputs, FlagOutputs)`
 * and `export type Flag = InstanceType<typeof Flag>`, so the classes cannot drift apart and each
 * object has exactly the schema's outputs (seeded by the base class, typed by {@link ResourceOutputs}).
 * A resource that lives inside another passes its {@link Owner}.
 */
export function resourceClass<I extends z.ZodObject, O extends z.ZodObject>(
  file: string,
  type: string,
  inputs: I,
  outputs: O,
): ResourceClass<ResourceArgs<z.input<I>>, z.output<O>>;
export function resourceClass<I extends z.ZodObject, O extends z.ZodObject, K extends string>(
  file: string,
  type: string,
  inputs: I,
  outputs: O,
  owner: Owner<K>,
): ResourceClass<OwnedArgs<ResourceArgs<z.input<I>>, K>, z.output<O>>;
export function resourceClass<I extends z.ZodObject, O extends z.ZodObject>(
  file: string,
  type: string,
  inputs: I,
  outputs: O,
  owner?: Owner<string>,
): ResourceClass<ResourceArgs<z.input<I>>, z.output<O>> {
  const provider = providerText(file);
  class Resource extends FlagstackResource {
    static readonly __pulumiType = type;
    static readonly providerText = provider;
    static readonly file = file;
    static readonly inputs = inputs;
    static readonly outputs = outputs;
    static readonly owner = owner;
    constructor(name: string, args: object, opts?: pulumi.CustomResourceOptions) {
      const [a, o] = owner ? resolveOwner(owner, name, args as Record<string, unknown>, opts) : [args, opts];
      super(provider, type, outputs, name, a, o);
    }
  }
  // The class's name is the resource's (messages, stack traces, `constructor.name`).
  Object.defineProperty(Resource, "name", { value: type.slice(type.lastIndexOf(":") + 1) });
  return Resource as unknown as ResourceClass<ResourceArgs<z.input<I>>, z.output<O>>;
}

/**
 * The value as plain JSON: `undefined` members dropped at every level, since the engine's protobuf
 * `Struct` cannot carry them (ref pulumi-notes §3: outs must be plain JSON).
 */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
