/**
 * API keys (ref admin §1.1 "api keys", §9.1 `split_api_key`): `POST /apiKeys` makes an admin,
 * server-side or client-side key and answers its value once; `DELETE /apiKeys/{id}` revokes it.
 * There is no read and no list (§9.1: "not importable", PR #91), so a key is known only by what
 * its create answered.
 *
 * The routes live here rather than in `./endpoints.ts`, with the part that calls them.
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { secretField } from "../core/secret-fields";
import { AdminApiPart, adminPart } from "./part";
import { TrueBody } from "./schemas";

/** The kinds of key (ref §9.1 `type`). */
export const API_KEY_TYPES = ["admin", "server_side", "client_side"] as const;
/** One of {@link API_KEY_TYPES}. */
export const ApiKeyType = z.enum(API_KEY_TYPES, {
  error: `apiKeyType must be one of ${API_KEY_TYPES.map((t) => `"${t}"`).join(", ")}`,
});
export type ApiKeyType = z.infer<typeof ApiKeyType>;

/** Roles of an admin key (ref §4; [TF] `api/api_keys.go`). */
export const API_KEY_ROLES = [
  "API_ALL_GRANTED",
  "API_APIKEY",
  "API_ADMIN",
  "API_WORKSPACE_ADMIN",
  "API_FEATURE_FLAG_VIEWER",
  "API_FEATURE_FLAG_EDITOR",
  "API_SEGMENT_VIEWER",
  "API_SEGMENT_EDITOR",
] as const;

/** Body of `POST /apiKeys` (ref §9.1): the name (at most 100 characters, #212), kind, roles and scope. */
export const ApiKeyCreate = z.object({
  name: z
    .string({ error: "name is required" })
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters"),
  apiKeyType: ApiKeyType,
  /** Admin keys only. */
  roles: z
    .array(z.enum(API_KEY_ROLES, { error: `a role must be one of ${API_KEY_ROLES.join(", ")}` }))
    .optional(),
  environments: z.array(z.object({ type: z.literal("environment"), id: z.string().min(1) })).default([]),
  workspace: z.object({ type: z.literal("workspace"), id: z.string().min(1) }).optional(),
});
export type ApiKeyCreate = z.input<typeof ApiKeyCreate>;

/** A key as its create answers it: `{id, name, roles, type, apiKeyType, key}` (ref §9.1). */
export const ApiKey = z.looseObject({
  id: z.string(),
  name: z.string(),
  apiKeyType: z.string(),
  /**
   * The key itself: shown once, in this answer only. A secret field (`sdk/core/secret-fields.ts`):
   * no error of the call shows it, whatever the service echoes.
   */
  key: secretField(z.string()),
  roles: z.array(z.string()).optional(),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** The API key routes (ref §1.1). */
export const apiKeyEndpoints = {
  create: route("POST /internal/api/v2/apiKeys", ApiKey),
  /** A DELETE retried after a lost response that finds the key gone has succeeded. */
  revoke: route("DELETE /internal/api/v2/apiKeys/{apiKeyId}", TrueBody, { goneOnRetry: true }),
} as const;

/** API keys: `admin.apiKeys`. */
export class ApiKeysApi extends AdminApiPart {
  /**
   * Makes a key; its value is in the answer, and nowhere else ever again.
   * @example
   * const key = await admin.apiKeys.create({
   *   name: "checkout-server",
   *   apiKeyType: "server_side",
   *   environments: [{ type: "environment", id: prod.id }],
   *   workspace: { type: "workspace", id: ws.id },
   * });
   */
  async create(body: ApiKeyCreate): Promise<ApiKey> {
    return this.send(apiKeyEndpoints.create, {}, ApiKeyCreate, body);
  }

  /**
   * Revokes a key (also an environment's auto-created SDK keys, which block its deletion, ref §1.2).
   * @throws NotFoundError when there is no such key.
   */
  async revoke(id: string): Promise<true> {
    return this.request(apiKeyEndpoints.revoke, { apiKeyId: id });
  }
}

/** API keys: create (the value is answered once), revoke. */
export const part = adminPart("apiKeys", (core) => new ApiKeysApi(core));
