/**
 * Environments of a workspace (spec §2, ref §1.1, §1.2): a bare-array list, create (with the
 * environment's SDK keys), JSON Patch (with `dryRun`) and delete.
 * @module
 */
import { parseInput } from "../core/validate-input";
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart, byIdOrName } from "./part";
import { type Environment, EnvironmentCreate, type EnvironmentDetail, JsonPatch } from "./schemas";

/** Environments of a workspace: a bare array (spec §2). */
export class EnvironmentsApi extends AdminApiPart {
  /**
   * All environments of a workspace.
   * @example
   * const envs = await admin.environments.list(ws.id); // [{ id, name: "Production", production: true }, ...]
   */
  async list(wsId: string): Promise<Environment[]> {
    return this.request(E.environments.list, { wsId });
  }

  /**
   * Creates an environment (ref §1.1); the service also creates its client- and server-side SDK
   * keys, returned in `apiTokens`.
   * @example
   * const qa = await admin.environments.create(ws.id, { name: "QA", production: false });
   */
  async create(wsId: string, body: EnvironmentCreate): Promise<EnvironmentDetail> {
    return this.send(E.environments.create, { wsId }, EnvironmentCreate, body);
  }

  /**
   * Applies a JSON Patch: `/name`, `/production`, `/changePermissions` (ref §1.2). With `dryRun`
   * the service checks the patch and answers the result without applying it (ref §1.1).
   */
  async patch(
    wsId: string,
    envIdOrName: string,
    ops: JsonPatch,
    options: { dryRun?: boolean } = {},
  ): Promise<EnvironmentDetail> {
    const body = parseInput(JsonPatch, ops, E.environments.patch, "JSON Patch");
    const query = { dry_run: options.dryRun ? "true" : undefined };
    return this.request(E.environments.patch, { wsId, environment: envIdOrName }, { body, query });
  }

  /** Deletes an environment; refused while API keys of it exist: revoke them first (ref §1.2). */
  async delete(wsId: string, envIdOrName: string): Promise<true> {
    return this.request(E.environments.delete, { wsId, environment: envIdOrName });
  }

  /** The environment with this name or id, or `undefined` (there is no GET by id, ref §1.2). */
  async find(wsId: string, nameOrId: string): Promise<Environment | undefined> {
    return byIdOrName(await this.list(wsId), nameOrId);
  }
}

/** Environments of a workspace. */
export const part = adminPart("environments", (core) => new EnvironmentsApi(core));
