/**
 * Secret outputs: a resource class whose named outputs the engine stores encrypted, as secrets
 * (`additionalSecretOutputs`, added to whatever the program gives). For values the service shows
 * once and that grant access, such as a new API key or an environment's SDK keys: they are never in
 * plain text in the state, and a program that exports them gets them as secrets.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceClass } from "./resource";

/** A resource class that marks {@link secretOutputs} secret in every object's options. */
export type WithSecretOutputs<C> = C & {
  /** The outputs the engine stores as secrets. */
  readonly secretOutputs: readonly string[];
};

/**
 * `cls` with `names` added to each object's `additionalSecretOutputs`; its token, provider text,
 * file and schemas are inherited, so registries see the same kind.
 */
export function withSecretOutputs<A, O, C extends ResourceClass<A, O>>(
  cls: C & ResourceClass<A, O>,
  names: readonly (keyof O & string)[],
): WithSecretOutputs<C> {
  const Base = cls as unknown as new (
    name: string,
    args: object,
    opts?: pulumi.CustomResourceOptions,
  ) => object;
  class Secret extends Base {
    static readonly secretOutputs = names;
    constructor(name: string, args: object, opts?: pulumi.CustomResourceOptions) {
      super(name, args, {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...names],
      });
    }
  }
  Object.defineProperty(Secret, "name", { value: (cls as { name: string }).name });
  return Secret as unknown as WithSecretOutputs<C>;
}
