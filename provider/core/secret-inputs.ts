/**
 * Secret inputs: a resource class whose named inputs are always Pulumi secrets, whatever the
 * program passes (a plain string is wrapped with `secret()`), and whose same-named outputs are
 * stored encrypted too (`./secret-outputs.ts`). For values that are themselves the secret, such as
 * a platform `Secret`'s text: the engine then keeps them encrypted in the state's inputs and
 * outputs, and masks them in its logs.
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { pulumiOutput } from "./pulumi-runtime";
import type { ResourceClass } from "./resource";
import { type WithSecretOutputs, withSecretOutputs } from "./secret-outputs";

/** A resource class that wraps {@link secretInputs} as secrets in every object's arguments. */
export type WithSecretInputs<C> = WithSecretOutputs<C> & {
  /** The inputs always stored as secrets (the native provider's schema and `Check` mark them too). */
  readonly secretInputs: readonly string[];
};

/**
 * `cls` with each of `names` wrapped as a secret in every object's arguments, and `outputs` (by
 * default the same names) marked secret among its outputs; its token, provider text, file and
 * schemas are inherited. A platform file secret's content is an input only: its output is a hash.
 */
export function withSecretInputs<A, O, C extends ResourceClass<A, O>>(
  cls: C & ResourceClass<A, O>,
  names: readonly ((keyof O | keyof A) & string)[],
  outputs: readonly (keyof O & string)[] = names as readonly (keyof O & string)[],
): WithSecretInputs<C> {
  const Base = withSecretOutputs(cls, outputs) as unknown as new (
    name: string,
    args: object,
    opts?: pulumi.CustomResourceOptions,
  ) => object;
  class SecretInputs extends Base {
    static readonly secretInputs: readonly string[] = names;
    constructor(name: string, args: object, opts?: pulumi.CustomResourceOptions) {
      const { secret } = pulumiOutput();
      const wrapped: Record<string, unknown> = { ...args };
      for (const n of names) if (wrapped[n] !== undefined) wrapped[n] = secret(wrapped[n]);
      super(name, wrapped, opts);
    }
  }
  Object.defineProperty(SecretInputs, "name", { value: (cls as { name: string }).name });
  return SecretInputs as unknown as WithSecretInputs<C>;
}
