/**
 * Workspaces (projects) of the admin API: list (offset pages, by name or Harness project), create,
 * JSON Patch and delete (spec §4 "Projects and environments", ref §1.1, §1.2, §9.1).
 * @module
 */
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart } from "./part";
import { JsonPatch, LIMITS, type Workspace, WorkspaceCreate } from "./schemas";

/** Workspaces (projects): spec §4 "Projects and environments". */
export class WorkspacesApi extends AdminApiPart {
  /**
   * Every workspace the key can see, page after page.
   * @param options.pageSize Workspaces per request, 1 to 100 (default 100).
   * @example
   * for await (const ws of admin.workspaces.list()) console.log(ws.name);
   */
  list(
    options: {
      pageSize?: number;
      name?: string;
      organizationIdentifier?: string;
      projectIdentifier?: string;
    } = {},
  ): AsyncIterable<Workspace> {
    const { name, organizationIdentifier, projectIdentifier } = options;
    const query = {
      name,
      nameOp: name === undefined ? undefined : "IS",
      organizationIdentifier,
      projectIdentifier,
    };
    return this.offsetPages(E.workspaces.list, {}, options.pageSize, LIMITS.workspacesMax, query);
  }

  /**
   * The workspace of a Harness project, or `undefined`: under Harness, an FME project is the
   * Harness project (ref §1.2, `GET /workspaces?organizationIdentifier=&projectIdentifier=`).
   * @example
   * const ws = await admin.workspaces.getByHarnessProject("default", "payments");
   */
  async getByHarnessProject(
    organizationIdentifier: string,
    projectIdentifier: string,
  ): Promise<Workspace | undefined> {
    for await (const ws of this.list({ organizationIdentifier, projectIdentifier })) return ws;
    return undefined;
  }

  /**
   * The workspace with exactly this name, or `undefined` (ref §9.1: `?name=&nameOp=IS`).
   * @example
   * const ws = await admin.workspaces.getByName("Default");
   */
  async getByName(name: string): Promise<Workspace | undefined> {
    for await (const ws of this.list({ name })) if (ws.name === name) return ws;
    return undefined;
  }

  /**
   * Creates a workspace (ref §1.1; the service creates its `user` traffic type, not environments).
   * @example
   * const ws = await admin.workspaces.create({ name: "Payments", requiresTitleAndComments: true });
   */
  async create(body: WorkspaceCreate): Promise<Workspace> {
    return this.send(E.workspaces.create, {}, WorkspaceCreate, body);
  }

  /** The workspace with this id or name, or `undefined` (the list: there is no GET by id in ref §1.1). */
  async find(nameOrId: string): Promise<Workspace | undefined> {
    for await (const ws of this.list()) if (ws.id === nameOrId || ws.name === nameOrId) return ws;
    return undefined;
  }

  /** Applies a JSON Patch: `/name`, `/requiresTitleAndComments` (ref §9.1). */
  async patch(wsId: string, ops: JsonPatch): Promise<Workspace> {
    return this.send(E.workspaces.patch, { wsId }, JsonPatch, ops, "JSON Patch");
  }

  /** Deletes a workspace; refused while it has traffic types (ref §1.2). */
  async delete(wsId: string): Promise<true> {
    return this.request(E.workspaces.delete, { wsId });
  }
}

/** Workspaces (projects). */
export const part = adminPart("workspaces", (core) => new WorkspacesApi(core));
