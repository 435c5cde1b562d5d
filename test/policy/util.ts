/**
 * Runs policies without the engine, as pulumi-policy's own tests do (pulumi-notes §7.3): fake
 * validation args, collected reports. Never constructs a PolicyPack.
 *
 * The props are the ones the engine hands a policy: a resource's checked inputs, built from what a
 * program declares by the provider's own `check` ({@link checkedProps}), never hand-written shapes.
 */
import type {
  PolicyResource,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import * as policyProxy from "@pulumi/policy/proxy";
import {
  connectorProviderText,
  flagDefinitionProviderText,
  flagDefinitionsProviderText,
  flagProviderText,
  groupProviderText,
  pipelineProviderText,
  projectProviderText,
  userInviteProviderText,
} from "../../provider";
import { PROVIDER_KEY } from "../../provider/core/check";
import { KINDS } from "../../provider/kinds";
import {
  CONNECTOR_TYPE,
  FLAG_DEFINITION_TYPE,
  FLAG_DEFINITIONS_TYPE,
  FLAG_TYPE,
  GROUP_TYPE,
  PIPELINE_TYPE,
  PROJECT_TYPE,
  USER_INVITE_TYPE,
} from "../../provider/types";

/** The `__provider` text the engine keeps in each resource's inputs, by type token. */
const PROVIDER_TEXT: Record<string, string> = {
  [FLAG_TYPE]: flagProviderText,
  [FLAG_DEFINITION_TYPE]: flagDefinitionProviderText,
  [FLAG_DEFINITIONS_TYPE]: flagDefinitionsProviderText,
  [GROUP_TYPE]: groupProviderText,
  [USER_INVITE_TYPE]: userInviteProviderText,
  [PROJECT_TYPE]: projectProviderText,
  [CONNECTOR_TYPE]: connectorProviderText,
  [PIPELINE_TYPE]: pipelineProviderText,
};

/**
 * The props the engine hands a policy for a resource a program declares with `inputs`: what the
 * provider's `check` returns (failures or not: the engine still runs the policies), with the
 * `__provider` text the dynamic-provider host puts back beside the checked inputs.
 */
export async function checkedProps(
  type: string,
  inputs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const handlers = KINDS[type];
  if (!handlers) throw new Error(`no kind ${type}`);
  const { inputs: checked } = await handlers.check({}, inputs);
  return { ...checked, [PROVIDER_KEY]: PROVIDER_TEXT[type] };
}

/** A resource of a fake stack, its props checked by its provider (see {@link checkedProps}). */
export async function checkedResource(
  type: string,
  inputs: Record<string, unknown>,
  name?: string,
): Promise<StackResource> {
  return { type, props: await checkedProps(type, inputs), ...(name ? { name } : {}) };
}

/**
 * How the engine hands props to policies during a preview: a proxy that throws the engine's
 * `UnknownValueError` when a value unknown during the preview is read (the module is internal to
 * `@pulumi/policy`, so it has no types).
 */
export const { unknownCheckingProxy, unknownStringValue, UnknownValueError } = policyProxy as unknown as {
  unknownCheckingProxy: <T extends object>(o: T) => T;
  unknownStringValue: string;
  UnknownValueError: new (sentinel: string, props: readonly PropertyKey[]) => Error;
};

/** A report: the message and the URN it names (stack policies may name one). */
export interface Report {
  message: string;
  urn?: string | undefined;
}

/** Thrown by `notApplicable`, so a test can tell "not applicable" from "no violation". */
export class NotApplicable extends Error {}

const urnOf = (type: string, name: string) => `urn:pulumi:test::flagstack::${type}::${name}`;

const emptyOptions = {
  protect: false,
  ignoreChanges: [],
  aliases: [],
  customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
  additionalSecretOutputs: [],
};

/** Fake `ResourceValidationArgs` for a resource of the given type token and inputs. */
export function resourceArgs(
  type: string,
  props: Record<string, unknown>,
  config: object = {},
  name = "res",
): ResourceValidationArgs {
  return {
    type,
    props,
    urn: urnOf(type, name),
    name,
    opts: emptyOptions,
    stackTags: new Map(),
    isType: () => false,
    asType: () => undefined,
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new NotApplicable(reason);
    },
  };
}

/** Runs a resource policy on one resource and returns the messages it reported. */
export async function runResourcePolicy(
  policy: ResourceValidationPolicy,
  type: string,
  props: Record<string, unknown>,
  config: object = {},
): Promise<string[]> {
  const messages: string[] = [];
  const args = resourceArgs(type, props, config);
  const validators = Array.isArray(policy.validateResource)
    ? policy.validateResource
    : policy.validateResource
      ? [policy.validateResource]
      : [];
  for (const v of validators) await v(args, (message) => messages.push(message));
  return messages;
}

/** A resource of a fake stack. */
export interface StackResource {
  type: string;
  props: Record<string, unknown>;
  name?: string;
}

/** Fake `StackValidationArgs` over the given resources. */
export function stackArgs(resources: readonly StackResource[], config: object = {}): StackValidationArgs {
  return {
    resources: resources.map((r, i): PolicyResource => {
      const name = r.name ?? `res${i}`;
      return {
        type: r.type,
        props: r.props,
        urn: urnOf(r.type, name),
        name,
        opts: emptyOptions,
        dependencies: [],
        propertyDependencies: {},
        isType: () => false,
        asType: () => undefined,
      };
    }),
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new NotApplicable(reason);
    },
  };
}

/** Runs a stack policy and returns its reports. */
export async function runStackPolicy(
  policy: StackValidationPolicy,
  resources: readonly StackResource[],
  config: object = {},
): Promise<Report[]> {
  const reports: Report[] = [];
  await policy.validateStack(stackArgs(resources, config), (message, urn) => reports.push({ message, urn }));
  return reports;
}

/** The URN `stackArgs` gives a resource. */
export const stackUrn = (type: string, name: string) => urnOf(type, name);
