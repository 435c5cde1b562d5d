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
import type { z } from "zod";
import { CONNECTOR_KIND_SPECS, ConnectorBody } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { optionalQuery } from "../http";
import { authorize } from "../middleware/auth";
import type { ConnectorFields, PlatformScope, Store, StoredConnector } from "../store";
import { invalidRequest, resourceNotFound, validationFailure, zodViolations } from "./errors";
import { ngPage, pageParams, readJsonBody, success, wrappedObject } from "./http";

/** Default page size of the connector list (ref §8: `size` defaults to 100). */
export const CONNECTOR_PAGE_SIZE = 100;

type ConnectorRequest = z.output<typeof ConnectorBody>;

/**
 * The connector types the service knows (Go SDK `harness/nextgen/enum_connector_types.go`). The
 * service reads `type` with `ConnectorType.getConnectorType`, a `@JsonCreator` that matches the
 * display name case-insensitively and otherwise throws `IllegalArgumentException("Invalid value: "
 * + displayName)` (harness-core `ConnectorType`), which the JSON mapper answers as a 400 INVALID_REQUEST;
 * the message's prefix is the emulator's JSON-error wording (inferred).
 */
export const CONNECTOR_TYPES = [
  "K8sCluster",
  "Git",
  "Splunk",
  "AppDynamics",
  "Prometheus",
  "Dynatrace",
  "Vault",
  "AzureKeyVault",
  "DockerRegistry",
  "JDBC",
  "Local",
  "AwsKms",
  "GcpKms",
  "AwsSecretManager",
  "Gcp",
  "Aws",
  "Artifactory",
  "Jira",
  "Jenkins",
  "Nexus",
  "Github",
  "Gitlab",
  "Bitbucket",
  "Codecommit",
  "CEAws",
  "CEAzure",
  "GcpCloudCost",
  "CEK8sCluster",
  "HttpHelmRepo",
  "OciHelmRepo",
  "NewRelic",
  "Datadog",
  "SumoLogic",
  "PagerDuty",
  "GcpSecretManager",
  "Azure",
  "AzureArtifacts",
  "Spot",
  "ServiceNow",
  "Tas",
  "TerraformCloud",
  "ElasticSearch",
  "Rancher",
  "CustomHealth",
  "Pdc",
  "CustomSecretManager",
  "AzureRepo",
] as const;

/**
 * Bean validation of `{connector: {...}}` (ref §3 `ConnectorInfoDTO`): every violated field is
 * reported at once, including those of a `DockerRegistry` spec (ref §5 `DockerConnectorDTO`) and
 * the required members of the typed kinds ({@link CONNECTOR_KIND_SPECS}, which the provider's
 * `Connector` check applies to a `generic` spec of those types too). An unknown `type` is refused first
 * ({@link CONNECTOR_TYPES}); the other known types only need a spec object (spec §2).
 */
function parseConnectorRequest(raw: unknown): ConnectorRequest {
  const copy = wrappedObject(raw, "connector");
  // Blank scope identifiers mean "no scope" (the service tests them with isEmpty).
  for (const k of ["orgIdentifier", "projectIdentifier"] as const) {
    if (copy[k] === "" || copy[k] === null) delete copy[k];
  }
  if (typeof copy.type === "string" && copy.type !== "") {
    const known = CONNECTOR_TYPES.find((t) => t.toLowerCase() === (copy.type as string).toLowerCase());
    if (known === undefined) throw invalidRequest(`Unable to process JSON: Invalid value: ${copy.type}`);
    copy.type = known;
  }
  const parsed = ConnectorBody.safeParse(copy);
  const violations = parsed.success ? [] : zodViolations("connector", parsed.error.issues);
  const kindSpec = CONNECTOR_KIND_SPECS[copy.type as string];
  if (
    kindSpec !== undefined &&
    copy.spec !== null &&
    typeof copy.spec === "object" &&
    !Array.isArray(copy.spec)
  ) {
    const spec = kindSpec.safeParse(copy.spec);
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

/** The scope of a GET or DELETE: the query's (ref §5). */
function queryScope(c: Context<AppEnv>): PlatformScope {
  return { org: optionalQuery(c, "orgIdentifier"), project: optionalQuery(c, "projectIdentifier") };
}

/**
 * The scope and fields of a POST or PUT: the body's (ref §5). A body `accountIdentifier` other
 * than the query's is refused like the project org mismatch (inferred: the reference does not
 * show this case), once the key may act in the scope.
 */
function connectorOf(c: Context<AppEnv>, store: Store, body: ConnectorRequest, identifier?: string) {
  const scope: PlatformScope = { org: body.orgIdentifier ?? null, project: body.projectIdentifier ?? null };
  authorize(c, scope, "core_connector_edit", "connector", identifier);
  const account = body.accountIdentifier;
  if (account !== undefined && account !== "" && account !== store.accountId) {
    throw invalidRequest(`Value mismatch, previous: ${store.accountId} current: ${account}`);
  }
  const fields: ConnectorFields = {
    name: body.name,
    identifier: body.identifier,
    description: body.description,
    tags: body.tags,
    type: body.type,
    spec: body.spec,
  };
  return { scope, fields };
}

/** The connector routes, mounted at `/ng/api/connectors`. */
export function connectorRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/", async (c) => {
    const { scope, fields } = connectorOf(c, store, parseConnectorRequest(await readJsonBody(c)));
    const stored = store.platform.createConnector(scope, fields);
    await store.commit();
    return success(c, connectorData(stored));
  });

  // ref §5: PUT has no identifier in the path; the body names the connector.
  app.put("/", async (c) => {
    const body = parseConnectorRequest(await readJsonBody(c));
    const { scope, fields } = connectorOf(c, store, body, body.identifier);
    const updated = store.platform.replaceConnector(scope, fields);
    await store.commit();
    return success(c, connectorData(updated));
  });

  app.get("/", (c) => {
    const scope = queryScope(c);
    const page = pageParams(c, CONNECTOR_PAGE_SIZE);
    const search = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
    const type = optionalQuery(c, "type");
    authorize(c, scope, "core_connector_view", "connector");
    const items = store.platform
      .connectorsIn(scope)
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
    const stored = store.platform.connector(scope, id);
    // ref §5: javax NotFoundException → 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION; null scopes print as "null".
    if (stored === undefined) {
      throw resourceNotFound(
        `Connector with identifier [${id}] in project [${scope.project ?? "null"}], org [${scope.org ?? "null"}] not found`,
      );
    }
    return success(c, connectorData(stored));
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const scope = queryScope(c);
    authorize(c, scope, "core_connector_delete", "connector", id);
    // ref §5: referenced connectors stay unless forceDelete=true (the emulator allows forcing).
    store.platform.deleteConnector(scope, id, c.req.query("forceDelete") === "true");
    await store.commit();
    return success(c, true);
  });

  return app;
}
