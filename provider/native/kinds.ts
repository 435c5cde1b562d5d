/**
 * The resource kinds of the native provider `flagstack`: each kind of {@link KINDS} (the dynamic
 * resources' registry) under its native type token `flagstack:index:<Type>`, with the zod inputs
 * and outputs schemas and the replace list that the package schema is generated from.
 *
 * The lifecycle verbs are the very `impl` objects the dynamic resources use (`KINDS`): the native
 * provider has no implementation of its own, only a dispatch by token.
 * @module
 */
import type { z } from "zod";
import { ApiKey, apiKeyReplaceOnChange } from "../api-key";
import { Connector, connectorReplaceOnChange } from "../connector";
import type { ResourceClass } from "../core/resource";
import { DeliveryEnvironment, deliveryEnvironmentReplaceOnChange } from "../delivery-environment";
import { Environment, environmentReplaceOnChange } from "../environment";
import { Flag, flagReplaceOnChange } from "../flag";
import { FlagDefinition, flagDefinitionReplaceOnChange } from "../flag-definition";
import { FlagSet, flagSetReplaceOnChange } from "../flag-set";
import { Group, groupReplaceOnChange } from "../group";
import { Infrastructure, infrastructureReplaceOnChange } from "../infrastructure";
import { InputSet, inputSetReplaceOnChange } from "../input-set";
import { type AnyHandlers, KINDS } from "../kinds";
import { LargeSegment, largeSegmentReplaceOnChange } from "../large-segment";
import { Organization, organizationReplaceOnChange } from "../organization";
import { Pipeline, pipelineReplaceOnChange } from "../pipeline";
import { Project, projectReplaceOnChange } from "../project";
import { RuleBasedSegment, ruleBasedSegmentReplaceOnChange } from "../rule-based-segment";
import {
  RuleBasedSegmentDefinition,
  ruleBasedSegmentDefinitionReplaceOnChange,
} from "../rule-based-segment-definition";
import { Secret, secretReplaceOnChange } from "../secret";
import { Segment, segmentReplaceOnChange } from "../segment";
import { SegmentKeys, segmentKeysReplaceOnChange } from "../segment-keys";
import { Service, serviceReplaceOnChange } from "../service";
import { TrafficType, trafficTypeReplaceOnChange } from "../traffic-type";
import { TrafficTypeAttribute, trafficTypeAttributeReplaceOnChange } from "../traffic-type-attribute";
import { Trigger, triggerReplaceOnChange } from "../trigger";
import { typeName } from "../types";
import { UserInvite, userInviteReplaceOnChange } from "../user-invite";
import { Workspace, workspaceReplaceOnChange } from "../workspace";

/** The package name of the native provider: the first part of its tokens and of its config keys. */
export const PACKAGE = "flagstack";

/** The native type token of a dynamic one: `pulumi-nodejs:dynamic/flagstack:Flag` → `flagstack:index:Flag`. */
export const nativeToken = (dynamicToken: string): string => `${PACKAGE}:index:${typeName(dynamicToken)}`;

/** What the schema of one resource is made of, beside its lifecycle. */
interface KindSchema {
  /** The zod schema `check` parses the inputs with. */
  inputs: z.ZodObject;
  /** The zod schema of the outputs (`read`, `create` and `update` return it). */
  outputs: z.ZodObject;
  /** The inputs whose change replaces the object (the resource's `...ReplaceOnChange`). */
  replaceOnChange: readonly string[];
  /** The resource's module under `provider/`, where the TSDoc of its schemas and class lives. */
  module: string;
  /** The outputs stored as secrets (`provider/core/secret-outputs.ts`): `key` of an `ApiKey`, ... */
  secretOutputs?: readonly string[];
  /**
   * The inputs always stored as secrets (`provider/core/secret-inputs.ts`): `value` and `file` of a
   * `Secret`. Secret in the schema, and answered as secrets by `Check` whatever the program passed.
   */
  secretInputs?: readonly string[];
}

/** Each kind's resource class (its token, schemas and module) with its replace list. */
const CLASSES: readonly [
  Pick<ResourceClass<never, never>, "__pulumiType" | "file" | "inputs" | "outputs">,
  readonly string[],
][] = [
  [Environment, environmentReplaceOnChange],
  [TrafficType, trafficTypeReplaceOnChange],
  [TrafficTypeAttribute, trafficTypeAttributeReplaceOnChange],
  [ApiKey, apiKeyReplaceOnChange],
  [Workspace, workspaceReplaceOnChange],
  [Flag, flagReplaceOnChange],
  [FlagDefinition, flagDefinitionReplaceOnChange],
  [Group, groupReplaceOnChange],
  [UserInvite, userInviteReplaceOnChange],
  [Organization, organizationReplaceOnChange],
  [Project, projectReplaceOnChange],
  [Connector, connectorReplaceOnChange],
  [Pipeline, pipelineReplaceOnChange],
  [Segment, segmentReplaceOnChange],
  [SegmentKeys, segmentKeysReplaceOnChange],
  [LargeSegment, largeSegmentReplaceOnChange],
  [RuleBasedSegment, ruleBasedSegmentReplaceOnChange],
  [RuleBasedSegmentDefinition, ruleBasedSegmentDefinitionReplaceOnChange],
  [FlagSet, flagSetReplaceOnChange],
  [Secret, secretReplaceOnChange],
  [Service, serviceReplaceOnChange],
  [DeliveryEnvironment, deliveryEnvironmentReplaceOnChange],
  [Infrastructure, infrastructureReplaceOnChange],
  [InputSet, inputSetReplaceOnChange],
  [Trigger, triggerReplaceOnChange],
];

// Keyed by the dynamic tokens, so a kind added to KINDS without a line here fails below, at load.
const SCHEMAS: ReadonlyMap<string, KindSchema> = new Map(
  CLASSES.map(([cls, replaceOnChange]) => [
    cls.__pulumiType,
    {
      inputs: cls.inputs,
      outputs: cls.outputs,
      replaceOnChange,
      module: cls.file,
      secretOutputs: (cls as { secretOutputs?: readonly string[] }).secretOutputs ?? [],
      secretInputs: (cls as { secretInputs?: readonly string[] }).secretInputs ?? [],
    },
  ]),
);

/** One resource kind of the native provider. */
export interface NativeKind extends KindSchema {
  /** The type name: `Flag`, `FlagDefinition`, ... (also the resource class's name). */
  name: string;
  /** The native type token, `flagstack:index:<name>`. */
  token: string;
  /** The dynamic resource's token, `pulumi-nodejs:dynamic/flagstack:<name>`. */
  dynamicToken: string;
  /** The lifecycle verbs: the same object the dynamic resource's `__provider` loads. */
  impl: AnyHandlers;
}

/** Every native kind, in the order of {@link KINDS}. */
export const NATIVE_KINDS: readonly NativeKind[] = Object.entries(KINDS).map(([dynamicToken, impl]) => {
  const schema = SCHEMAS.get(dynamicToken);
  if (schema === undefined) {
    throw new Error(`provider/native/kinds.ts: no schemas for the kind ${dynamicToken}; add it to CLASSES`);
  }
  return { ...schema, name: typeName(dynamicToken), token: nativeToken(dynamicToken), dynamicToken, impl };
});

/** The native kinds by native token. */
export const NATIVE_KINDS_BY_TOKEN: ReadonlyMap<string, NativeKind> = new Map(
  NATIVE_KINDS.map((kind) => [kind.token, kind]),
);
