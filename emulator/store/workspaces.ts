/**
 * The admin API's account structure: workspaces, their environments and traffic types, and the
 * account's rollout statuses (spec admin §2, §4; ref admin §1). Each part keeps its own rules
 * (unique names, 409 otherwise); what spans parts (a workspace's first traffic type, what a
 * deletion must wait for) is in `index.ts`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { ROLLOUT_STATUSES } from "../../sdk/admin/schemas";
import { badRequest, conflict } from "../errors";
import type { EnvironmentRecord, RolloutStatusRecord, TrafficTypeRecord, WorkspaceRecord } from "./records";
import { Table } from "./table";

/** The workspaces (projects) of the account. */
export class Workspaces extends Table<WorkspaceRecord> {
  constructor() {
    super((w) => w.id);
  }

  /** A workspace by id, or by name (ref admin §2). */
  byRef(ref: string): WorkspaceRecord | undefined {
    return this.get(ref) ?? this.find((w) => w.name === ref);
  }

  /** Adds a workspace; 409 when the name is taken (inferred). */
  create(fields: Omit<WorkspaceRecord, "id">): WorkspaceRecord {
    this.assertFree(fields.name);
    return this.put({ id: randomUUID(), ...fields });
  }

  /** Renames a workspace and sets its title-and-comment rule; 409 when the new name is taken. */
  update(ws: WorkspaceRecord, next: Omit<WorkspaceRecord, "id">): void {
    if (next.name !== ws.name) this.assertFree(next.name);
    ws.name = next.name;
    ws.requiresTitleAndComments = next.requiresTitleAndComments;
  }

  /** The workspace a Harness project is (see `Store.projectWorkspace`). */
  ofProject(org: string, project: string): WorkspaceRecord | undefined {
    const id = project.toLowerCase();
    return this.find((w) => w.organizationIdentifier === org && w.projectIdentifier?.toLowerCase() === id);
  }

  /** Makes a workspace the one of a Harness project. */
  link(ws: WorkspaceRecord, org: string, project: string): void {
    ws.organizationIdentifier = org;
    ws.projectIdentifier = project;
  }

  /**
   * `name` when no workspace has it, else `name (org)`, else that with the first free number:
   * workspace names are unique in the account, project names only in their organization.
   */
  freeName(name: string, org: string): string {
    const taken = (n: string) => this.find((w) => w.name === n) !== undefined;
    if (!taken(name)) return name;
    const qualified = `${name} (${org})`;
    let candidate = qualified;
    for (let i = 2; taken(candidate); i++) candidate = `${qualified} ${i}`;
    return candidate;
  }

  /** Removes a workspace (see `Store.deleteWorkspace` for what it must not hold). */
  remove(ws: WorkspaceRecord): void {
    this.drop(ws.id);
  }

  private assertFree(name: string): void {
    if (this.find((w) => w.name === name)) throw conflict(`Workspace with name ${name} already exists`);
  }
}

/** The environments of every workspace. */
export class Environments extends Table<EnvironmentRecord> {
  constructor() {
    super((e) => e.id);
  }

  /** Environments of a workspace, in creation order. */
  inWorkspace(workspaceId: string): EnvironmentRecord[] {
    return this.list().filter((e) => e.workspaceId === workspaceId);
  }

  /** An environment of a workspace by id or name (ref admin §2). */
  byRef(workspaceId: string, ref: string): EnvironmentRecord | undefined {
    const byId = this.get(ref);
    if (byId && byId.workspaceId === workspaceId) return byId;
    return this.find((e) => e.workspaceId === workspaceId && e.name === ref);
  }

  /** An environment of any workspace by id, or by name (the first of that name). */
  anyByRef(ref: string): EnvironmentRecord | undefined {
    return this.get(ref) ?? this.find((e) => e.name === ref);
  }

  /** Adds an environment; 409 when its workspace has one of that name (inferred). */
  create(ws: WorkspaceRecord, fields: { name: string; production: boolean }): EnvironmentRecord {
    this.assertFree(ws, fields.name);
    return this.put({ id: randomUUID(), workspaceId: ws.id, ...fields });
  }

  /**
   * Renames an environment and sets its production flag; 409 when the new name is taken. With
   * `apply` false only the checks run (`dry_run`, ref admin §9.1).
   */
  update(
    ws: WorkspaceRecord,
    env: EnvironmentRecord,
    next: { name: string; production: boolean },
    apply = true,
  ) {
    if (next.name !== env.name) this.assertFree(ws, next.name);
    if (!apply) return;
    env.name = next.name;
    env.production = next.production;
  }

  /** Removes an environment (see `Store.deleteEnvironment` for what goes with it). */
  remove(env: EnvironmentRecord): void {
    this.drop(env.id);
  }

  private assertFree(ws: WorkspaceRecord, name: string): void {
    if (this.find((e) => e.workspaceId === ws.id && e.name === name)) {
      throw conflict(`Environment with name ${name} already exists in workspace ${ws.name}`);
    }
  }
}

/** The traffic types of every workspace. */
export class TrafficTypes extends Table<TrafficTypeRecord> {
  constructor() {
    super((t) => t.id);
  }

  /** Traffic types of a workspace, in creation order. */
  inWorkspace(workspaceId: string): TrafficTypeRecord[] {
    return this.list().filter((t) => t.workspaceId === workspaceId);
  }

  /** A traffic type of a workspace by name, else by id. */
  byRef(workspaceId: string, ref: string): TrafficTypeRecord | undefined {
    const tts = this.inWorkspace(workspaceId);
    return tts.find((t) => t.name === ref) ?? tts.find((t) => t.id === ref);
  }

  /**
   * Adds a traffic type. The SDK lower-cases traffic type names (ref admin §6), so names that
   * differ only in case collide: 409.
   */
  create(ws: WorkspaceRecord, name: string): TrafficTypeRecord {
    if (this.inWorkspace(ws.id).some((t) => t.name.toLowerCase() === name.toLowerCase())) {
      throw conflict(`Traffic type with name ${name} already exists in workspace ${ws.name}`);
    }
    return this.put({ id: randomUUID(), workspaceId: ws.id, name, displayAttributeId: null });
  }

  /** Removes a traffic type (see `Store.deleteTrafficType` for what must not use it). */
  remove(tt: TrafficTypeRecord): void {
    this.drop(tt.id);
  }
}

/** Name of the rollout status a new flag starts in (spec admin §3). */
export const INITIAL_ROLLOUT_STATUS = "Pre-Production";

/** The account's rollout statuses: the fixed list of the shared schemas, each with an id. */
export class RolloutStatuses extends Table<RolloutStatusRecord> {
  constructor() {
    super((s) => s.id);
  }

  /** Gives a new account the fixed list. */
  seed(): void {
    this.restore(ROLLOUT_STATUSES.map((s) => ({ id: randomUUID(), ...s })));
  }

  /** The status a new flag starts in. */
  initial(): RolloutStatusRecord {
    const initial = this.find((s) => s.name === INITIAL_ROLLOUT_STATUS) ?? this.list()[0];
    if (!initial) throw badRequest("the account has no rollout statuses");
    return initial;
  }
}
