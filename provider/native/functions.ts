/**
 * The functions of the native provider: each lookup of `provider/lookups.ts` and
 * `provider/platform-lookups.ts` as `flagstack:index:<name>` (`getWorkspace`, `getProject`, ...),
 * run with the provider instance's own clients (its configuration, not the stack's: an explicit
 * provider of another account looks up in that account). The lookups themselves are the ones a
 * TypeScript program calls; only their results are given a schema here where the lookup has none.
 * @module
 */
import { z } from "zod";
import { Environment, Group, RolloutStatus, TrafficType, User, Workspace } from "../../sdk/admin/schemas";
import { ConnectorOutputs } from "../connector";
import { adminClient } from "../core/config";
import {
  GetGroupArgs,
  GetUsersArgs,
  GetWorkspaceArgs,
  getEnvironment,
  getGroup,
  getRolloutStatus,
  getTrafficType,
  getUsers,
  getWorkspace,
  InWorkspaceArgs,
} from "../lookups";
import { PipelineOutputs } from "../pipeline";
import { PipelineModel } from "../pipeline-model";
import { platformApi } from "../platform-common";
import {
  GetConnectorArgs,
  GetPipelineArgs,
  GetProjectArgs,
  getConnector,
  getPipeline,
  getProject,
  type PipelineInfo,
} from "../platform-lookups";
import { ProjectOutputs } from "../project";
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

const admin = () => ({ client: adminClient() });
const platform = () => ({ client: platformApi() });

/**
 * What {@link getPipeline} returns, as a schema; checked against the lookup's own type below, so
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
const pipelineInfoInStep: Fits<PipelineInfo, z.output<typeof PipelineInfoSchema>> = true;
void pipelineInfoInStep;

const fn = (
  name: string,
  module: NativeFunction["module"],
  args: z.ZodObject,
  result: z.ZodObject,
  run: NativeFunction["run"],
  listMember?: string,
): NativeFunction => ({
  name,
  token: `${PACKAGE}:index:${name}`,
  module,
  args,
  result,
  run,
  ...(listMember ? { listMember } : {}),
});

/** Every function, in the order of the lookups' modules. */
export const NATIVE_FUNCTIONS: readonly NativeFunction[] = [
  fn("getWorkspace", "lookups", GetWorkspaceArgs, Workspace, (a) => getWorkspace(a as never, admin())),
  fn("getEnvironment", "lookups", InWorkspaceArgs, Environment, (a) => getEnvironment(a as never, admin())),
  fn("getRolloutStatus", "lookups", InWorkspaceArgs, RolloutStatus, (a) =>
    getRolloutStatus(a as never, admin()),
  ),
  fn("getTrafficType", "lookups", InWorkspaceArgs, TrafficType, (a) => getTrafficType(a as never, admin())),
  fn("getGroup", "lookups", GetGroupArgs, Group, (a) => getGroup(a as never, admin())),
  fn(
    "getUsers",
    "lookups",
    GetUsersArgs,
    z.object({ users: z.array(User) }),
    async (a) => ({ users: await getUsers(a as never, admin()) }),
    "users",
  ),
  fn("getProject", "platform-lookups", GetProjectArgs, ProjectOutputs.omit({ adopt: true }), (a) =>
    getProject(a as never, platform()),
  ),
  fn("getConnector", "platform-lookups", GetConnectorArgs, ConnectorOutputs.omit({ adopt: true }), (a) =>
    getConnector(a as never, platform()),
  ),
  fn("getPipeline", "platform-lookups", GetPipelineArgs, PipelineInfoSchema, (a) =>
    getPipeline(a as never, platform()),
  ),
];

/** The functions by token. */
export const NATIVE_FUNCTIONS_BY_TOKEN: ReadonlyMap<string, NativeFunction> = new Map(
  NATIVE_FUNCTIONS.map((f) => [f.token, f]),
);
