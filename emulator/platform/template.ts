/**
 * Templates of the v1 API (pipeline and stage templates, versioned), as the Terraform provider's
 * `harness_platform_template` calls them through harness-openapi-go-client
 * (`nextgen/api_project_template.go`, `api_org_template.go`, `api_account_template.go`:
 * CreateTemplatesProject, GetTemplateProject, GetTemplateStableProject, UpdateTemplateProject,
 * DeleteTemplateProject, GetTemplatesListProject and their org and account forms; the bodies
 * `TemplateCreateRequestBody` `{template_yaml, is_stable, comments}` and
 * `TemplateUpdateRequestBody`, the answers `TemplateResponse` and `TemplateWithInputsResponse`):
 * `{base}/templates[/{template}[/versions/{version}]]` with `{base}` `/v1/orgs/{org}/projects/{project}`,
 * `/v1/orgs/{org}` or `/v1`. Each version is one entity of the store's `template` kind, kept under
 * its version label (the entity's `parent`), so a project's or organization's deletion takes it.
 *
 * Rules (the wordings inferred, as the v1 pipeline mapper's "Expected ... in YAML to be [x], but
 * was [y]", `v1.ts`): the YAML's `identifier` and `versionLabel` must be the path's on an update,
 * its `orgIdentifier` and `projectIdentifier` the path's scope; a version that exists is refused
 * (DUPLICATE_FIELD); a missing one is 404 ENTITY_NOT_FOUND (the provider's read treats 404 as
 * gone). The stable version is the last one created or updated with `is_stable`, else the first
 * (harness-core `TemplateServiceImpl`: the first version of a template becomes stable), or the
 * one `PUT .../versions/{version}/stable` named last (`{stable_version}`). A delete answers 204;
 * deleting the stable version while others exist is allowed here, and the stable one is then again
 * the last made stable, else the first created (the reference notes are silent on the service's
 * refusal of it). Every version of a template has the first's type and child type (the stage or
 * step type its spec names, answered as `child_type`): another is refused on create and update
 * ({@link sameTypeAsVersions}). Auth: `x-api-key`, the account in `Harness-Account` (`KEY_KINDS.platformV1`).
 * @module
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { TemplateCreateBody, TemplateUpdateBody, TemplateYaml } from "../../sdk/platform/template";
import type { AppEnv } from "../context";
import { intQuery, PLATFORM_INT } from "../http";
import { authorize, keyAuth } from "../middleware/auth";
import type { EntityAt, EntityRefusals, Store, StoredEntity } from "../store";
import { entityPart, parseYamlEntity, shown } from "./entity-routes";
import { duplicateField, entityNotFound, invalidRequest, validationFailure, zodViolations } from "./errors";
import { readJsonBody } from "./http";

/** The three scope levels' bases, under the part's `/v1`. */
const BASES = ["/orgs/:org/projects/:project", "/orgs/:org", ""] as const;

const where = (id: string, at: EntityAt) =>
  `Template [${id}] of version [${at.parent}] under Project[${shown(at.project)}], Organization [${shown(at.org)}]`;

const refusals: EntityRefusals = {
  duplicate: (id, at) => duplicateField(`${where(id, at)} already exists`),
  updateMissing: (id, at) => entityNotFound(`${where(id, at)} doesn't exist.`),
  deleteMissing: (id, at) => entityNotFound(`${where(id, at)} doesn't exist.`),
  stale: (id, at) => invalidRequest(`${where(id, at)} couldn't be updated or doesn't exist.`),
};

/** The body, checked by its schema: bean validation's 400 naming each field. */
async function body<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  const parsed = schema.safeParse(await readJsonBody(c));
  if (!parsed.success) throw validationFailure(zodViolations("body", parsed.error.issues));
  return parsed.data;
}

/** The scope of the path: org and project where the base has them. */
const scopeOf = (c: Context<AppEnv>) => ({
  org: c.req.param("org") ?? null,
  project: c.req.param("project") ?? null,
});

/** The YAML read, checked against the path's scope (and identifier and version on an update). */
function readTemplate(
  text: string,
  scope: { org: string | null; project: string | null },
  path?: { identifier: string; version: string },
) {
  const t = parseYamlEntity(text, TemplateYaml).template;
  const expect = (field: string, want: string | null, got: string | undefined) => {
    if ((got ?? null) !== want)
      throw invalidRequest(
        `Expected Template ${field} in YAML to be [${want ?? ""}], but was [${got ?? ""}]`,
      );
  };
  expect("orgIdentifier", scope.org, t.orgIdentifier);
  expect("projectIdentifier", scope.project, t.projectIdentifier);
  if (path !== undefined) {
    expect("identifier", path.identifier, t.identifier);
    expect("versionLabel", path.version, t.versionLabel);
  }
  return t;
}

/**
 * The template's child type (harness-core `TemplateEntity.childType`): the stage or step type its
 * spec names (`Deployment`, `ShellScript`, ...); none for Pipeline templates.
 */
const childTypeOf = (t: TemplateYaml["template"]): string | null =>
  typeof t.spec.type === "string" ? t.spec.type : null;

/** The child type of a stored version, from its YAML. */
const storedChildType = (e: StoredEntity): string | null =>
  childTypeOf(parseYamlEntity(e.fields.yaml as string, TemplateYaml).template);

/**
 * Every version of a template has one type and one child type (harness-core `NGTemplateServiceImpl`:
 * `validateTemplateTypeAndChildTypeOfTemplate` on create, against the first version listed, its
 * message prefixed by the create's catch-all "Error while saving template [%s] of versionLabel
 * [%s]: %s"; `getAndValidateOldTemplateEntity` on update, "cannot update the template type",
 * which the update's catch-all replaces by its own message without the cause). A version whose
 * stored child type is empty may gain one.
 */
function sameTypeAsVersions(t: TemplateYaml["template"], versions: StoredEntity[], updating: boolean): void {
  const first = versions[0];
  if (first === undefined) return;
  const saving = `Error while saving template [${t.identifier}] of versionLabel [${t.versionLabel}]`;
  const child = storedChildType(first);
  if (updating) {
    if (first.fields.type !== t.type || (child !== null && child !== childTypeOf(t)))
      throw invalidRequest(saving);
    return;
  }
  if (first.fields.type !== t.type)
    throw invalidRequest(
      `${saving}: Template should have same template entity type ${first.fields.type as string} as other template versions`,
    );
  if (child !== childTypeOf(t))
    throw invalidRequest(
      `${saving}: Template should have same child type ${child} as other template versions`,
    );
}

/** What a write stores for the version the YAML describes. */
function fieldsOf(t: TemplateYaml["template"], text: string, stableSince: number | null) {
  return {
    identifier: t.identifier,
    name: t.name,
    description: t.description ?? "",
    tags: Object.fromEntries(Object.entries(t.tags ?? {}).map(([k, v]) => [k, v ?? ""])),
    fields: { yaml: text, type: t.type, stableSince },
  };
}

/** The stable version of a template: the last made stable, else the first created. */
export function stableOf(versions: StoredEntity[]): StoredEntity | undefined {
  const since = (e: StoredEntity) => (e.fields.stableSince as number | null) ?? -1;
  return [...versions].sort((a, b) => since(b) - since(a) || a.createdAt - b.createdAt)[0];
}

/**
 * The mark of a version made stable now: later than every mark of the template's versions, so the
 * last made stable wins even within one millisecond.
 */
function stableMark(versions: StoredEntity[]): number {
  const marks = versions.map((e) => (e.fields.stableSince as number | null) ?? -1);
  return Math.max(Date.now(), ...marks.map((m) => m + 1));
}

/**
 * The version of template `id` at a scope (`org`/`project` null above them) that `label` names, or
 * its stable version when `label` is undefined; undefined when there is none.
 */
export function templateVersion(
  store: Store,
  scope: { org: string | null; project: string | null },
  id: string,
  label: string | undefined,
): StoredEntity | undefined {
  if (label !== undefined) return store.entities.get("template", { ...scope, parent: label }, id);
  return stableOf(
    store.entities.inScope("template", scope.org, scope.project).filter((e) => e.identifier === id),
  );
}

/** The routes of the templates, mounted at `/v1`. */
function templateRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const versionsOf = (org: string | null, project: string | null, id: string) =>
    store.entities.inScope("template", org, project).filter((e) => e.identifier === id);
  const render = (e: StoredEntity) => {
    const stable = stableOf(versionsOf(e.at.org, e.at.project, e.identifier));
    const childType = storedChildType(e);
    return {
      account: store.accountId,
      ...(e.at.org === null ? {} : { org: e.at.org }),
      ...(e.at.project === null ? {} : { project: e.at.project }),
      identifier: e.identifier,
      name: e.name,
      description: e.description,
      tags: e.tags,
      yaml: e.fields.yaml,
      version_label: e.at.parent,
      entity_type: e.fields.type,
      ...(childType === null ? {} : { child_type: childType }),
      scope: e.at.project !== null ? "project" : e.at.org !== null ? "org" : "account",
      version: e.version,
      updated: e.lastModifiedAt,
      store_type: "INLINE",
      stable_template: stable !== undefined && stable.at.parent === e.at.parent,
    };
  };
  const permit = (c: Context<AppEnv>, verb: string, id?: string) => {
    const { org, project } = scopeOf(c);
    authorize(c, { org, project }, `core_template_${verb}`, "template", id);
  };
  const missing = (id: string, at: EntityAt) =>
    entityNotFound(
      `Template with the given Identifier: ${id} and versionLabel: ${at.parent ?? "stable"} does not exist or has been deleted`,
    );

  for (const base of BASES) {
    const auth = keyAuth(store, "platformV1");
    app.use(`${base}/templates`, auth);
    app.use(`${base}/templates/*`, auth);

    app.post(`${base}/templates`, async (c) => {
      const b = await body(c, TemplateCreateBody);
      const scope = scopeOf(c);
      const t = readTemplate(b.template_yaml, scope);
      permit(c, "edit");
      sameTypeAsVersions(t, versionsOf(scope.org, scope.project, t.identifier), false);
      const at = { ...scope, parent: t.versionLabel };
      const stored = store.entities.create(
        "template",
        at,
        fieldsOf(
          t,
          b.template_yaml,
          b.is_stable === true ? stableMark(versionsOf(scope.org, scope.project, t.identifier)) : null,
        ),
        refusals,
      );
      await store.commit();
      return c.json(render(stored), 201);
    });

    app.get(`${base}/templates`, (c) => {
      permit(c, "view");
      const { org, project } = scopeOf(c);
      const page = intQuery(c, "page", 0, PLATFORM_INT);
      const limit = Math.min(100, Math.max(1, intQuery(c, "limit", 30, PLATFORM_INT)));
      const all = store.entities.inScope("template", org, project);
      return c.json(all.slice(page * limit, (page + 1) * limit).map(render));
    });

    app.get(`${base}/templates/:template`, (c) => {
      const id = c.req.param("template");
      permit(c, "view", id);
      const { org, project } = scopeOf(c);
      const stable = stableOf(versionsOf(org, project, id));
      if (stable === undefined) throw missing(id, { org, project, parent: null });
      return c.json({ template: render(stable), inputs: "" });
    });

    app.get(`${base}/templates/:template/versions/:version`, (c) => {
      const id = c.req.param("template");
      permit(c, "view", id);
      const at = { ...scopeOf(c), parent: c.req.param("version") };
      const stored = store.entities.get("template", at, id);
      if (stored === undefined) throw missing(id, at);
      return c.json({ template: render(stored), inputs: "" });
    });

    app.put(`${base}/templates/:template/versions/:version`, async (c) => {
      const b = await body(c, TemplateUpdateBody);
      const scope = scopeOf(c);
      const path = { identifier: c.req.param("template"), version: c.req.param("version") };
      const t = readTemplate(b.template_yaml, scope, path);
      permit(c, "edit", path.identifier);
      const at = { ...scope, parent: path.version };
      const existing = store.entities.get("template", at, path.identifier);
      sameTypeAsVersions(t, existing === undefined ? [] : [existing], true);
      const since = (existing?.fields.stableSince as number | null | undefined) ?? null;
      const updated = store.entities.replace(
        "template",
        at,
        fieldsOf(t, b.template_yaml, since),
        null,
        refusals,
      );
      await store.commit();
      return c.json(render(updated));
    });

    app.put(`${base}/templates/:template/versions/:version/stable`, async (c) => {
      const id = c.req.param("template");
      permit(c, "edit", id);
      const at = { ...scopeOf(c), parent: c.req.param("version") };
      const existing = store.entities.get("template", at, id);
      if (existing === undefined) throw missing(id, at);
      const fields = {
        identifier: existing.identifier,
        name: existing.name,
        description: existing.description,
        tags: existing.tags,
        fields: { ...existing.fields, stableSince: stableMark(versionsOf(at.org, at.project, id)) },
      };
      store.entities.replace("template", at, fields, null, refusals);
      await store.commit();
      return c.json({ stable_version: at.parent });
    });

    app.delete(`${base}/templates/:template/versions/:version`, async (c) => {
      const id = c.req.param("template");
      permit(c, "delete", id);
      store.entities.remove(
        "template",
        { ...scopeOf(c), parent: c.req.param("version") },
        id,
        null,
        refusals,
      );
      await store.commit();
      return c.body(null, 204);
    });
  }
  return app;
}

/** The template part: its store kind (each version under its label), base path and routes. */
export const part = entityPart({
  kind: "template",
  path: "/v1",
  serve: templateRoutes,
});
