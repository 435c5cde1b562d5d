/**
 * The platform API's v2 entities: services, environments, infrastructure definitions,
 * secrets, input sets and triggers, one private map per kind behind one set of domain methods
 * (the six share the NG CRUD shape; what differs is data: `emulator/platform/<entity>.ts`).
 *
 * Rules kept here, as the real service keeps them:
 * - the scope must exist: `org [x] not found.` / `project [x] not found.`, 400 FailureDTO
 *   (harness-core `OrgAndProjectValidationHelper.checkThatTheOrganizationAndProjectExists`, a
 *   javax `NotFoundException`);
 * - an infrastructure's environment must exist, on create and on update: `Environment with ref
 *   [x] not found` (harness-core `InfrastructureResource.create`/`update` call
 *   `EnvironmentValidationHelper.checkThatEnvExists`);
 * - an input set or trigger needs its pipeline (inferred: both are saved against the pipeline's
 *   YAML);
 * - `If-Match` is compared with the version where the API offers it (the entity's own refusal);
 * - a deletion takes along what lives inside: an environment its infrastructures, a pipeline its
 *   input sets and triggers, a project or organization everything in it (inferred, as the
 *   existing parts cascade; harness-core deletes them through entity-delete events);
 * - and what names it (the references a write named, kept with the entity): an environment and a
 *   service their service overrides (harness-core `EnvironmentServiceImpl.processDownstreamDeletions`
 *   calls `serviceOverrideService.deleteAllInEnv`, `ServiceEntityServiceImpl.delete`
 *   `serviceOverridesServiceV2.deleteAllOfService`).
 * @module
 */
import type { EmulatorError } from "../errors";
import { resourceNotFound } from "../platform/errors";
import type { PlatformStore } from "./platform";
import {
  ENTITY_KINDS,
  ENTITY_PARENTS,
  type EntityAt,
  type EntityFields,
  type EntityKind,
  type EntityRef,
  type PlatformEntitiesState,
  type StoredEntity,
} from "./platform-entity-records";

/** How one kind's refusals read (each an error of the real service, see `emulator/platform/<entity>.ts`). */
export interface EntityRefusals {
  /** The identifier is taken in the scope. */
  duplicate: (id: string, at: EntityAt) => EmulatorError;
  /** An update of an entity that does not exist. */
  updateMissing: (id: string, at: EntityAt) => EmulatorError;
  /** A deletion of an entity that does not exist. */
  deleteMissing: (id: string, at: EntityAt) => EmulatorError;
  /** `If-Match` names another version than the stored one. */
  stale: (id: string, at: EntityAt, verb: "update" | "delete") => EmulatorError;
  /** The parent (environment, pipeline) does not exist. */
  parentMissing?: (at: EntityAt) => EmulatorError;
}

/**
 * An entity a write names: its kind, scope and identifier, and the refusal when it does not exist
 * (none: it need not exist, as an override's service). The entity written goes with it.
 */
export interface EntityReference {
  kind: EntityKind;
  at: EntityAt;
  identifier: string;
  missing?: () => EmulatorError;
}

/** The kind each kind lives under, when that is a v2 entity (an infrastructure's environment). */
const PARENT: Partial<Record<EntityKind, EntityKind | "pipeline">> = ENTITY_PARENTS;
/** What lives under an entity of a kind, removed with it (from each part's `parent`). */
const CHILDREN = (kind: EntityKind | "pipeline"): EntityKind[] =>
  ENTITY_KINDS.filter((k) => PARENT[k] === kind);

/** The references a write named, as the entity keeps them (none: no member). */
const referencesOf = (refs: readonly EntityReference[]): { references?: EntityRef[] } =>
  refs.length === 0
    ? {}
    : { references: refs.map((r) => ({ kind: r.kind, at: r.at, identifier: r.identifier })) };

const level = (v: string | null) => v ?? "-";
/** Projects are looked up case-insensitively (ref §3), so the key lower-cases them. */
const keyOf = (at: EntityAt, identifier: string) =>
  `${level(at.org)}/${level(at.project?.toLowerCase() ?? null)}/${level(at.parent)}/${identifier}`;
const sameScope = (a: EntityAt, b: EntityAt) =>
  a.org === b.org && a.project?.toLowerCase() === b.project?.toLowerCase() && a.parent === b.parent;

/** The v2 entities (see the module comment). */
export class PlatformEntities {
  readonly #maps = Object.fromEntries(
    ENTITY_KINDS.map((k) => [k, new Map<string, StoredEntity>()]),
  ) as Record<EntityKind, Map<string, StoredEntity>>;

  /** @param platform - the organizations, projects and pipelines the entities live in */
  constructor(private readonly platform: PlatformStore) {}

  /** An entity by identifier in its scope. */
  get(kind: EntityKind, at: EntityAt, identifier: string): StoredEntity | undefined {
    return this.#maps[kind].get(keyOf(at, identifier));
  }

  /** The entities of a kind in one scope (and parent), newest first (`createdAt DESC`, the NG lists' default). */
  list(kind: EntityKind, at: EntityAt): StoredEntity[] {
    return [...this.#maps[kind].values()]
      .filter((e) => sameScope(e.at, at))
      .sort((a, b) => b.createdAt - a.createdAt || a.identifier.localeCompare(b.identifier));
  }

  /**
   * The entities of a kind in one scope whatever they live under (the versions of a template, each
   * kept under its version label), newest first.
   */
  inScope(kind: EntityKind, org: string | null, project: string | null): StoredEntity[] {
    return [...this.#maps[kind].values()]
      .filter((e) => e.at.org === org && e.at.project?.toLowerCase() === project?.toLowerCase())
      .sort((a, b) => b.createdAt - a.createdAt || a.identifier.localeCompare(b.identifier));
  }

  /** Adds an entity; refused when its scope or parent is missing or the identifier is taken. */
  create(
    kind: EntityKind,
    at: EntityAt,
    fields: EntityFields,
    refuse: EntityRefusals,
    refs: readonly EntityReference[] = [],
  ): StoredEntity {
    this.assure(kind, at, refuse, refs);
    if (this.get(kind, at, fields.identifier) !== undefined) throw refuse.duplicate(fields.identifier, at);
    const now = Date.now();
    const stored: StoredEntity = {
      ...fields,
      at,
      createdAt: now,
      lastModifiedAt: now,
      version: 0,
      ...referencesOf(refs),
    };
    this.#maps[kind].set(keyOf(at, fields.identifier), stored);
    return stored;
  }

  /**
   * Replaces an entity's fields (the NG updates are full replaces); its version moves on.
   * `ifMatch` (a version, or null when the request sent none the service reads) must be current.
   */
  replace(
    kind: EntityKind,
    at: EntityAt,
    fields: EntityFields,
    ifMatch: number | null,
    refuse: EntityRefusals,
    refs: readonly EntityReference[] = [],
  ): StoredEntity {
    this.assure(kind, at, refuse, refs);
    const existing = this.current(kind, at, fields.identifier, ifMatch, refuse, "update");
    const updated: StoredEntity = {
      ...fields,
      at: existing.at,
      createdAt: existing.createdAt,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
      version: existing.version + 1,
      ...referencesOf(refs),
    };
    this.#maps[kind].set(keyOf(at, fields.identifier), updated);
    return updated;
  }

  /** Removes an entity with what lives under it; `ifMatch` as for {@link PlatformEntities.replace}. */
  remove(kind: EntityKind, at: EntityAt, id: string, ifMatch: number | null, refuse: EntityRefusals): void {
    this.drop(kind, this.current(kind, at, id, ifMatch, refuse, "delete"));
  }

  /** The entity an update or deletion acts on: it must exist, at the version `ifMatch` names (if any). */
  private current(
    kind: EntityKind,
    at: EntityAt,
    identifier: string,
    ifMatch: number | null,
    refuse: EntityRefusals,
    verb: "update" | "delete",
  ): StoredEntity {
    const existing = this.get(kind, at, identifier);
    if (existing === undefined) {
      throw (verb === "update" ? refuse.updateMissing : refuse.deleteMissing)(identifier, at);
    }
    if (ifMatch !== null && ifMatch !== existing.version) throw refuse.stale(identifier, at, verb);
    return existing;
  }

  /** A project was deleted: everything in it goes. */
  forgetProject(org: string, project: string): void {
    this.forgetWhere((at) => at.org === org && at.project?.toLowerCase() === project.toLowerCase());
  }

  /** An organization was deleted: everything in it goes (its projects' entities with them). */
  forgetOrganization(org: string): void {
    this.forgetWhere((at) => at.org === org);
  }

  /** A pipeline was deleted: its input sets and triggers go. */
  forgetPipeline(org: string, project: string, pipeline: string): void {
    for (const kind of CHILDREN("pipeline")) {
      for (const e of [...this.#maps[kind].values()]) {
        if (sameScope(e.at, { org, project, parent: pipeline })) this.drop(kind, e);
      }
    }
  }

  private forgetWhere(match: (at: EntityAt) => boolean): void {
    for (const kind of ENTITY_KINDS) {
      for (const e of [...this.#maps[kind].values()]) if (match(e.at)) this.drop(kind, e);
    }
  }

  private drop(kind: EntityKind, e: StoredEntity): void {
    if (!this.#maps[kind].delete(keyOf(e.at, e.identifier))) return;
    for (const child of CHILDREN(kind)) {
      const under = { org: e.at.org, project: e.at.project, parent: e.identifier };
      for (const c of this.list(child, under)) this.drop(child, c);
    }
    const names = (r: EntityRef) => r.kind === kind && r.identifier === e.identifier && sameScope(r.at, e.at);
    for (const other of ENTITY_KINDS) {
      for (const x of [...this.#maps[other].values()]) if (x.references?.some(names)) this.drop(other, x);
    }
  }

  /**
   * The scope must exist, the parent (environment, pipeline) where the kind has one, and every
   * entity the write names (an override's environment).
   */
  private assure(
    kind: EntityKind,
    at: EntityAt,
    refuse: EntityRefusals,
    refs: readonly EntityReference[],
  ): void {
    if (at.org !== null && this.platform.organization(at.org) === undefined) {
      throw resourceNotFound(`org [${at.org}] not found.`);
    }
    if (at.org !== null && at.project !== null && this.platform.project(at.org, at.project) === undefined) {
      throw resourceNotFound(`project [${at.project}] not found.`);
    }
    for (const r of refs)
      if (r.missing && this.get(r.kind, r.at, r.identifier) === undefined) throw r.missing();
    if (at.parent === null || refuse.parentMissing === undefined) return;
    const parentKind = PARENT[kind];
    const exists =
      parentKind !== undefined && parentKind !== "pipeline"
        ? this.get(parentKind, { ...at, parent: null }, at.parent) !== undefined
        : at.org !== null &&
          at.project !== null &&
          this.platform.pipeline(at.org, at.project, at.parent) !== undefined;
    if (!exists) throw refuse.parentMissing(at);
  }

  /** Replaces everything (a state file loaded, or rolled back to). */
  restore(state: PlatformEntitiesState | undefined): void {
    for (const kind of ENTITY_KINDS) {
      const map = this.#maps[kind];
      map.clear();
      for (const [key, value] of Object.entries(state?.[kind] ?? {})) map.set(key, value);
    }
  }

  /** Everything, for the state file. */
  dump(): PlatformEntitiesState {
    return Object.fromEntries(
      ENTITY_KINDS.map((k) => [k, Object.fromEntries(this.#maps[k])]),
    ) as PlatformEntitiesState;
  }
}
