/**
 * Organizations: `POST|GET /ng/api/organizations`, `GET|PUT|DELETE /ng/api/organizations/{id}`.
 *
 * The spec shows none of these (it names the organization `default` and says another one may be
 * given, spec §4 rule 1); the emulator has them so that projects, connectors and pipelines can be
 * tried in another organization. Paths, bodies (`{organization: {identifier, name, description,
 * tags}}`), `If-Match` on PUT and DELETE and `pageIndex`/`pageSize` paging are the Go SDK's
 * (`harness/harness-go-sdk` `harness/nextgen/api_organization.go`); they follow the project routes'
 * conventions (envelope, ETag, full-replace PUT, 404 ENTITY_NOT_FOUND on GET and DELETE); the
 * messages are inferred.
 * @module
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { DEFAULT_ORG, entityName, Identifier, Tags } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { optionalQuery } from "../http";
import { authorize } from "../middleware/auth";
import type { Store, StoredOrganization } from "../store";
import { entityNotFound, invalidRequest, validationFailure, zodViolations } from "./errors";
import { checkIfMatch, ngPage, notModified, pageParams, readJsonBody, success } from "./http";

/** Request body of organization create and update: `{organization: {...}}`. */
export const OrganizationBody = z.object({
  identifier: Identifier,
  name: entityName(),
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  tags: Tags.default({}),
});

/** Default page size of the organization list (as the project list). */
export const ORGANIZATION_PAGE_SIZE = 50;

function parseOrganizationRequest(raw: unknown): z.output<typeof OrganizationBody> {
  const inner =
    raw !== null && typeof raw === "object" ? (raw as { organization?: unknown }).organization : undefined;
  if (inner === null || inner === undefined) {
    throw validationFailure([{ path: "organization", message: "must not be null" }]);
  }
  const parsed = OrganizationBody.safeParse(inner);
  if (!parsed.success) throw validationFailure(zodViolations("organization", parsed.error.issues));
  return parsed.data;
}

/** `data` of an organization response. */
export function organizationData(org: StoredOrganization) {
  return {
    organization: {
      identifier: org.identifier,
      name: org.name,
      description: org.description,
      tags: org.tags,
    },
    createdAt: org.createdAt,
    lastModifiedAt: org.lastModifiedAt ?? org.createdAt,
    harnessManaged: org.identifier === DEFAULT_ORG,
  };
}

/** The organization routes, mounted at `/ng/api/organizations`. */
export function organizationRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/", async (c) => {
    const body = parseOrganizationRequest(await readJsonBody(c));
    authorize(c, { org: body.identifier, project: null }, "core_organization_create", "organization");
    const stored = store.platform.createOrganization(body);
    await store.commit();
    return success(c, organizationData(stored), stored.version);
  });

  app.get("/", (c) => {
    const page = pageParams(c, ORGANIZATION_PAGE_SIZE);
    const search = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
    const key = c.get("key");
    const items = store.platform
      .organizations()
      .filter(
        (o) =>
          search === null ||
          o.identifier.toLowerCase().includes(search) ||
          o.name.toLowerCase().includes(search),
      )
      .filter((o) => key.organizations === undefined || key.organizations.includes(o.identifier))
      .filter((o) => key.projects === undefined || keyAllowsSomeProject(key.projects, o.identifier))
      .sort(
        (a, b) =>
          (b.lastModifiedAt ?? b.createdAt) - (a.lastModifiedAt ?? a.createdAt) ||
          a.identifier.localeCompare(b.identifier),
      );
    return success(c, ngPage(items.map(organizationData), page));
  });

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    authorizeOrg(c, id, "core_organization_view");
    const stored = store.platform.organization(id);
    if (stored === undefined) throw entityNotFound(`Organization with identifier [${id}] not found`);
    return notModified(c, stored.version) ?? success(c, organizationData(stored), stored.version);
  });

  app.put("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const body = parseOrganizationRequest(await readJsonBody(c));
    authorizeOrg(c, id, "core_organization_edit");
    if (body.identifier !== id)
      throw invalidRequest(`Value mismatch, previous: ${id} current: ${body.identifier}`);
    const existing = store.platform.organization(id);
    if (existing === undefined) throw invalidRequest(`Organization with identifier [${id}] not found`);
    checkIfMatch(c, existing.version);
    const updated = store.platform.replaceOrganization(existing, body);
    await store.commit();
    return success(c, organizationData(updated), updated.version);
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    authorizeOrg(c, id, "core_organization_delete");
    if (id === DEFAULT_ORG) throw invalidRequest("Delete operation not supported for Default Organization");
    const existing = store.platform.organization(id);
    if (existing === undefined) {
      throw entityNotFound(`Organization with identifier [${id}] does not exist in the specified scope`);
    }
    checkIfMatch(c, existing.version);
    // Deleting an organization that still holds projects succeeds and deletes them: harness-core's
    // ng-manager `io.harness.ng.core.event.ProjectEntityCRUDStreamListener` answers an organization
    // DELETE event by deleting every project of it (and other listeners their entities); the
    // service does it asynchronously, the emulator at once.
    store.platform.deleteOrganization(existing);
    await store.commit();
    return success(c, true);
  });

  return app;
}

/** An organization-level check: a key restricted to projects may still read their organization. */
function authorizeOrg(c: Context<AppEnv>, id: string, permission: string): void {
  const key = c.get("key");
  if (permission === "core_organization_view" && key.projects !== undefined) {
    const orgOk = key.organizations === undefined || key.organizations.includes(id);
    if (orgOk && keyAllowsSomeProject(key.projects, id)) return;
  }
  authorize(c, { org: id, project: null }, permission, "organization", id);
}

function keyAllowsSomeProject(projects: string[], org: string): boolean {
  return projects.some((entry) => !entry.includes("/") || entry.startsWith(`${org}/`));
}
