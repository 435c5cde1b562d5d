/**
 * Runs policies without the engine, as pulumi-policy's own tests do (pulumi-notes §7.3): fake
 * validation args, collected reports. Never constructs a PolicyPack.
 */
import type {
  PolicyResource,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";

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
