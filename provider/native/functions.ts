/**
 * The functions of the native provider: each lookup of `provider/lookups.ts` and
 * `provider/platform-lookups.ts` as `flagstack:index:<name>` (`getWorkspace`, `getProject`, ...),
 * run with the provider instance's own clients (its configuration, not the stack's: an explicit
 * provider of another account looks up in that account). The lookups themselves are the ones a
 * TypeScript program calls; only their results are given a schema here where the lookup has none.
 * @module
 */
import { z } from "zod";
import {
  Environment,
  FlagSet,
  Group,
  RolloutStatus,
  TrafficType,
  User,
  Workspace,
} from "../../sdk/admin/schemas";
import { Segment } from "../../sdk/admin/segment";
import { adminClient } from "../core/config";
import { platformApi } from "../core/platform-common";
import * as lookups from "../lookups";
import { PipelineModel } from "../pipeline-model";
import { ConnectorOutputs } from "../platform/connector";
import { OrganizationOutputs } from "../platform/organization";
import { PipelineOutputs } from "../platform/pipeline";
import { ProjectOutputs } from "../platform/project";
import * as platformLookups from "../platform-lookups";
import { PACKAGE } from "./kinds";

/** One function of the native provider. */
export interface NativeFunction {
  /** The lookup's name, `getWorkspace`; the token is `flagstack:index:<name>`. */
  name: string;
  token: string;
  /** The module under `provider/` whose function of that name is the lookup (its TSDoc too). */
  module: "lookups" | "platform-lookups";
  /** The lookup's arguments schema (zod). */
  args: z.ZodObject;
  /** The result's schema: an object (the invoke's outputs). */
  result: z.ZodObject;
  /**
   * When the lookup returns a list, the member of {@link result} that holds it (an invoke returns
   * an object).
   */
  listMember?: string;
  /** Runs the lookup with the provider's clients. */
  run(args: Record<string, unknown>): Promise<unknown>;
}

/** Each lookups module: its functions, and the options that make them use the provider's clients. */
const MODULES = {
  lookups: { functions: lookups, options: () => ({ client: adminClient() }) },
  "platform-lookups": { functions: platformLookups, options: () => ({ client: platformApi() }) },
} as const;

/**
 * What `getPipeline` returns, as a schema; checked against the lookup's own type below, so
 * the two cannot drift apart.
 */
const PipelineInfoSchema = PipelineOutputs.pick({
  org: true,
  project: true,
  identifier: true,
  name: true,
  yaml: true,
}).extend({
  /** The resource id a `Pipeline` managing it would have. */
  id: z.string(),
  /** The stored YAML read into the typed model; absent when it uses what the model lacks. */
  model: PipelineModel.optional(),
});
// The lookup's result fits the schema, and the schema names exactly the lookup's members.
type Fits<A, B> = [A] extends [B]
  ? [keyof A] extends [keyof B]
    ? [keyof B] extends [keyof A]
      ? true
      : never
    : never
  : never;
const pipelineInfoInStep: Fits<platformLookups.PipelineInfo, z.output<typeof PipelineInfoSchema>> = true;
void pipelineInfoInStep;

/**
 * The function of the lookup `name` of `module`, run with the provider's clients. A lookup that
 * returns a list gives it as the result's `listMember`.
 */
const fn = <M extends NativeFunction["module"]>(
  module: M,
  name: keyof (typeof MODULES)[M]["functions"] & `get${string}`,
  args: z.ZodObject,
  result: z.ZodObject,
  listMember?: string,
): NativeFunction => {
  const { functions, options } = MODULES[module];
  const lookup = functions[name as keyof typeof functions] as (a: never, o: object) => Promise<unknown>;
  return {
    name,
    token: `${PACKAGE}:index:${name}`,
    module,
    args,
    result,
    run: listMember
      ? async (a) => ({ [listMember]: await lookup(a as never, options()) })
      : (a) => lookup(a as never, options()),
    ...(listMember ? { listMember } : {}),
  };
};

const { GetGroupArgs, GetUsersArgs, GetWorkspaceArgs, InWorkspaceArgs } = lookups;
const { GetConnectorArgs, GetOrganizationArgs, GetPipelineArgs, GetProjectArgs } = platformLookups;

/** Every function, in the order of the lookups' modules. */
export const NATIVE_FUNCTIONS: readonly NativeFunction[] = [
  fn("lookups", "getWorkspace", GetWorkspaceArgs, Workspace),
  fn("lookups", "getEnvironment", InWorkspaceArgs, Environment),
  fn("lookups", "getRolloutStatus", InWorkspaceArgs, RolloutStatus),
  fn("lookups", "getTrafficType", InWorkspaceArgs, TrafficType),
  fn("lookups", "getGroup", GetGroupArgs, Group),
  fn("lookups", "getSegment", InWorkspaceArgs, Segment),
  fn("lookups", "getFlagSet", InWorkspaceArgs, FlagSet),
  fn("lookups", "getLargeSegment", InWorkspaceArgs, Segment),
  fn("lookups", "getRuleBasedSegment", InWorkspaceArgs, Segment),
  fn("lookups", "getUsers", GetUsersArgs, z.object({ users: z.array(User) }), "users"),
  fn("platform-lookups", "getOrganization", GetOrganizationArgs, OrganizationOutputs.omit({ adopt: true })),
  fn("platform-lookups", "getProject", GetProjectArgs, ProjectOutputs.omit({ adopt: true })),
  fn("platform-lookups", "getConnector", GetConnectorArgs, ConnectorOutputs.omit({ adopt: true })),
  fn("platform-lookups", "getPipeline", GetPipelineArgs, PipelineInfoSchema),
];

/** The functions by token. */
export const NATIVE_FUNCTIONS_BY_TOKEN: ReadonlyMap<string, NativeFunction> = new Map(
  NATIVE_FUNCTIONS.map((f) => [f.token, f]),
);
