/**
 * Projects: `POST|GET /ng/api/projects`, `GET|PUT|DELETE /ng/api/projects/{identifier}`
 * (spec §4 for create; ref §4 for the rest, which the spec leaves unshown).
 *
 * Modules are server-owned (ref §4: the service sets `ModuleType.getModules()` and ignores the
 * client's list). The response still echoes the request as the spec says ("object echoing the
 * request"): every field sent comes back with the value sent, defaults applied to the ones left
 * out (`color` #0063F7, `description` "", `tags` {}), except `modules`, which always carries the
 * server's list so that clients treat it as computed, as the reference providers do.
 * @module
 */
import { Hono } from "hono";
import type { z } from "zod";
import { DEFAULT_ORG, ProjectBody } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { optionalQuery } from "../http";
import { authorize, keyAllows } from "../middleware/auth";
import type { Store, StoredProject } from "../store";
import { entityNotFound, invalidRequest, validationFailure, zodViolations } from "./errors";
import { checkIfMatch, ngPage, notModified, pageParams, readJsonBody, success, wrappedObject } from "./http";

/** Default page size of the NG project list (inferred; the connector list's is 100, ref §8). */
export const PROJECT_PAGE_SIZE = 50;

/** A project request: the body, and its `orgIdentifier` when it was given. */
interface ParsedProjectRequest {
  project: z.output<typeof ProjectBody>;
  /** The body's `orgIdentifier` when it was given (blank counts as absent: `@EntityIdentifier(allowBlank)`). */
  bodyOrg: string | null;
}

/** Bean validation of `{project: {...}}` (ref §3 `ProjectDTO` constraints). */
function parseProjectRequest(raw: unknown): ParsedProjectRequest {
  const copy = wrappedObject(raw, "project");
  const rawOrg = copy.orgIdentifier;
  if (rawOrg === "" || rawOrg === null) delete copy.orgIdentifier;
  const parsed = ProjectBody.safeParse(copy);
  if (!parsed.success) throw validationFailure(zodViolations("project", parsed.error.issues));
  return {
    project: parsed.data,
    bodyOrg: copy.orgIdentifier === undefined ? null : parsed.data.orgIdentifier,
  };
}

/** `data` of a project response (ref §4). */
export function projectData(stored: StoredProject) {
  return {
    project: stored.project,
    createdAt: stored.createdAt,
    lastModifiedAt: stored.lastModifiedAt,
    isFavorite: false,
  };
}

/** The organization of a project route: `@QueryParam("orgIdentifier") @DefaultValue("default")` (ref §4). */
function orgOf(query: string | null): string {
  return query ?? DEFAULT_ORG;
}

const SORT_FIELDS = {
  name: (p: StoredProject) => p.project.name.toLowerCase(),
  identifier: (p: StoredProject) => p.project.identifier.toLowerCase(),
  lastModifiedAt: (p: StoredProject) => p.lastModifiedAt,
  createdAt: (p: StoredProject) => p.createdAt,
} as const;

/** The project routes, mounted at `/ng/api/projects`. */
export function projectRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/", async (c) => {
    const org = orgOf(optionalQuery(c, "orgIdentifier"));
    const { project, bodyOrg } = parseProjectRequest(await readJsonBody(c));
    authorize(c, { org, project: project.identifier }, "core_project_create", "project");
    // ref §4: NGUtils.verifyValuesNotChanged(query org, body org).
    if (bodyOrg !== null && bodyOrg !== org)
      throw invalidRequest(`Value mismatch, previous: ${org} current: ${bodyOrg}`);
    const stored = store.platform.createProject({ ...project, orgIdentifier: org });
    await store.commit();
    return success(c, projectData(stored), stored.version);
  });

  app.get("/", (c) => {
    const org = optionalQuery(c, "orgIdentifier");
    const page = pageParams(c, PROJECT_PAGE_SIZE);
    const search = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
    const identifiers = (c.req.queries("identifiers") ?? [])
      .flatMap((s) => s.split(","))
      .filter((s) => s !== "");
    const key = c.get("key");
    let items = store.platform.projects().filter((p) => {
      const proj = p.project;
      if (org !== null && proj.orgIdentifier !== org) return false;
      if (
        identifiers.length > 0 &&
        !identifiers.some((i) => i.toLowerCase() === proj.identifier.toLowerCase())
      )
        return false;
      if (
        search !== null &&
        !proj.name.toLowerCase().includes(search) &&
        !proj.identifier.toLowerCase().includes(search)
      ) {
        return false;
      }
      // A restricted key lists only what it may see, rather than failing the whole list.
      return keyAllows(key, { org: proj.orgIdentifier, project: proj.identifier });
    });
    // Default sort `lastModifiedAt DESC` (ref §4); `sortOrders=<field>,<ASC|DESC>` picks another.
    const [field, dir] = (optionalQuery(c, "sortOrders") ?? "lastModifiedAt,DESC").split(",");
    const pick = SORT_FIELDS[(field ?? "") as keyof typeof SORT_FIELDS] ?? SORT_FIELDS.lastModifiedAt;
    const sign = (dir ?? "DESC").toUpperCase() === "ASC" ? 1 : -1;
    items = items.sort((a, b) => {
      const x = pick(a);
      const y = pick(b);
      return x < y ? -sign : x > y ? sign : a.project.identifier.localeCompare(b.project.identifier);
    });
    return success(c, ngPage(items.map(projectData), page));
  });

  app.get("/:identifier", (c) => {
    const id = c.req.param("identifier");
    const org = orgOf(optionalQuery(c, "orgIdentifier"));
    authorize(c, { org, project: id }, "core_project_view", "project", id);
    const stored = store.platform.project(org, id);
    // ref §4: current service answers 404 ENTITY_NOT_FOUND (harness-core PR #55609).
    if (stored === undefined)
      throw entityNotFound(`Project with orgIdentifier [${org}] and identifier [${id}] not found`);
    return notModified(c, stored.version) ?? success(c, projectData(stored), stored.version);
  });

  app.put("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const org = orgOf(optionalQuery(c, "orgIdentifier"));
    const { project, bodyOrg } = parseProjectRequest(await readJsonBody(c));
    authorize(c, { org, project: id }, "core_project_edit", "project", id);
    if (bodyOrg !== null && bodyOrg !== org)
      throw invalidRequest(`Value mismatch, previous: ${org} current: ${bodyOrg}`);
    if (project.identifier !== id)
      throw invalidRequest(`Value mismatch, previous: ${id} current: ${project.identifier}`);
    const existing = store.platform.project(org, id);
    // ref §4: update of a missing project is INVALID_REQUEST (400), unlike GET and DELETE.
    if (existing === undefined) {
      throw invalidRequest(`Project with identifier [${id}] and orgIdentifier [${org}] not found`);
    }
    checkIfMatch(c, existing.version);
    // ref §4: a full replace; omitted optional fields take their defaults again.
    const updated = store.platform.replaceProject(existing, { ...project, orgIdentifier: org });
    await store.commit();
    return success(c, projectData(updated), updated.version);
  });

  app.delete("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const org = orgOf(optionalQuery(c, "orgIdentifier"));
    authorize(c, { org, project: id }, "core_project_delete", "project", id);
    const existing = store.platform.project(org, id);
    if (existing === undefined)
      throw entityNotFound(`Project with identifier [${id}] does not exist in the specified scope`);
    checkIfMatch(c, existing.version);
    store.platform.deleteProject(existing);
    await store.commit();
    return success(c, true);
  });

  return app;
}
