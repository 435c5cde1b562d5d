/**
 * The platform's access control (issue 27), as Split's Python admin client in Harness mode
 * (`splitapiclient` 3.5.9, `microclients/harness/*.py`, `resources/harness/*.py`) and the Harness
 * Go SDK (`harness-go-sdk` v0.8.24 package `nextgen`; the Terraform provider's
 * `harness_platform_service_account`, `_apikey`, `_token`, `_usergroup`, `_user`, `_roles`,
 * `_resource_group` and `_role_assignments` resources call the same methods) call it. Each path's
 * method, query and answer are the SDK's (`api_<part>.go`, `model_<answer>.go`); the store part is
 * `store/access-control.ts`.
 *
 * | part | paths | answer `data` |
 * |---|---|---|
 * | service accounts | `POST|GET /ng/api/serviceaccount`, `PUT|DELETE .../{id}`, `GET .../aggregate[/{id}]` | `ServiceAccountDTO`; a list; `ServiceAccountAggregateDTO` |
 * | API keys | `POST|GET /ng/api/apikey`, `PUT|DELETE .../{id}`, `GET .../aggregate[/{id}]` | `ApiKeyDTO`; `ApiKeyAggregateDTO` |
 * | tokens | `POST /ng/api/token`, `PUT|DELETE .../{id}`, `POST .../rotate/{id}`, `GET .../aggregate` | the token's value (shown once); `TokenDTO`; `TokenAggregateDTO` |
 * | user groups | `POST|PUT|GET /ng/api/user-groups`, `GET|DELETE .../{id}` | `UserGroupDTO` |
 * | users | `POST /ng/api/user/aggregate`, `GET .../aggregate/{id}`, `POST /ng/api/user/users`, `PUT|DELETE /ng/api/user/{id}`, `PUT .../add-user-to-groups/{id}` | `UserAggregate`; `AddUsersResponse`; `UserInfo` |
 * | invites | `GET /ng/api/invites`, `POST .../aggregate`, `DELETE .../{id}` | `Invite` |
 * | roles | `POST|GET /authz/api/roles`, `GET|PUT|DELETE .../{id}` | `RoleResponse` |
 * | resource groups | `POST|GET /resourcegroup/api/v2/resourcegroup`, `GET|PUT|DELETE .../{id}` | `ResourceGroupV2Response` |
 * | role assignments | `POST|GET /authz/api/roleassignments`, `GET|DELETE .../{id}` | `RoleAssignmentResponse` |
 *
 * Where an object lives: the query's `accountIdentifier`, `orgIdentifier`, `projectIdentifier`,
 * except for API keys and tokens, whose body names it (harness-core
 * `ApiKeyService.createApiKey(ApiKeyDTO)`; the SDK's `CreateApiKey`, `UpdateApiKey`,
 * `CreateToken` and `UpdateToken` send only `accountIdentifier` in the query). Lists are NG pages
 * (ref §8; the service-account and API-key lists plain arrays, `ResponseDtoListServiceAccount`,
 * `ResponseDtoListApiKey`), oldest first; a page past the end is empty, which is how the Python
 * client's loops stop. Bodies are read as the service reads them (JSON only, ref §2); a `POST`
 * that only lists (`user/aggregate`, `invites/aggregate`, the SDK's optional filter body) or
 * rotates reads none. Built-in roles and resource groups (`_account_viewer`,
 * `_all_account_level_resources`, ...: every identifier starting with `_`, which a custom one
 * cannot, ref §3) are accepted in role assignments but not listed (inferred).
 *
 * Refusals: a missing service account is 400 INVALID_ARGUMENT "Service account [x] doesn't exist
 * in scope" (harness-core `ServiceAccountServiceImpl`), an API key likewise (inferred wording); a
 * missing user group in an update, delete or membership change is 400 INVALID_REQUEST "User Group
 * is not available a:o:p:id" (harness-core `UserGroupServiceImpl`); a taken identifier is 400
 * DUPLICATE_FIELD; the GET of a missing role, resource group, role assignment, user group or user
 * is 404 ENTITY_NOT_FOUND, as a missing project's (the Terraform provider's reads treat 404 as
 * gone; terraform-provider-harness #1241/#1246 fixed that for resource groups), and their update or
 * delete 400 INVALID_REQUEST (inferred wordings). A token's value is shown once: the answer of a
 * create or rotate is the only place one appears, and it is a platform key of the token's scope
 * until the token is rotated or deleted (`store/access-control.ts`).
 * @module
 */
import { randomBytes } from "node:crypto";
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import { DEFAULT_PROJECT_COLOUR, entityName, Identifier, Tags } from "../../sdk/platform/schemas";
import type { AppEnv } from "../context";
import { optionalQuery } from "../http";
import { authorize, keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import {
  ACCOUNT_ADMIN_UUID,
  type AccessKind,
  type AccessRecord,
  type AccessScope,
} from "../store/access-control";
import { parseBody } from "./entity-routes";
import {
  accessDenied,
  duplicateField,
  entityNotFound,
  invalidArgument,
  invalidRequest,
  resourceNotFound,
} from "./errors";
import { ngPage, pageParams, readJsonBody, requireQuery, success } from "./http";

/** The path prefixes of the access-control services (the NG manager's are `/ng/api`, checked there). */
export const ACCESS_CONTROL_PREFIXES = ["/authz/api", "/resourcegroup/api"] as const;

/** Default page size of these lists (inferred: harness-core `PageRequest` `@DefaultValue("50")`). */
export const ACCESS_PAGE_SIZE = 50;

// ---------------------------------------------------------------------------------------------
// Bodies (SDK `model_<name>.go`); unknown members are ignored, as Jackson does for these DTOs.

const optionalText = z.string().nullish();
const optionalTags = Tags.nullish();
const scopeFields = {
  accountIdentifier: optionalText,
  orgIdentifier: optionalText,
  projectIdentifier: optionalText,
};

/** `ServiceAccountDTO`. */
export const ServiceAccountBody = z.object({
  identifier: Identifier,
  name: entityName(),
  email: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  description: optionalText,
  tags: optionalTags,
  ...scopeFields,
});
/** `ApiKeyDTO`. */
export const ApiKeyBody = z.object({
  identifier: Identifier,
  name: entityName(),
  description: optionalText,
  tags: optionalTags,
  apiKeyType: z.enum(["USER", "SERVICE_ACCOUNT"]),
  parentIdentifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  defaultTimeToExpireToken: z.number().int().nullish(),
  ...scopeFields,
});
/** `TokenDTO`. */
export const TokenBody = z.object({
  identifier: Identifier,
  name: entityName(),
  validFrom: z.number().int().nullish(),
  validTo: z.number().int().nullish(),
  scheduledExpireTime: z.number().int().nullish(),
  apiKeyIdentifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  parentIdentifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  apiKeyType: z.enum(["USER", "SERVICE_ACCOUNT"]),
  description: optionalText,
  tags: optionalTags,
  email: optionalText,
  username: optionalText,
  ...scopeFields,
});
/** `UserGroupDTO`. */
export const UserGroupBody = z.object({
  identifier: Identifier,
  name: entityName(),
  users: z.array(z.string()).nullish(),
  notificationConfigs: z.array(z.record(z.string(), z.unknown())).nullish(),
  description: optionalText,
  tags: optionalTags,
  ...scopeFields,
});
/** `AddUsersDto`: whom to invite, into which groups, with which role bindings. */
export const AddUsersBody = z.object({
  emails: z.array(z.string().email()).min(1, "must not be empty"),
  userGroups: z.array(z.string()).nullish(),
  roleBindings: z.array(z.record(z.string(), z.unknown())).nullish(),
});
/** `UserInfo` of an update: only the name changes (inferred: the other members are the service's). */
export const UserUpdateBody = z.object({ name: entityName(128).nullish() });
/** `AddUserToUserGroupsDto`. */
export const AddUserToGroupsBody = z.object({ userGroupIdsToAdd: z.array(z.string()) });
/** `Role`. */
export const RoleBody = z.object({
  identifier: Identifier,
  name: entityName(),
  permissions: z.array(z.string()).nullish(),
  allowedScopeLevels: z.array(z.string()).nullish(),
  description: optionalText,
  tags: optionalTags,
});
/** `ResourceGroupV2Request`: `{resourceGroup: ResourceGroupV2}`. */
export const ResourceGroupBody = z.object({
  resourceGroup: z.object({
    identifier: Identifier,
    name: entityName(),
    color: optionalText,
    tags: optionalTags,
    description: optionalText,
    allowedScopeLevels: z.array(z.string()).nullish(),
    includedScopes: z.array(z.record(z.string(), z.unknown())).nullish(),
    resourceFilter: z.record(z.string(), z.unknown()).nullish(),
    ...scopeFields,
  }),
});
/** `RoleAssignment`. */
export const RoleAssignmentBody = z.object({
  identifier: Identifier.nullish(),
  resourceGroupIdentifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  roleIdentifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
  principal: z.object({
    identifier: z.string({ error: "must not be null" }).min(1, "must not be empty"),
    type: z.enum(["USER", "USER_GROUP", "SERVICE_ACCOUNT"]),
    scopeLevel: optionalText,
  }),
  disabled: z.boolean().nullish(),
  managed: z.boolean().nullish(),
});

// ---------------------------------------------------------------------------------------------
// Shared pieces

/** The scope the query names. */
function queryScope(c: Context<AppEnv>): AccessScope {
  return { org: optionalQuery(c, "orgIdentifier"), project: optionalQuery(c, "projectIdentifier") };
}

/** The scope a body names (API keys, tokens). */
function bodyScope(body: { orgIdentifier?: string | null; projectIdentifier?: string | null }): AccessScope {
  return { org: body.orgIdentifier || null, project: body.projectIdentifier || null };
}

/** The scope's level as `allowedScopeLevels` and `scopeLevel` name it. */
const scopeLevel = (at: AccessScope) =>
  at.project !== null ? "project" : at.org !== null ? "organization" : "account";

/** `Scope` of an answer. */
const scopeDto = (accountId: string, at: AccessScope) => ({
  accountIdentifier: accountId,
  orgIdentifier: at.org,
  projectIdentifier: at.project,
});

/** `a:o:p:id` as harness-core's user-group messages print a scope (`String.format` of null is `null`). */
const scopePath = (accountId: string, at: AccessScope, id: string) =>
  `${accountId}:${at.org ?? "null"}:${at.project ?? "null"}:${id}`;

const permit = (c: Context<AppEnv>, at: AccessScope, permission: string, type: string, id?: string) =>
  authorize(c, at, permission, type, id);

async function body<S extends z.ZodType>(c: Context<AppEnv>, schema: S, root: string): Promise<z.output<S>> {
  return parseBody(await readJsonBody(c), schema, root);
}

/** The `identifiers` filter of a list (repeated or comma-separated). */
function identifiersQuery(c: Context<AppEnv>): string[] {
  return (c.req.queries("identifiers") ?? []).flatMap((s) => s.split(",")).filter((s) => s !== "");
}

/** Keeps the records matching `searchTerm` in identifier or `dto.name` (case-insensitive). */
function searched(
  c: Context<AppEnv>,
  records: AccessRecord[],
  name = (r: AccessRecord) => r.dto.name,
): AccessRecord[] {
  const term = optionalQuery(c, "searchTerm")?.toLowerCase() ?? null;
  if (term === null) return records;
  return records.filter(
    (r) =>
      r.identifier.toLowerCase().includes(term) ||
      String(name(r) ?? "")
        .toLowerCase()
        .includes(term),
  );
}

/** A random identifier of `n` alphanumerics (the service's generated ids, inferred form). */
function randomId(n: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join("");
}

/**
 * Jersey answers a known path with another method with 400 RESOURCE_NOT_FOUND_EXCEPTION "HTTP 405
 * Method Not Allowed" (ref §2), as `index.ts` does for the other sections.
 */
function refusingOtherMethods(section: Hono<AppEnv>): Hono<AppEnv> {
  for (const path of new Set(section.routes.map((r) => r.path))) {
    section.all(path, () => {
      throw resourceNotFound("HTTP 405 Method Not Allowed");
    });
  }
  return section;
}

/** What the routes share: the store, and the account. */
interface Ctx {
  store: Store;
  ac: Store["accessControl"];
  account: () => string;
}

/** A created, changed or deleted object, then the commit. */
async function committed<T>(store: Store, f: () => T): Promise<T> {
  const out = f();
  await store.commit();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Service accounts

const SA_MISSING = (id: string) => invalidArgument(`Service account [${id}] doesn't exist in scope`);

function serviceAccountRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dto = (at: AccessScope, b: z.output<typeof ServiceAccountBody>) => ({
    identifier: b.identifier,
    name: b.name,
    email: b.email,
    description: b.description ?? "",
    tags: b.tags ?? {},
    ...scopeDto(account(), at),
  });
  const aggregate = (r: AccessRecord) => ({
    serviceAccount: r.dto,
    createdAt: r.createdAt,
    lastModifiedAt: r.lastModifiedAt,
    tokensCount: ac.list("token", r.at, `SERVICE_ACCOUNT/${r.identifier}`).length,
    roleAssignmentsMetadataDTO: roleAssignmentMetadata(ac, r.at, "SERVICE_ACCOUNT", r.identifier),
  });
  const existing = (at: AccessScope, id: string) => {
    const r = ac.get("serviceAccount", at, id);
    if (r === undefined) throw SA_MISSING(id);
    return r;
  };

  app.post("/", async (c) => {
    const at = queryScope(c);
    const b = await body(c, ServiceAccountBody, "serviceAccountDTO");
    permit(c, at, "core_serviceaccount_edit", "SERVICEACCOUNT");
    const r = await committed(store, () =>
      ac.create("serviceAccount", { at, identifier: b.identifier, parent: null, dto: dto(at, b) }, () =>
        duplicateField(`Try using different service account identifier, [${b.identifier}] cannot be used`),
      ),
    );
    return success(c, r.dto);
  });
  app.get("/", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT");
    const ids = identifiersQuery(c);
    const items = ac.list("serviceAccount", at).filter((r) => ids.length === 0 || ids.includes(r.identifier));
    return success(
      c,
      items.map((r) => r.dto),
    );
  });
  app.get("/aggregate", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT");
    const items = searched(c, ac.list("serviceAccount", at)).map(aggregate);
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.get("/aggregate/:identifier", (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT", id);
    return success(c, aggregate(existing(at, id)));
  });
  app.put("/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    const b = await body(c, ServiceAccountBody, "serviceAccountDTO");
    permit(c, at, "core_serviceaccount_edit", "SERVICEACCOUNT", id);
    if (b.identifier !== id) throw invalidRequest(`Value mismatch, previous: ${id} current: ${b.identifier}`);
    const r = existing(at, id);
    const updated = await committed(store, () => ac.replace("serviceAccount", r, dto(at, b)));
    return success(c, updated.dto);
  });
  app.delete("/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_delete", "SERVICEACCOUNT", id);
    const r = existing(at, id);
    await committed(store, () => ac.remove("serviceAccount", r));
    return success(c, true);
  });
  return app;
}

// ---------------------------------------------------------------------------------------------
// API keys

const KEY_MISSING = (id: string) => invalidArgument(`Api key [${id}] doesn't exist in scope`);

function apiKeyRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dto = (at: AccessScope, b: z.output<typeof ApiKeyBody>) => ({
    identifier: b.identifier,
    name: b.name,
    description: b.description ?? "",
    tags: b.tags ?? {},
    apiKeyType: b.apiKeyType,
    parentIdentifier: b.parentIdentifier,
    // harness-core `ApiKeyDTO`: 30 days unless given (inferred default).
    defaultTimeToExpireToken: b.defaultTimeToExpireToken ?? 30 * 24 * 3600 * 1000,
    ...scopeDto(account(), at),
  });
  const aggregate = (r: AccessRecord) => ({
    apiKey: r.dto,
    createdAt: r.createdAt,
    lastModifiedAt: r.lastModifiedAt,
    tokensCount: ac.list("token", r.at, `${r.parent}/${r.identifier}`).length,
  });
  /** The parent of a key: a service account of the scope must exist (a user's key names a user). */
  const assureParent = (at: AccessScope, type: string, parent: string) => {
    if (type === "SERVICE_ACCOUNT" && ac.get("serviceAccount", at, parent) === undefined)
      throw SA_MISSING(parent);
  };
  const parentQuery = (c: Context<AppEnv>) => {
    const q = requireQuery(c, ["apiKeyType", "parentIdentifier"]);
    return `${q.apiKeyType}/${q.parentIdentifier}`;
  };

  app.post("/", async (c) => {
    const b = await body(c, ApiKeyBody, "apiKeyDTO");
    const at = bodyScope(b);
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", b.parentIdentifier);
    assureParent(at, b.apiKeyType, b.parentIdentifier);
    const parent = `${b.apiKeyType}/${b.parentIdentifier}`;
    const r = await committed(store, () =>
      ac.create("apiKey", { at, identifier: b.identifier, parent, dto: dto(at, b) }, () =>
        duplicateField(`Try using different Key name, [${b.identifier}] already exists`),
      ),
    );
    return success(c, r.dto);
  });
  app.get("/", (c) => {
    const at = queryScope(c);
    const parent = parentQuery(c);
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT");
    const ids = identifiersQuery(c);
    const items = ac.list("apiKey", at, parent).filter((r) => ids.length === 0 || ids.includes(r.identifier));
    return success(
      c,
      items.map((r) => r.dto),
    );
  });
  app.get("/aggregate", (c) => {
    const at = queryScope(c);
    const parent = parentQuery(c);
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT");
    const items = searched(c, ac.list("apiKey", at, parent)).map(aggregate);
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.get("/aggregate/:identifier", (c) => {
    const at = queryScope(c);
    const parent = parentQuery(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT", id);
    const r = ac.get("apiKey", at, id, parent);
    if (r === undefined) throw KEY_MISSING(id);
    return success(c, aggregate(r));
  });
  // harness-core `ApiKeyResource.updateApiKey`: the body names the key and its account (the path
  // identifier is not read: the Terraform provider's `api_key/apiKey.go` sends the account id
  // there), and no `accountIdentifier` query is sent (`middleware/auth.ts` `ACCOUNT_IN_BODY`).
  app.put("/:identifier", async (c) => {
    const b = await body(c, ApiKeyBody, "apiKeyDTO");
    const account = c.req.query("accountIdentifier") ?? b.accountIdentifier;
    if (account !== store.accountId)
      throw accessDenied(`Missing permission to access account [${account ?? "null"}]`);
    const at = bodyScope(b);
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", b.parentIdentifier);
    const r = ac.get("apiKey", at, b.identifier, `${b.apiKeyType}/${b.parentIdentifier}`);
    if (r === undefined) throw KEY_MISSING(b.identifier);
    const updated = await committed(store, () => ac.replace("apiKey", r, dto(at, b)));
    return success(c, updated.dto);
  });
  app.delete("/:identifier", async (c) => {
    const at = queryScope(c);
    const parent = parentQuery(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", id);
    const r = ac.get("apiKey", at, id, parent);
    if (r === undefined) throw KEY_MISSING(id);
    await committed(store, () => ac.remove("apiKey", r));
    return success(c, true);
  });
  return app;
}

// ---------------------------------------------------------------------------------------------
// Tokens

const TOKEN_MISSING = (id: string) => invalidArgument(`Token [${id}] doesn't exist in scope`);

function tokenRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dto = (at: AccessScope, b: z.output<typeof TokenBody>, key: AccessRecord, now: number) => {
    const validFrom = b.validFrom ?? now;
    return {
      identifier: b.identifier,
      name: b.name,
      validFrom,
      validTo: b.validTo ?? validFrom + Number(key.dto.defaultTimeToExpireToken),
      scheduledExpireTime: b.scheduledExpireTime ?? null,
      valid: true,
      ...scopeDto(account(), at),
      apiKeyIdentifier: b.apiKeyIdentifier,
      parentIdentifier: b.parentIdentifier,
      apiKeyType: b.apiKeyType,
      description: b.description ?? "",
      tags: b.tags ?? {},
      email: b.email ?? null,
      username: b.username ?? null,
    };
  };
  const keyOf = (
    at: AccessScope,
    b: { apiKeyType: string; parentIdentifier: string; apiKeyIdentifier: string },
  ) => {
    const key = ac.get("apiKey", at, b.apiKeyIdentifier, `${b.apiKeyType}/${b.parentIdentifier}`);
    if (key === undefined) throw KEY_MISSING(b.apiKeyIdentifier);
    return key;
  };
  /** The token the query's scope (and, when given, its key) names. */
  const existing = (c: Context<AppEnv>, at: AccessScope, id: string) => {
    const [type, parent, apiKey] = ["apiKeyType", "parentIdentifier", "apiKeyIdentifier"].map((n) =>
      optionalQuery(c, n),
    );
    const r = ac.get("token", at, id, type && parent && apiKey ? `${type}/${parent}/${apiKey}` : undefined);
    if (r === undefined) throw TOKEN_MISSING(id);
    return r;
  };

  app.post("/", async (c) => {
    const b = await body(c, TokenBody, "tokenDTO");
    const at = bodyScope(b);
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", b.parentIdentifier);
    const key = keyOf(at, b);
    const parent = `${b.apiKeyType}/${b.parentIdentifier}/${b.apiKeyIdentifier}`;
    const value = await committed(store, () =>
      ac.createToken({ at, identifier: b.identifier, parent, dto: dto(at, b, key, Date.now()) }, () =>
        duplicateField(`Try using different token name, [${b.identifier}] already exists`),
      ),
    );
    return success(c, value);
  });
  app.get("/aggregate", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_serviceaccount_view", "SERVICEACCOUNT");
    const parent = ["apiKeyType", "parentIdentifier", "apiKeyIdentifier"]
      .map((n) => optionalQuery(c, n))
      .filter((v): v is string => v !== null);
    const ids = identifiersQuery(c);
    const listed = ac.list("token", at, parent.length > 0 ? parent.join("/") : undefined);
    const items = searched(
      c,
      listed.filter((r) => ids.length === 0 || ids.includes(r.identifier)),
    ).map((r) => ({
      token: r.dto,
      expiryAt: r.dto.scheduledExpireTime ?? r.dto.validTo,
      createdAt: r.createdAt,
      lastModifiedAt: r.lastModifiedAt,
    }));
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.put("/:identifier", async (c) => {
    const id = c.req.param("identifier");
    const b = await body(c, TokenBody, "tokenDTO");
    const at = bodyScope(b);
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", b.parentIdentifier);
    if (b.identifier !== id) throw invalidRequest(`Value mismatch, previous: ${id} current: ${b.identifier}`);
    const key = keyOf(at, b);
    const r = ac.get("token", at, id, `${b.apiKeyType}/${b.parentIdentifier}/${b.apiKeyIdentifier}`);
    if (r === undefined) throw TOKEN_MISSING(id);
    const next = {
      ...b,
      validFrom: b.validFrom ?? Number(r.dto.validFrom),
      validTo: b.validTo ?? Number(r.dto.validTo),
    };
    const updated = await committed(store, () => ac.replace("token", r, dto(at, next, key, r.createdAt)));
    return success(c, updated.dto);
  });
  app.post("/rotate/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", id);
    const r = existing(c, at, id);
    const rotateAt = Number(optionalQuery(c, "rotateTimestamp") ?? Date.now());
    const value = await committed(store, () => ac.rotateToken(r, rotateAt));
    return success(c, value);
  });
  app.delete("/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_serviceaccount_manageapikey", "SERVICEACCOUNT", id);
    const r = existing(c, at, id);
    await committed(store, () => ac.remove("token", r));
    return success(c, true);
  });
  return app;
}

// ---------------------------------------------------------------------------------------------
// User groups

function userGroupRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dto = (at: AccessScope, b: z.output<typeof UserGroupBody>, users: string[]) => ({
    ...scopeDto(account(), at),
    identifier: b.identifier,
    name: b.name,
    users,
    notificationConfigs: b.notificationConfigs ?? [],
    isSsoLinked: false,
    linkedSsoId: null,
    linkedSsoDisplayName: null,
    ssoGroupId: null,
    ssoGroupName: null,
    linkedSsoType: null,
    externallyManaged: false,
    description: b.description ?? "",
    tags: b.tags ?? {},
    harnessManaged: false,
    ssoLinked: false,
  });
  const missing = (at: AccessScope, id: string) =>
    invalidRequest(`User Group is not available ${scopePath(account(), at, id)}`);

  app.post("/", async (c) => {
    const at = queryScope(c);
    const b = await body(c, UserGroupBody, "userGroupDTO");
    permit(c, at, "core_usergroup_manage", "USERGROUP");
    const r = await committed(store, () =>
      ac.create(
        "userGroup",
        { at, identifier: b.identifier, parent: null, dto: dto(at, b, b.users ?? []) },
        () => duplicateField(`Try using different user group identifier, [${b.identifier}] cannot be used`),
      ),
    );
    return success(c, r.dto);
  });
  app.put("/", async (c) => {
    const at = queryScope(c);
    const b = await body(c, UserGroupBody, "userGroupDTO");
    permit(c, at, "core_usergroup_manage", "USERGROUP", b.identifier);
    const r = ac.get("userGroup", at, b.identifier);
    if (r === undefined) throw missing(at, b.identifier);
    const updated = await committed(store, () => ac.replace("userGroup", r, dto(at, b, b.users ?? [])));
    return success(c, updated.dto);
  });
  app.get("/", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_usergroup_view", "USERGROUP");
    const items = searched(c, ac.list("userGroup", at)).map((r) => r.dto);
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.get("/:identifier", (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_usergroup_view", "USERGROUP", id);
    const r = ac.get("userGroup", at, id);
    if (r === undefined) throw entityNotFound(`User Group is not available ${scopePath(account(), at, id)}`);
    return success(c, r.dto);
  });
  app.delete("/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_usergroup_manage", "USERGROUP", id);
    const r = ac.get("userGroup", at, id);
    if (r === undefined) throw missing(at, id);
    await committed(store, () => ac.remove("userGroup", r));
    return success(c, r.dto);
  });
  return app;
}

// ---------------------------------------------------------------------------------------------
// Users and invites

function userRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const aggregate = (at: AccessScope, r: AccessRecord) => ({
    user: r.dto,
    roleAssignmentMetadata: roleAssignmentMetadata(ac, at, "USER", r.identifier),
  });
  const existing = (id: string) => {
    const r = ac.get("user", { org: null, project: null }, id);
    if (r === undefined) throw entityNotFound(`User with id [${id}] not found`);
    return r;
  };

  // The list is a POST whose filter body (`ACLAggregateFilter`) is optional and not read here.
  app.post("/aggregate", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_user_view", "USER");
    const users = searched(c, ac.list("user", null), (r) => `${r.dto.name} ${r.dto.email}`);
    return success(
      c,
      ngPage(
        users.map((r) => aggregate(at, r)),
        pageParams(c, ACCESS_PAGE_SIZE),
      ),
    );
  });
  app.get("/aggregate/:userId", (c) => {
    const at = queryScope(c);
    const id = c.req.param("userId");
    permit(c, at, "core_user_view", "USER", id);
    return success(c, aggregate(at, existing(id)));
  });
  // `AddUsers`: an existing user joins the groups; anyone else is invited (`addUserResponseMap`).
  app.post("/users", async (c) => {
    const at = queryScope(c);
    const b = await body(c, AddUsersBody, "addUsersDTO");
    permit(c, at, "core_user_invite", "USER");
    const result = await committed(store, () =>
      ac.addUsers(
        at,
        b.emails,
        b.userGroups ?? [],
        (id, email) => ({
          id,
          name: email.split("@")[0],
          email,
          ...scopeDto(account(), at),
          roleBindings: b.roleBindings ?? [],
          userGroups: b.userGroups ?? [],
          inviteType: "ADMIN_INITIATED_INVITE",
          approved: false,
        }),
        (g) => invalidRequest(`User Group is not available ${scopePath(account(), at, g)}`),
      ),
    );
    return success(c, { addUserResponseMap: result });
  });
  app.put("/add-user-to-groups/:userId", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("userId");
    const b = await body(c, AddUserToGroupsBody, "addUserToUserGroupsDTO");
    permit(c, at, "core_usergroup_manage", "USERGROUP");
    existing(id);
    await committed(store, () =>
      ac.addToGroups(at, id, b.userGroupIdsToAdd, (g) =>
        invalidRequest(`User Group is not available ${scopePath(account(), at, g)}`),
      ),
    );
    return success(c, true);
  });
  // `RemoveUser`: out of the query's scope (and the scopes under it); from the account, for good.
  app.delete("/:userId", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("userId");
    permit(c, at, "core_user_manage", "USER", id);
    const r = existing(id);
    await committed(store, () => ac.removeUser(r, at));
    return success(c, true);
  });
  app.put("/:userId", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("userId");
    const b = await body(c, UserUpdateBody, "userInfo");
    permit(c, at, "core_user_manage", "USER", id);
    const r = existing(id);
    const updated = await committed(store, () =>
      ac.replace("user", r, { ...r.dto, ...(b.name ? { name: b.name } : {}) }),
    );
    return success(c, userInfo(updated));
  });
  return app;
}

/** `UserInfo` of a user (SDK `model_user_info.go`). */
function userInfo(r: AccessRecord) {
  return {
    uuid: r.dto.uuid,
    name: r.dto.name,
    email: r.dto.email,
    admin: r.identifier === ACCOUNT_ADMIN_UUID,
    twoFactorAuthenticationEnabled: r.dto.twoFactorAuthenticationEnabled,
    emailVerified: true,
    locked: r.dto.locked,
    disabled: r.dto.disabled,
    externallyManaged: r.dto.externallyManaged,
  };
}

function inviteRoutes({ store, ac }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const list = (c: Context<AppEnv>) => {
    const at = queryScope(c);
    permit(c, at, "core_user_view", "USER");
    const items = searched(c, ac.list("invite", at), (r) => `${r.dto.name} ${r.dto.email}`).map((r) => r.dto);
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  };
  app.get("/", list);
  // `GetPendingUsersAggregated`: a POST whose filter body is optional and not read here.
  app.post("/aggregate", list);
  app.delete("/:inviteId", async (c) => {
    const id = c.req.param("inviteId");
    const r = ac.list("invite", null).find((i) => i.identifier === id);
    if (r === undefined) throw invalidRequest(`Invite with id [${id}] not found`);
    permit(c, r.at, "core_user_invite", "USER", id);
    await committed(store, () => ac.remove("invite", r));
    return success(c, r.dto);
  });
  return app;
}

// ---------------------------------------------------------------------------------------------
// Roles, resource groups, role assignments

/** The `RoleResponse`-like answer: `{<key>: dto, scope, harnessManaged, createdAt, lastModifiedAt}`. */
const scoped = (key: string, r: AccessRecord, accountId: string) => ({
  [key]: r.dto,
  scope: scopeDto(accountId, r.at),
  harnessManaged: false,
  createdAt: r.createdAt,
  lastModifiedAt: r.lastModifiedAt,
});

/**
 * The CRUD of a scoped object whose answer wraps it (`RoleResponse`, `ResourceGroupV2Response`):
 * `POST /`, `GET /`, `GET|PUT|DELETE /{id}`.
 */
function scopedRoutes<S extends z.ZodType>(
  { store, ac, account }: Ctx,
  spec: {
    kind: AccessKind;
    label: string;
    resource: string;
    schema: S;
    root: string;
    /** The object the body describes, and its identifier. */
    read: (b: z.output<S>, at: AccessScope) => { identifier: string; dto: Record<string, unknown> };
    render: (r: AccessRecord, accountId: string) => unknown;
    deleted: (r: AccessRecord, accountId: string) => unknown;
  },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kind, label, resource } = spec;
  const at = (c: Context<AppEnv>) => queryScope(c);

  app.post("/", async (c) => {
    const scope = at(c);
    const { identifier, dto } = spec.read(await body(c, spec.schema, spec.root), scope);
    permit(c, scope, `core_${resource}_edit`, resource.toUpperCase());
    const r = await committed(store, () =>
      ac.create(kind, { at: scope, identifier, parent: null, dto }, () =>
        duplicateField(`A ${label} with identifier [${identifier}] is already present in the scope`),
      ),
    );
    return success(c, spec.render(r, account()));
  });
  app.get("/", (c) => {
    const scope = at(c);
    permit(c, scope, `core_${resource}_view`, resource.toUpperCase());
    const items = searched(c, ac.list(kind, scope)).map((r) => spec.render(r, account()));
    return success(c, ngPage(items, pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.get("/:identifier", (c) => {
    const scope = at(c);
    const id = c.req.param("identifier");
    permit(c, scope, `core_${resource}_view`, resource.toUpperCase(), id);
    const r = ac.get(kind, scope, id);
    if (r === undefined) throw entityNotFound(`${label} with identifier [${id}] not found in the scope`);
    return success(c, spec.render(r, account()));
  });
  app.put("/:identifier", async (c) => {
    const scope = at(c);
    const id = c.req.param("identifier");
    const { identifier, dto } = spec.read(await body(c, spec.schema, spec.root), scope);
    permit(c, scope, `core_${resource}_edit`, resource.toUpperCase(), id);
    if (identifier !== id) throw invalidRequest(`Value mismatch, previous: ${id} current: ${identifier}`);
    const r = ac.get(kind, scope, id);
    if (r === undefined) throw invalidRequest(`${label} with identifier [${id}] not found in the scope`);
    const updated = await committed(store, () => ac.replace(kind, r, dto));
    return success(c, spec.render(updated, account()));
  });
  app.delete("/:identifier", async (c) => {
    const scope = at(c);
    const id = c.req.param("identifier");
    permit(c, scope, `core_${resource}_delete`, resource.toUpperCase(), id);
    const r = ac.get(kind, scope, id);
    if (r === undefined) throw invalidRequest(`${label} with identifier [${id}] not found in the scope`);
    await committed(store, () => ac.remove(kind, r));
    return success(c, spec.deleted(r, account()));
  });
  return app;
}

/** Built-in (Harness-managed) roles and resource groups start with `_` (see the module comment). */
const builtIn = (id: string) => id.startsWith("_");

/** `RoleAssignmentMetadataDTO` of a principal's assignments in a scope. */
function roleAssignmentMetadata(ac: Store["accessControl"], at: AccessScope, type: string, id: string) {
  return ac
    .list("roleAssignment", at)
    .filter((r) => {
      const p = r.dto.principal as { type: string; identifier: string };
      return p.type === type && p.identifier === id;
    })
    .map((r) => {
      const role = String(r.dto.roleIdentifier);
      const group = String(r.dto.resourceGroupIdentifier);
      return {
        identifier: r.identifier,
        roleIdentifier: role,
        roleName: ac.get("role", at, role)?.dto.name ?? role,
        resourceGroupIdentifier: group,
        resourceGroupName: ac.get("resourceGroup", at, group)?.dto.name ?? group,
        managedRole: builtIn(role),
        managedRoleAssignment: false,
      };
    });
}

function roleAssignmentRoutes({ store, ac, account }: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const render = (r: AccessRecord) => scoped("roleAssignment", r, account());
  const missing = (id: string) =>
    entityNotFound(`Role Assignment with identifier [${id}] not found in the scope`);

  app.post("/", async (c) => {
    const at = queryScope(c);
    const b = await body(c, RoleAssignmentBody, "roleAssignmentDTO");
    permit(c, at, "core_role_assign", "ROLE");
    if (!builtIn(b.roleIdentifier) && ac.get("role", at, b.roleIdentifier) === undefined)
      throw invalidRequest(`Role [${b.roleIdentifier}] not found in the scope`);
    if (
      !builtIn(b.resourceGroupIdentifier) &&
      ac.get("resourceGroup", at, b.resourceGroupIdentifier) === undefined
    )
      throw invalidRequest(`Resource group [${b.resourceGroupIdentifier}] not found in the scope`);
    const p = b.principal;
    const principalKind = {
      USER: "user",
      USER_GROUP: "userGroup",
      SERVICE_ACCOUNT: "serviceAccount",
    } as const;
    const principalAt = p.type === "USER" ? { org: null, project: null } : at;
    if (ac.get(principalKind[p.type], principalAt, p.identifier) === undefined)
      throw invalidRequest(`Principal [${p.identifier}] of type [${p.type}] not found in the scope`);
    const identifier = b.identifier ?? `role_assignment_${randomId(20)}`;
    const dto = {
      identifier,
      resourceGroupIdentifier: b.resourceGroupIdentifier,
      roleIdentifier: b.roleIdentifier,
      roleReference: {
        identifier: b.roleIdentifier,
        scopeLevel: builtIn(b.roleIdentifier) ? "account" : scopeLevel(at),
      },
      principal: {
        scopeLevel: p.scopeLevel ?? scopeLevel(principalAt),
        identifier: p.identifier,
        type: p.type,
      },
      disabled: b.disabled ?? false,
      managed: b.managed ?? false,
      internal: false,
    };
    const r = await committed(store, () =>
      ac.create("roleAssignment", { at, identifier, parent: null, dto }, () =>
        duplicateField(`A role assignment with identifier [${identifier}] is already present in the scope`),
      ),
    );
    return success(c, render(r));
  });
  app.get("/", (c) => {
    const at = queryScope(c);
    permit(c, at, "core_role_view", "ROLE");
    return success(c, ngPage(ac.list("roleAssignment", at).map(render), pageParams(c, ACCESS_PAGE_SIZE)));
  });
  app.get("/:identifier", (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_role_view", "ROLE", id);
    const r = ac.get("roleAssignment", at, id);
    if (r === undefined) throw missing(id);
    return success(c, render(r));
  });
  app.delete("/:identifier", async (c) => {
    const at = queryScope(c);
    const id = c.req.param("identifier");
    permit(c, at, "core_role_assign", "ROLE", id);
    const r = ac.get("roleAssignment", at, id);
    if (r === undefined)
      throw invalidRequest(`Role Assignment with identifier [${id}] not found in the scope`);
    await committed(store, () => ac.remove("roleAssignment", r));
    return success(c, render(r));
  });
  return app;
}

// ---------------------------------------------------------------------------------------------

/**
 * The access-control routes, each with its full path: mount at the root
 * (`app.route("/", accessControlRoutes(store))`) before the platform's unknown-path answer.
 */
export function accessControlRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ctx: Ctx = { store, ac: store.accessControl, account: () => store.accountId };

  for (const prefix of ACCESS_CONTROL_PREFIXES) {
    app.use(
      `${prefix}/*`,
      cors({
        origin: "*",
        allowMethods: ["GET", "POST", "PUT", "DELETE"],
        allowHeaders: ["x-api-key", "content-type"],
      }),
    );
    app.use(`${prefix}/*`, keyAuth(store, "platform"));
  }

  const roles = scopedRoutes(ctx, {
    kind: "role",
    label: "Role",
    resource: "role",
    schema: RoleBody,
    root: "role",
    read: (b, at) => ({
      identifier: b.identifier,
      dto: {
        identifier: b.identifier,
        name: b.name,
        permissions: b.permissions ?? [],
        allowedScopeLevels: b.allowedScopeLevels ?? [scopeLevel(at)],
        description: b.description ?? "",
        tags: b.tags ?? {},
      },
    }),
    render: (r, accountId) => scoped("role", r, accountId),
    deleted: (r, accountId) => scoped("role", r, accountId),
  });
  const resourceGroups = scopedRoutes(ctx, {
    kind: "resourceGroup",
    label: "Resource Group",
    resource: "resourcegroup",
    schema: ResourceGroupBody,
    root: "resourceGroup",
    read: ({ resourceGroup: g }, at) => ({
      identifier: g.identifier,
      dto: {
        ...scopeDto(store.accountId, at),
        identifier: g.identifier,
        name: g.name,
        color: g.color ?? DEFAULT_PROJECT_COLOUR,
        tags: g.tags ?? {},
        description: g.description ?? "",
        allowedScopeLevels: g.allowedScopeLevels ?? [scopeLevel(at)],
        includedScopes: g.includedScopes ?? [],
        resourceFilter: g.resourceFilter ?? { resources: [], includeAllResources: false },
      },
    }),
    render: (r) => {
      const { scope: _scope, ...rest } = scoped("resourceGroup", r, store.accountId);
      return rest;
    },
    deleted: () => true,
  });

  for (const [path, section] of [
    ["/ng/api/serviceaccount", serviceAccountRoutes(ctx)],
    ["/ng/api/apikey", apiKeyRoutes(ctx)],
    ["/ng/api/token", tokenRoutes(ctx)],
    ["/ng/api/user-groups", userGroupRoutes(ctx)],
    ["/ng/api/user", userRoutes(ctx)],
    ["/ng/api/invites", inviteRoutes(ctx)],
    ["/authz/api/roles", roles],
    ["/authz/api/roleassignments", roleAssignmentRoutes(ctx)],
    ["/resourcegroup/api/v2/resourcegroup", resourceGroups],
  ] as const) {
    app.route(path, refusingOtherMethods(section));
  }

  // An unknown path of these services: 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION (ref §2).
  for (const prefix of ACCESS_CONTROL_PREFIXES) {
    app.all(`${prefix}/*`, () => {
      throw resourceNotFound("HTTP 404 Not Found");
    });
  }
  return app;
}
