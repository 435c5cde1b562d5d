/**
 * The typed client of the feature-flag admin API (`Authorization: Bearer <admin key>`, or a Harness
 * token in `x-api-key`: `./auth.ts`), spec
 * `feature-flag-admin-api.md` §4; endpoints the spec marks "not shown" follow
 * `../shared/reference/admin-api-behaviour.md` (ref §N).
 *
 * Every method sends through the one HTTP core (`sdk/core/request.ts`): bodies are validated by
 * their zod schema before anything is sent, success bodies after; failures are the typed errors of
 * `sdk/core/errors.ts`. Lists are async iterators that walk every page.
 * @module
 */
import { type CommonOptions, resolveCommonOptions } from "../core/options";
import { HttpCore } from "../core/request";
import { type AdminAuth, adminAuthHeader, adminAuthHint, resolveAdminAuth } from "./auth";
import { ADMIN_PREFIX } from "./endpoints";
import { adminPartsBase } from "./part";
import { ADMIN_PARTS, type AdminParts } from "./parts";

export { EnvironmentsApi } from "./environment";
export { FlagsApi } from "./flag";
export { DefinitionsApi } from "./flag-definition";
export { GroupsApi } from "./group";
export { RolloutStatusesApi } from "./rollout-status";
export { TrafficTypesApi } from "./traffic-type";
export { UsersApi } from "./user";
export { WorkspacesApi } from "./workspace";

/** Options of {@link AdminClient}: the {@link CommonOptions} plus the admin key. */
export type AdminClientOptions = CommonOptions & {
  /** Admin API key, or a Harness token; falls back to `FLAGSTACK_ADMIN_API_KEY`. */
  apiKey?: string | undefined;
  /**
   * How the key is sent: `bearer` (`Authorization: Bearer <key>`, a Split admin API key) or
   * `x-api-key` (a Harness token, ref §4). Falls back to `FLAGSTACK_ADMIN_AUTH`; default: by the
   * key's shape, `x-api-key` for a Harness token (`pat.…`, `sat.…`), else `bearer` (`./auth.ts`).
   */
  adminAuth?: AdminAuth | undefined;
};

export type { ChangeNote } from "./schemas";

/** One member per part of `./parts.ts`, each documented by its part's TSDoc. */
const AdminPartsBase: new (core: HttpCore) => AdminParts = adminPartsBase(ADMIN_PARTS);

/**
 * Client of the feature-flag admin API.
 *
 * One instance per key is enough; instances for the same base URL and settings share one
 * keep-alive connection pool and one rate limiter, process-wide.
 *
 * @example
 * import { AdminClient } from "flagstack";
 * const admin = new AdminClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.ADMIN_KEY });
 * const ws = await admin.workspaces.getByName("Default");
 * const flag = await admin.flags.create(ws!.id, "user", { name: "new-checkout", description: "" });
 * for await (const user of admin.users.list({ status: "ACTIVE" })) console.log(user.email);
 */
export class AdminClient extends AdminPartsBase {
  // One member per part of `./parts.ts` (workspaces, environments, flags, definitions, users,
  // segments, segmentKeys, ...: each part file's `part`, with its TSDoc), from the base class.
  /** The HTTP core (for advanced use: `core.limiter`, `core.request(route, ...)`). */
  readonly core: HttpCore;

  /**
   * @param options Base URL (`FLAGSTACK_ADMIN_API_URL`), key (`FLAGSTACK_ADMIN_API_KEY`), rate
   *   limit (`FLAGSTACK_REQUESTS_PER_SECOND`, default 10), retries, timeouts, dispatcher.
   * @throws ConfigurationError naming a missing or invalid option and its environment variable.
   */
  constructor(options: AdminClientOptions = {}) {
    const core = adminCore(options);
    super(core);
    this.core = core;
  }
}

/** The HTTP core of a client, from its options (or their environment variables). */
function adminCore(options: AdminClientOptions): HttpCore {
  const { apiKey, adminAuth, ...common } = options;
  const resolved = resolveCommonOptions(common, apiKey, {
    client: "AdminClient",
    urlEnv: "FLAGSTACK_ADMIN_API_URL",
    keyOption: "apiKey",
    keyEnv: "FLAGSTACK_ADMIN_API_KEY",
    defaultRequestsPerSecond: 10,
  });
  const mode = resolveAdminAuth(adminAuth, resolved.env, resolved.key);
  return new HttpCore({
    options: resolved,
    auth: adminAuthHeader(mode, resolved.key),
    authHint: adminAuthHint(mode),
    routePrefix: ADMIN_PREFIX,
  });
}
