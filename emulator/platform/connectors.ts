/**
 * Connectors: `POST|PUT|GET /ng/api/connectors` and `GET|DELETE /ng/api/connectors/{identifier}`
 * (spec §4 for create; ref §5 for the rest).
 *
 * The scope comes from the body on POST and PUT and from the query on GET and DELETE (ref §5).
 * Delete is a soft delete: the record stays in the state with `deleted: true` and is invisible to
 * every route; creating the identifier again replaces it.
 * @module
 */
import { type Context, Hono } from "hono";
import { ConnectorBody, DockerRegistrySpec } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { optionalQuery } from "../http";
import { authorize, type PlatformScope } from "../middleware/auth";
import type { Store } from "../store";
import {
  invalidRequest,
  referencedEntity,
  resourceNotFound,
  validationFailure,
  zodViolations,
} from "./errors";
import { ngPage, pageParams, readJsonBody, success } from "./http";
import { connectorRefs } from "./pipeline-yaml";
import { findProject } from "./projects";
import { connectorKey, type PlatformState, type StoredConnector } from "./state";

/** Default page size of the connector list (ref §8: `size` defaults to 100). */
export const CONNECTOR_PAGE_SIZE = 100;

/**
 * The account's built-in secret manager. The service creates one at every scope, so the
 * identifier is always taken (ref §5: "reserved").
 */
export const HARNESS_SECRET_MANAGER = "harnessSecretManager";

type ConnectorRequest = ReturnType<typeof ConnectorBody.parse>;

const blankToNull = (v: unknown): unknown => (v === "" ? null : v);

/**
 * Bean validation of `{connector: {...}}` (ref §3 `ConnectorInfoDTO`): every violated field is
 * reported at once, including those of a `DockerRegistry` spec (ref §5 `DockerConnectorDTO`).
 * Other connector types only need a spec object: their shapes are not shown (spec §2).
 */
function parseConnectorRequest(raw: unknown): ConnectorRequest {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw validationFailure([{ path: "connector", message: "must not be null" }]);
  }
  const inner = (raw as { connector?: unknown }).connector;
  if (inner === null || inner === undefined)
    throw validationFailure([{ path: "connector", message: "must not be null" }]);
  if (typeof inner !== "object" || Array.isArray(inner)) {
    throw validationFailure([{ path: "connector", message: "must be an object" }]);
  }
  const copy = { ...(inner as Record<string, unknown>) };
  // Blank scope identifiers mean "no scope" (the service tests them with isEmpty).
  for (const k of ["orgIdentifier", "projectIdentifier"] as const) {
    copy[k] = blankToNull(copy[k]);
    if (copy[k] === null) delete copy[k];
  }
  const parsed = ConnectorBody.safeParse(copy);
  const violations = parsed.success ? [] : zodViolations("connector", parsed.error.issues);
  if (
    copy.type === "DockerRegistry" &&
    copy.spec !== null &&
    typeof copy.spec === "object" &&
    !Array.isArray(copy.spec)
  ) {
    const spec = DockerRegistrySpec.safeParse(copy.spec);
    if (!spec.success) violations.push(...zodViolations("connector.spec", spec.error.issues));
  }
  if (violations.length > 0 || !parsed.success) throw validationFailure(violations);
  // Keep the spec exactly as sent: the response echoes the request (spec §2).
  return { ...parsed.data, spec: copy.spec as Record<string, unknown> };
}

/** `data` of a connector response (spec §2 field list; inner shapes inferred, spec: "not shown"). */
export function connectorData(stored: StoredConnector) {
  return {
    connector: stored.connector,
    createdAt: stored.createdAt,
    lastModifiedAt: stored.lastModifiedAt,
    status: {
      status: "UNKNOWN",
      errorSummary: null,
      errors: null,
      testedAt: null,
      lastTestedAt: null,
      lastConnectedAt: null,
    },
    activityDetails: { lastActivityTime: stored.lastModifiedAt },
    harnessManaged: false,
    gitDetails: {
      objectId: null,
      branch: null,
      repoIdentifier: null,
      rootFolder: null,
      filePath: null,
      repoName: null,
      commitId: null,
      fileUrl: null,
      repoUrl: null,
    },
    entityValidityDetails: { valid: true, invalidYaml: null },
    governanceMetadata: { deny: false },
    isFavorite: false,
  };
}

/** A live (not soft-deleted) connector. */
function findConnector(
  state: PlatformState,
  scope: PlatformScope,
  identifier: string,
): StoredConnector | undefined {
  const stored = state.connectors[connectorKey(scope.org, scope.project, identifier)];
  return stored === undefined || stored.deleted ? undefined : stored;
}

function liveInScope(state: PlatformState, scope: PlatformScope): StoredConnector[] {
  return Object.values(state.connectors).filter(
    (s) =>
      !s.deleted &&
      s.connector.orgIdentifier === scope.org &&
      s.connector.projectIdentifier === scope.project,
  );
}

/** `DefaultConnectorServiceImpl.assureThatTheProjectAndOrgExists` (ref §5). */
function assureScopeExists(state: PlatformState, scope: PlatformScope): void {
  if (scope.project !== null && scope.org === null) {
    throw invalidRequest(`Project ${scope.project} specified without the org Identifier`);
  }
  if (scope.org !== null && state.organizations[scope.org] === undefined) {
    throw resourceNotFound(`org [${scope.org}] not found.`);
  }
  if (
    scope.org !== null &&
    scope.project !== null &&
    findProject(state, scope.org, scope.project) === undefined
  ) {
    throw resourceNotFound(`project [${scope.project}] not found.`);
  }
}

function queryScope(c: Context<AppEnv>): PlatformScope {
  return { org: optionalQuery(c, "orgIdentifier"), project: optionalQuery(c, "projectIdentifier") };
}

function bodyScope(body: ConnectorRequest): PlatformScope {
  return { org: body.orgIdentifier ?? null, project: body.projectIdentifier ?? null };
}

/**
 * A body `accountIdentifier` other than the query's is refused like the project org mismatch
 * (inferred: the reference does not show this case).
 */
function checkBodyAccount(body: ConnectorRequest, accountId: string): void {
  if (
    body.accountIdentifier !== undefined &&
    body.accountIdentifier !== "" &&
    body.accountIdentifier !== accountId
  ) {
    throw invalidRequest(`Value mismatch, previous: ${accountId} current: ${body.accountIdentifier}`);
  }
}

/** Whether a stored pipeline refers to the connector (`connectorRef`, with `org.`/`account.` prefixes). */
function isReferenced(state: PlatformState, scope: PlatformScope, identifier: string): boolean {
  return Object.values(state.pipelines).some((p) =>
    connectorRefs(p.yaml).some((ref) => {
      if (ref.startsWith("account.")) return scope.org === null && ref.slice(8) === identifier;
      if (ref.startsWith("org."))
        return scope.org === p.orgIdentifier && scope.project === null && ref.slice(4) === identifier;
      return (
        scope.org === p.orgIdentifier &&
        scope.project?.toLowerCase() === p.projectIdentifier.toLowerCase() &&
        ref === identifier
      );
    }),
  );
}

const fmt = (v: string | null) => (v === null ? "null" : v);

/** The connector routes, mounted at `/ng/api/connectors`. */
export function connectorRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/", async (c) => {
    const body = parseConnectorRequest(await readJsonBody(c));
    const scope = bodyScope(body);
    authorize(c, scope, "core_connector_edit", "connector");
    checkBodyAccount(body, store.accountId);
    const state = store.platform;
    assureScopeExists(state, scope);
    // ref §5: the identifier check runs first and answers INVALID_REQUEST, not DUPLICATE_FIELD.
    if (
      findConnector(state, scope, body.identifier) !== undefined ||
      body.identifier === HARNESS_SECRET_MANAGER
    ) {
      throw invalidRequest(
        `The connector with identifier ${body.identifier} already exists in the account ${store.accountId}, org ${fmt(scope.org)}, project ${fmt(scope.project)}`,
      );
    }
    if (liveInScope(state, scope).some((s) => s.connector.name === body.name)) {
      throw invalidRequest(`Connector with name [${body.name}] already exists`);
    }
    const now = Date.now();
    const stored: StoredConnector = {
      connector: {
        name: body.name,
        identifier: body.identifier,
        description: body.description,
        accountIdentifier: store.accountId,
        orgIdentifier: scope.org,
        projectIdentifier: scope.project,
        tags: body.tags,
        type: body.type,
        spec: body.spec,
      },
      createdAt: now,
      lastModifiedAt: now,
      version: 0,
      deleted: false,
    };
    state.connectors[connectorKey(scope.org, scope.project, body.identifier)] = stored;
    await store.commit();
    return success(c, connectorData(stored));
  });

  // ref §5: PUT has no identifier in the path; the body names the connector.
  app.put("/", async (c) => {
    const body = parseConnectorRequest(await readJsonBody(c));
    const scope = bodyScope(body);
    authorize(c, scope, "core_connector_edit", "connector", body.identifier);
    checkBodyAccount(body, store.accountId);
    const state = store.platform;
    assureScopeExists(state, scope);
    const existing = findConnector(state, scope, body.identifier);
    // The double space is the service's own text (ref §5).
    if (existing === undefined)
      throw invalidRequest(`No connector exists with the  Identifier ${body.identifier}`);
    // A renamed connector must keep its name unique in the scope (inferred from the create rule).
    if (liveInScope(state, scope).some((s) => s !== existing && s.connector.name === body.name)) {
      throw invalidRequest(`Connector with name [${body.name}] already exists`);
    }
    // ref §5: a full replace ("provide values for all fields").
    const updated: StoredConnector = {
      connector: {
        name: body.name,
        identifier: existing.connector.identifier,
        description: body.description,
        accountIdentifier: store.accountId,
        orgIdentifier: scope.org,
        projectIdentifier: scope.project,
        tags: body.tags,
        type: body.type,
        spec: body.spec,
      },
      createdAt: existing.createdAt,
      lastModifiedAt: Math.max(Date.now(), existing.lastModifiedAt),
      version: existing.version + 1,
      deleted: false,
    };
    state.connectors[connectorKey(scope.org, scope.project, body.identifier)] = updated;
    await store.commit();
    return success(c, connectorData(updated));
  });

  app.get("/", (c) => {
    const scope = queryScope(c);
    const page = pageParams(c, CONNECTOR_PAGE_SIZE);
    const search = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
    const type = optionalQuery(c, "type");
    authorize(c, scope, "core_connector_view", "connector");
    const items = liveInScope(store.platform, scope)
      .filter((s) => type === null || s.connector.type === type)
      .filter(
        (s) =>
          search === null ||
          s.connector.name.toLowerCase().includes(search) ||
          s.connector.identifier.toLowerCase().includes(search),
      )
      .sort(
        (a, b) =>
          b.lastModifiedAt - a.lastModifiedAt || a.connector.identifier.localeCompare(b.connector.identifier),
      );
    return success(c, ngPage(items.map(connectorData), page));
  });

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    const scope = queryScope(c);
    authorize(c, scope, "core_connector_view", "connector", id);
    const stored = findConnector(store.platform, scope, id);
    // ref §5: javax NotFoundException → 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION; null scopes print as "null".
    if (stored === undefined) {
      throw resourceNotFound(
        `Connector with identifier [${id}] in project [${fmt(scope.project)}], org [${fmt(scope.org)}] not found`,
      );
    }
    return success(c, connectorData(stored));
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const scope = queryScope(c);
    authorize(c, scope, "core_connector_delete", "connector", id);
    const state = store.platform;
    const stored = findConnector(state, scope, id);
    if (stored === undefined) {
      throw invalidRequest(
        `No connector exists with the identifier ${id} in account ${store.accountId}, organisation ${fmt(scope.org)}, project ${fmt(scope.project)}`,
      );
    }
    // ref §5: referenced connectors stay unless forceDelete=true (the emulator allows forcing).
    if (c.req.query("forceDelete") !== "true" && isReferenced(state, scope, stored.connector.identifier)) {
      throw referencedEntity(`Could not delete the connector ${id} as it is referenced by other entities`);
    }
    stored.deleted = true;
    stored.lastModifiedAt = Math.max(Date.now(), stored.lastModifiedAt);
    await store.commit();
    return success(c, true);
  });

  return app;
}
