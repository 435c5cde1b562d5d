/**
 * The platform API's objects (spec platform §2-4; ref platform §3-6): organizations, projects,
 * connectors (at account, organization or project scope) and pipelines, with the service's rules
 * on them: identifiers unique in their scope (projects case-insensitively, ref §3), versions that
 * move with each change (the ETag, ref §1), a deletion taking what lives inside with it
 * (inferred: the service cascades through entity-delete events), connector delete being soft
 * (ref §5).
 * @module
 */
import { connectorRefsOf, loadYaml } from "../../sdk/platform/pipeline/index";
import {
  duplicateField,
  invalidArgument,
  invalidRequest,
  referencedEntity,
  resourceNotFound,
} from "../platform/errors";
import type {
  PlatformScope,
  PlatformState,
  StoredConnector,
  StoredOrganization,
  StoredPipeline,
  StoredProject,
} from "./records";

/**
 * The modules every project gets: `ModuleType.getModules()`, the non-internal module types
 * (inferred list; ref §4 names the call, not its values). Modules are server-owned: the service
 * ignores the client's list.
 */
export const PROJECT_MODULES = [
  "CD",
  "CI",
  "CV",
  "CF",
  "CE",
  "STO",
  "CHAOS",
  "SRM",
  "IACM",
  "CET",
  "IDP",
  "CODE",
  "SSCA",
  "SEI",
] as const;

/**
 * The account's built-in secret manager. The service creates one at every scope, so the
 * identifier is always taken (ref §5: "reserved").
 */
export const HARNESS_SECRET_MANAGER = "harnessSecretManager";

/** Project identifiers are looked up case-insensitively (ref §3: `findBy…IdentifierIgnoreCase`). */
const projectKey = (org: string, identifier: string) => `${org}/${identifier.toLowerCase()}`;
/** An absent scope level is written `-`. */
const connectorKey = (scope: PlatformScope, identifier: string) =>
  `${scope.org ?? "-"}/${scope.project ?? "-"}/${identifier}`;
const pipelineKey = (org: string, project: string, identifier: string) => `${org}/${project}/${identifier}`;
/** Scope levels as the service prints them: `null` when absent. */
const shown = (v: string | null) => (v === null ? "null" : v);
const inProject = (org: string, project: string, o: PlatformScope) =>
  o.org === org && o.project?.toLowerCase() === project.toLowerCase();

/** The fields of a connector a create or update sets (the body, scope resolved). */
export type ConnectorFields = Omit<
  StoredConnector["connector"],
  "accountIdentifier" | "orgIdentifier" | "projectIdentifier"
>;

/** What must hear of a deletion that takes objects of another part along. */
export interface PlatformCascade {
  /** A project was made or its fields replaced: its FME workspace is made, taken or renamed with it. */
  projectSaved(project: StoredProject, previous: StoredProject | undefined): void;
  forgetOrganization(org: string): void;
  forgetProject(org: string, project: string): void;
  forgetPipeline(org: string, project: string, pipeline: string): void;
}

/** What the platform API stores. */
export class PlatformStore {
  readonly #organizations = new Map<string, StoredOrganization>();
  readonly #projects = new Map<string, StoredProject>();
  readonly #connectors = new Map<string, StoredConnector>();
  readonly #pipelines = new Map<string, StoredPipeline>();
  #accountId = "";
  /** Told of the deletions that take other parts along (the v2 entities, the access control: `index.ts`). */
  cascade: PlatformCascade | undefined;

  /** The account whose objects these are. */
  get accountId(): string {
    return this.#accountId;
  }

  // -------------------------------------------------------------------------------------------
  // Organizations

  /** An organization by identifier. */
  organization(identifier: string): StoredOrganization | undefined {
    return this.#organizations.get(identifier);
  }

  /** Every organization. */
  organizations(): StoredOrganization[] {
    return [...this.#organizations.values()];
  }

  /** Adds an organization; 400 DUPLICATE_FIELD when the identifier is taken. */
  createOrganization(fields: Omit<StoredOrganization, "createdAt" | "lastModifiedAt" | "version">) {
    if (this.#organizations.has(fields.identifier)) {
      throw duplicateField(`An organization with identifier [${fields.identifier}] is already present`);
    }
    const now = Date.now();
    const stored: StoredOrganization = { ...fields, createdAt: now, lastModifiedAt: now, version: 0 };
    this.#organizations.set(fields.identifier, stored);
    return stored;
  }

  /** Replaces an organization's fields (a full replace); its version moves on. */
  replaceOrganization(
    existing: StoredOrganization,
    fields: Omit<StoredOrganization, "createdAt" | "lastModifiedAt" | "version">,
  ): StoredOrganization {
    const updated: StoredOrganization = {
      ...fields,
      createdAt: existing.createdAt,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt ?? existing.createdAt),
      version: existing.version + 1,
    };
    this.#organizations.set(existing.identifier, updated);
    return updated;
  }

  /** Removes an organization with its projects (and what lives in them) and connectors. */
  deleteOrganization(existing: StoredOrganization): void {
    const org = existing.identifier;
    for (const project of [...this.#projects.values()]) {
      if (project.project.orgIdentifier === org) this.deleteProject(project);
    }
    for (const [key, c] of this.#connectors)
      if (c.connector.orgIdentifier === org) this.#connectors.delete(key);
    this.#organizations.delete(org);
    this.cascade?.forgetOrganization(org);
  }

  // -------------------------------------------------------------------------------------------
  // Projects

  /** A project by identifier, case-insensitively (ref §3). */
  project(org: string, identifier: string): StoredProject | undefined {
    return this.#projects.get(projectKey(org, identifier));
  }

  /** Every project. */
  projects(): StoredProject[] {
    return [...this.#projects.values()];
  }

  /**
   * Adds a project with the server's modules; 400 INVALID_ARGUMENT when the organization does
   * not exist, DUPLICATE_FIELD when the identifier is taken there (ref §4).
   */
  createProject(project: Omit<StoredProject["project"], "modules">): StoredProject {
    const org = project.orgIdentifier;
    if (!this.#organizations.has(org)) {
      throw invalidArgument(`Organization [${org}] in Account [${this.#accountId}] does not exist`);
    }
    if (this.project(org, project.identifier) !== undefined) {
      throw duplicateField(
        `A project with identifier [${project.identifier}] and orgIdentifier [${org}] is already present`,
      );
    }
    const now = Date.now();
    const stored: StoredProject = {
      project: {
        orgIdentifier: org,
        identifier: project.identifier,
        name: project.name,
        color: project.color,
        modules: [...PROJECT_MODULES],
        description: project.description,
        tags: project.tags,
      },
      createdAt: now,
      lastModifiedAt: now,
      version: 0,
    };
    this.#projects.set(projectKey(org, project.identifier), stored);
    this.cascade?.projectSaved(stored, undefined);
    return stored;
  }

  /** Replaces a project's fields (ref §4: a full replace); identifier and modules stay. */
  replaceProject(existing: StoredProject, fields: Omit<StoredProject["project"], "identifier" | "modules">) {
    const { identifier, modules } = existing.project;
    const updated: StoredProject = {
      project: {
        orgIdentifier: fields.orgIdentifier,
        identifier,
        name: fields.name,
        color: fields.color,
        modules,
        description: fields.description,
        tags: fields.tags,
      },
      createdAt: existing.createdAt,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
      version: existing.version + 1,
    };
    this.#projects.set(projectKey(existing.project.orgIdentifier, identifier), updated);
    this.cascade?.projectSaved(updated, existing);
    return updated;
  }

  /** Removes a project (ref §4: a hard delete) with its connectors and pipelines. */
  deleteProject(existing: StoredProject): void {
    const { orgIdentifier: org, identifier: id } = existing.project;
    this.#projects.delete(projectKey(org, id));
    this.cascade?.forgetProject(org, id);
    for (const [key, c] of this.#connectors) {
      const { orgIdentifier, projectIdentifier } = c.connector;
      if (inProject(org, id, { org: orgIdentifier, project: projectIdentifier }))
        this.#connectors.delete(key);
    }
    for (const [key, p] of this.#pipelines) {
      if (inProject(org, id, { org: p.orgIdentifier, project: p.projectIdentifier }))
        this.#pipelines.delete(key);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Connectors

  /** A live (not soft-deleted) connector of a scope. */
  connector(scope: PlatformScope, identifier: string): StoredConnector | undefined {
    const stored = this.#connectors.get(connectorKey(scope, identifier));
    return stored === undefined || stored.deleted ? undefined : stored;
  }

  /** The live connectors of a scope. */
  connectorsIn(scope: PlatformScope): StoredConnector[] {
    return [...this.#connectors.values()].filter(
      (s) =>
        !s.deleted &&
        s.connector.orgIdentifier === scope.org &&
        s.connector.projectIdentifier === scope.project,
    );
  }

  /**
   * Adds a connector (replacing a soft-deleted one of that identifier). The scope must exist
   * (ref §5 `assureThatTheProjectAndOrgExists`); the identifier check runs first and answers
   * INVALID_REQUEST, not DUPLICATE_FIELD (ref §5); the name must be free in the scope too.
   */
  createConnector(scope: PlatformScope, fields: ConnectorFields): StoredConnector {
    this.assureScope(scope);
    if (
      this.connector(scope, fields.identifier) !== undefined ||
      fields.identifier === HARNESS_SECRET_MANAGER
    ) {
      throw invalidRequest(
        `The connector with identifier ${fields.identifier} already exists in the account ${this.#accountId}, org ${shown(scope.org)}, project ${shown(scope.project)}`,
      );
    }
    this.assureNameFree(scope, fields.name);
    const now = Date.now();
    return this.putConnector(scope, fields, { createdAt: now, lastModifiedAt: now, version: 0 });
  }

  /**
   * Replaces a connector (ref §5: a full replace, "provide values for all fields"); 400 when
   * there is none, or another connector of the scope has the name (inferred from the create rule).
   */
  replaceConnector(scope: PlatformScope, fields: ConnectorFields): StoredConnector {
    this.assureScope(scope);
    const existing = this.connector(scope, fields.identifier);
    // The double space is the service's own text (ref §5).
    if (existing === undefined)
      throw invalidRequest(`No connector exists with the  Identifier ${fields.identifier}`);
    this.assureNameFree(scope, fields.name, existing);
    return this.putConnector(
      scope,
      { ...fields, identifier: existing.connector.identifier },
      {
        createdAt: existing.createdAt,
        lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
        version: existing.version + 1,
      },
    );
  }

  /**
   * Soft-deletes a connector; 400 when there is none, and ENTITY_REFERENCE_EXCEPTION while a
   * pipeline refers to it, unless `force` (ref §5: `forceDelete=true`).
   */
  deleteConnector(scope: PlatformScope, identifier: string, force: boolean): void {
    const stored = this.connector(scope, identifier);
    if (stored === undefined) {
      throw invalidRequest(
        `No connector exists with the identifier ${identifier} in account ${this.#accountId}, organisation ${shown(scope.org)}, project ${shown(scope.project)}`,
      );
    }
    if (!force && this.isReferenced(scope, stored.connector.identifier)) {
      throw referencedEntity(
        `Could not delete the connector ${identifier} as it is referenced by other entities`,
      );
    }
    stored.deleted = true;
    stored.lastModifiedAt = Math.max(Date.now(), stored.lastModifiedAt);
  }

  /** `DefaultConnectorServiceImpl.assureThatTheProjectAndOrgExists` (ref §5). */
  private assureScope(scope: PlatformScope): void {
    if (scope.project !== null && scope.org === null) {
      throw invalidRequest(`Project ${scope.project} specified without the org Identifier`);
    }
    if (scope.org !== null && !this.#organizations.has(scope.org)) {
      throw resourceNotFound(`org [${scope.org}] not found.`);
    }
    if (
      scope.org !== null &&
      scope.project !== null &&
      this.project(scope.org, scope.project) === undefined
    ) {
      throw resourceNotFound(`project [${scope.project}] not found.`);
    }
  }

  private assureNameFree(scope: PlatformScope, name: string, except?: StoredConnector): void {
    if (this.connectorsIn(scope).some((s) => s !== except && s.connector.name === name)) {
      throw invalidRequest(`Connector with name [${name}] already exists`);
    }
  }

  private putConnector(
    scope: PlatformScope,
    fields: ConnectorFields,
    times: Pick<StoredConnector, "createdAt" | "lastModifiedAt" | "version">,
  ): StoredConnector {
    const stored: StoredConnector = {
      connector: {
        name: fields.name,
        identifier: fields.identifier,
        description: fields.description,
        accountIdentifier: this.#accountId,
        orgIdentifier: scope.org,
        projectIdentifier: scope.project,
        tags: fields.tags,
        type: fields.type,
        spec: fields.spec,
      },
      ...times,
      deleted: false,
    };
    this.#connectors.set(connectorKey(scope, fields.identifier), stored);
    return stored;
  }

  /** Whether a stored pipeline refers to the connector (`connectorRef`, with `org.`/`account.` prefixes). */
  private isReferenced(scope: PlatformScope, identifier: string): boolean {
    return [...this.#pipelines.values()].some((p) => {
      const read = loadYaml(p.yaml);
      return (read.ok ? connectorRefsOf(read.value) : []).some((ref) => {
        if (ref.startsWith("account.")) return scope.org === null && ref.slice(8) === identifier;
        if (ref.startsWith("org."))
          return scope.org === p.orgIdentifier && scope.project === null && ref.slice(4) === identifier;
        return inProject(p.orgIdentifier, p.projectIdentifier, scope) && ref === identifier;
      });
    });
  }

  // -------------------------------------------------------------------------------------------
  // Pipelines

  /** A pipeline by identifier. */
  pipeline(org: string, project: string, identifier: string): StoredPipeline | undefined {
    return this.#pipelines.get(pipelineKey(org, project, identifier));
  }

  /** The pipelines of a project, in the order they were made. */
  pipelinesOf(org: string, project: string): StoredPipeline[] {
    return [...this.#pipelines.values()].filter(
      (p) => p.orgIdentifier === org && p.projectIdentifier === project,
    );
  }

  /** Adds a pipeline; 400 DUPLICATE_FIELD when the identifier is taken in the project. */
  createPipeline(fields: Omit<StoredPipeline, "createdAt" | "lastModifiedAt" | "version">): StoredPipeline {
    const { orgIdentifier: org, projectIdentifier: project, identifier } = fields;
    if (this.pipeline(org, project, identifier) !== undefined) {
      throw duplicateField(
        `Pipeline [${identifier}] under Project[${project}], Organization [${org}] already exists or has been deleted.`,
      );
    }
    const now = Date.now();
    const stored: StoredPipeline = { ...fields, createdAt: now, lastModifiedAt: now, version: 0 };
    this.#pipelines.set(pipelineKey(org, project, identifier), stored);
    return stored;
  }

  /** Replaces a pipeline's YAML and what is read out of it; its version moves on. */
  replacePipeline(
    existing: StoredPipeline,
    fields: Pick<StoredPipeline, "name" | "description" | "tags" | "yaml">,
  ): StoredPipeline {
    const updated: StoredPipeline = {
      ...existing,
      ...fields,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
      version: existing.version + 1,
    };
    this.#pipelines.set(
      pipelineKey(existing.orgIdentifier, existing.projectIdentifier, existing.identifier),
      updated,
    );
    return updated;
  }

  /** Removes a pipeline (ref §6.2: a hard delete, so the identifier can be used again). */
  deletePipeline(existing: StoredPipeline): void {
    const { orgIdentifier: org, projectIdentifier: project, identifier } = existing;
    this.#pipelines.delete(pipelineKey(org, project, identifier));
    this.cascade?.forgetPipeline(org, project, identifier);
  }

  // -------------------------------------------------------------------------------------------
  // Persistence

  /** Replaces everything (a state file loaded, or rolled back to). */
  restore(state: PlatformState): void {
    this.#accountId = state.accountId;
    for (const [map, records] of [
      [this.#organizations, state.organizations],
      [this.#projects, state.projects],
      [this.#connectors, state.connectors],
      [this.#pipelines, state.pipelines],
    ] as const) {
      map.clear();
      for (const [key, value] of Object.entries(records)) (map as Map<string, unknown>).set(key, value);
    }
  }

  /** Everything, for the state file. */
  dump(): PlatformState {
    return {
      accountId: this.#accountId,
      organizations: Object.fromEntries(this.#organizations),
      projects: Object.fromEntries(this.#projects),
      connectors: Object.fromEntries(this.#connectors),
      pipelines: Object.fromEntries(this.#pipelines),
    };
  }
}
