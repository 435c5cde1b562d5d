/**
 * Types shared by the resource files: the public `Args` derived from a zod input type, the
 * handlers each resource implements, and the output seeding of `dynamic.Resource`.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { configureProvider } from "./config";

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
}

/** The shared `configure`: reads the `flagstack:*` stack config into the process settings. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  configureProvider(req.config);
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
 * The value as plain JSON: `undefined` members dropped at every level, since the engine's protobuf
 * `Struct` cannot carry them (ref pulumi-notes §3: outs must be plain JSON).
 */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
