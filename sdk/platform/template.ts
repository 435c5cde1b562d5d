/**
 * Templates (pipeline and stage templates, versioned) of the platform's v1 API, as the Terraform
 * provider's `harness_platform_template` calls them through harness-openapi-go-client
 * (`nextgen/api_project_template.go`, `api_org_template.go`, `api_account_template.go`;
 * terraform-provider-harness `internal/service/pipeline/template/resource_template.go`):
 * - `POST {base}/templates` `{template_yaml, is_stable, comments}` → `TemplateResponse`;
 * - `GET {base}/templates/{template}/versions/{version}` → `TemplateWithInputsResponse`
 *   `{template, inputs}`; `GET {base}/templates/{template}` the stable version;
 * - `PUT {base}/templates/{template}/versions/{version}` `{template_yaml, comments}` → `TemplateResponse`;
 * - `DELETE {base}/templates/{template}/versions/{version}` → 204;
 * - `PUT {base}/templates/{template}/versions/{version}/stable` (a `GitFindDetails` body, empty
 *   for an inline template) → `TemplateUpdateStableResponse` `{stable_version}`: makes that
 *   version the stable one (UpdateTemplateStableProject, the Terraform provider's update with
 *   `is_stable`);
 * - `GET {base}/templates?page&limit` → an array of summaries (`GetTemplatesListProject`);
 * where `{base}` is `/v1/orgs/{org}/projects/{project}`, `/v1/orgs/{org}` or `/v1` by scope. The
 * account travels in `Harness-Account` (the `HarnessAccount` option the provider always sets).
 * A template's YAML names it: `template: {name, identifier, versionLabel, type, orgIdentifier,
 * projectIdentifier, tags, spec}`; pipelines use it by `templateRef` and `versionLabel`.
 * @module
 */
import { z } from "zod";
import { type Query, type Route, route } from "../core/route";
import { parseInput } from "../core/validate-input";
import type { EntityCtx } from "./entity-api";
import { platformPart } from "./part";
import { Identifier, Tags } from "./schemas";

/** The template types this package types (harness-core `TemplateEntityType`: also Step, StepGroup, ...). */
export const TEMPLATE_TYPES = ["Pipeline", "Stage", "Step", "StepGroup"] as const;

/** Body of a template create (`TemplateCreateRequestBody`). */
export const TemplateCreateBody = z.object({
  template_yaml: z.string().min(1, "template_yaml cannot be empty"),
  is_stable: z.boolean().optional(),
  comments: z.string().optional(),
});
export type TemplateCreateBody = z.input<typeof TemplateCreateBody>;

/** Body of a template update (`TemplateUpdateRequestBody`). */
export const TemplateUpdateBody = TemplateCreateBody.omit({ is_stable: true });
export type TemplateUpdateBody = z.input<typeof TemplateUpdateBody>;

/** The YAML of a template, as the service reads it: its identity and type (the spec is the type's). */
export const TemplateYaml = z.looseObject({
  template: z.looseObject({
    name: z.string().min(1, "name cannot be empty"),
    identifier: Identifier,
    versionLabel: z.string().regex(/^[0-9a-zA-Z_.-]{1,64}$/, "versionLabel must be 1-64 of [0-9a-zA-Z_.-]"),
    type: z.enum(TEMPLATE_TYPES, { error: `type must be one of ${TEMPLATE_TYPES.join(", ")}` }),
    orgIdentifier: z.string().optional(),
    projectIdentifier: z.string().optional(),
    description: z.string().nullable().optional(),
    tags: z.record(z.string(), z.string().nullable()).nullable().optional(),
    spec: z.record(z.string(), z.unknown(), { error: "spec must be a map" }),
  }),
});
export type TemplateYaml = z.infer<typeof TemplateYaml>;

/** A template version (`TemplateResponse`). */
export const TemplateData = z.looseObject({
  account: z.string(),
  org: z.string().optional(),
  project: z.string().optional(),
  identifier: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tags: Tags.optional(),
  yaml: z.string(),
  version_label: z.string(),
  entity_type: z.string().optional(),
  child_type: z.string().optional(),
  scope: z.string().optional(),
  version: z.number().int().optional(),
  updated: z.number().optional(),
  store_type: z.string().optional(),
  stable_template: z.boolean().optional(),
});
export type TemplateData = z.infer<typeof TemplateData>;

/** A read of a template version (`TemplateWithInputsResponse`). */
export const TemplateWithInputs = z.looseObject({ template: TemplateData, inputs: z.string().optional() });
export type TemplateWithInputs = z.infer<typeof TemplateWithInputs>;

/** The answer of a stable-version update (`TemplateUpdateStableResponse`). */
export const TemplateStableData = z.looseObject({ stable_version: z.string() });
export type TemplateStableData = z.infer<typeof TemplateStableData>;

/** Where a template lives: a project (org and project), an organization (org), or the account. */
export interface TemplateScope {
  org?: string | undefined;
  project?: string | undefined;
}

/** The routes of one scope level. */
function routesAt<B extends `/v1${string}`>(base: B) {
  const one = `${base}/templates/{template}/versions/{version}` as const;
  return {
    create: route(`POST ${base}/templates`, TemplateData, { request: TemplateCreateBody }),
    get: route(`GET ${one}`, TemplateWithInputs),
    stable: route(`GET ${base}/templates/{template}`, TemplateWithInputs),
    update: route(`PUT ${one}`, TemplateData, { request: TemplateUpdateBody }),
    makeStable: route(`PUT ${one}/stable`, TemplateStableData, { request: z.looseObject({}) }),
    delete: route(`DELETE ${one}`, z.unknown(), { emptyBody: true, goneOnRetry: true }),
    list: route(`GET ${base}/templates`, z.array(TemplateData.partial({ yaml: true }))),
  };
}

/** The template routes, by scope level. */
export const templateRoutes = {
  project: routesAt("/v1/orgs/{org}/projects/{project}"),
  org: routesAt("/v1/orgs/{org}"),
  account: routesAt("/v1"),
} as const;

type AnyRoute = Route;

/** Template versions: create, get (a version or the stable one), update, delete and list. */
export class TemplatesApi {
  readonly #ctx: EntityCtx;
  /** @internal */
  constructor(ctx: EntityCtx) {
    this.#ctx = ctx;
  }

  #at(scope: TemplateScope) {
    if (scope.project !== undefined && scope.org === undefined) {
      throw new TypeError("a project-level template needs org as well as project");
    }
    const level = scope.project !== undefined ? "project" : scope.org !== undefined ? "org" : "account";
    const params: Record<string, string> = {};
    if (scope.org !== undefined) params.org = scope.org;
    if (scope.project !== undefined) params.project = scope.project;
    return { routes: templateRoutes[level], params };
  }

  async #send<T>(r: AnyRoute, params: Record<string, string>, init: { query?: Query; body?: unknown } = {}) {
    const call = this.#ctx.core.request.bind(this.#ctx.core) as (
      r: AnyRoute,
      p: Record<string, string>,
      i: object,
    ) => Promise<unknown>;
    return (await call(r, params, { ...init, headers: { "Harness-Account": this.#ctx.account } })) as T;
  }

  /**
   * Creates a template version from its YAML (the YAML names the template, its version and scope).
   * @example
   * await platform.templates.create({ template_yaml: yaml, is_stable: true }, { org: "default", project: "payments" });
   */
  async create(body: TemplateCreateBody, scope: TemplateScope): Promise<TemplateData> {
    const { routes, params } = this.#at(scope);
    const parsed = parseInput(TemplateCreateBody, body, routes.create, "request body", "body");
    return this.#send<TemplateData>(routes.create, params, { body: parsed });
  }

  /**
   * A template version (`version` absent: the stable one), with its runtime inputs.
   * @throws NotFoundError when it does not exist (404).
   */
  async get(
    identifier: string,
    version: string | undefined,
    scope: TemplateScope,
  ): Promise<TemplateWithInputs> {
    const { routes, params } = this.#at(scope);
    if (version === undefined) return this.#send(routes.stable, { ...params, template: identifier });
    return this.#send(routes.get, { ...params, template: identifier, version });
  }

  /** Replaces a template version's YAML. */
  async update(identifier: string, version: string, body: TemplateUpdateBody, scope: TemplateScope) {
    const { routes, params } = this.#at(scope);
    const parsed = parseInput(TemplateUpdateBody, body, routes.update, "request body", "body");
    return this.#send<TemplateData>(
      routes.update,
      { ...params, template: identifier, version },
      { body: parsed },
    );
  }

  /** Makes a template version the stable one (the one `get` without a version answers). */
  async makeStable(identifier: string, version: string, scope: TemplateScope): Promise<TemplateStableData> {
    const { routes, params } = this.#at(scope);
    return this.#send(routes.makeStable, { ...params, template: identifier, version }, { body: {} });
  }

  /** Deletes a template version; returns `true`. */
  async delete(identifier: string, version: string, scope: TemplateScope): Promise<true> {
    const { routes, params } = this.#at(scope);
    await this.#send(routes.delete, { ...params, template: identifier, version });
    return true;
  }

  /** The template versions of a scope (one page of up to 100, `limit`). */
  async list(scope: TemplateScope): Promise<Omit<TemplateData, "yaml">[]> {
    const { routes, params } = this.#at(scope);
    return this.#send(routes.list, params, { query: { page: 0, limit: 100 } });
  }
}

/** Pipeline and stage templates, by identifier and version label. */
export const part = platformPart("templates", (ctx: EntityCtx) => new TemplatesApi(ctx));
