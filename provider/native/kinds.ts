/**
 * The resource kinds of the native provider `flagstack`: each kind of the list of kinds
 * (`../kinds.ts`) under its native type token `flagstack:index:<Type>`, with the zod inputs and
 * outputs schemas and the replace list that the package schema is generated from.
 *
 * The lifecycle verbs are the very `impl` objects the dynamic resources use: the native provider
 * has no implementation of its own, only a dispatch by token.
 * @module
 */
import type { z } from "zod";
import { type AnyHandlers, nativeToken, PACKAGE } from "../core/kind";
import { KIND_LIST } from "../kinds";

export { nativeToken, PACKAGE };

/** One resource kind of the native provider: what its schema and dispatch read of its definition. */
export interface NativeKind {
  /** The type name: `Flag`, `FlagDefinition`, ... (also the resource class's name). */
  name: string;
  /** The native type token, `flagstack:index:<name>`. */
  token: string;
  /** The dynamic resource's token, `pulumi-nodejs:dynamic/flagstack:<name>`. */
  dynamicToken: string;
  /** The lifecycle verbs: the same object the dynamic resource's `__provider` loads. */
  impl: AnyHandlers;
  /** The zod schema `check` parses the inputs with. */
  inputs: z.ZodObject;
  /** The zod schema of the outputs (`read`, `create` and `update` return it). */
  outputs: z.ZodObject;
  /** The inputs whose change replaces the object. */
  replaceOnChange: readonly string[];
  /** The resource's module under `provider/` (`flags/flag`), where the TSDoc of its schemas and class lives. */
  module: string;
  /** The name its stored `__provider` text requires it by: `flagstack/provider/<file>`. */
  file: string;
  /** The outputs stored as secrets (`provider/core/secret-outputs.ts`): `key` of an `ApiKey`, ... */
  secretOutputs: readonly string[];
  /**
   * The inputs always stored as secrets (`provider/core/secret-inputs.ts`): `value` and `file` of a
   * `Secret`. Secret in the schema, and answered as secrets by `Check` whatever the program passed.
   */
  secretInputs: readonly string[];
}

/** Every native kind, in the order of the list of kinds. */
export const NATIVE_KINDS: readonly NativeKind[] = KIND_LIST.map((k) => ({
  name: k.name,
  token: k.nativeToken,
  dynamicToken: k.token,
  impl: k.impl,
  inputs: k.resource.inputs,
  outputs: k.resource.outputs,
  replaceOnChange: k.replaceOnChange,
  module: k.module,
  file: k.file,
  secretOutputs: k.secretOutputs,
  secretInputs: k.secretInputs,
}));

/** The native kinds by native token. */
export const NATIVE_KINDS_BY_TOKEN: ReadonlyMap<string, NativeKind> = new Map(
  NATIVE_KINDS.map((kind) => [kind.token, kind]),
);
