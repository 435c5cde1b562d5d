/**
 * How the admin client authenticates: `Authorization: Bearer <admin key>` (a Split admin API key),
 * or `x-api-key: <token>` (ref admin §4: accounts migrated to Harness authenticate with a Harness
 * token, a personal access token or a service account token, in that header; the davidji99
 * provider's `harness_token` and Harness's Go SDK send it there, ref §9.1, §9.2).
 *
 * When the mode is not given, the key's shape decides: a Harness token has the form
 * `pat.<account>.<token id>.<secret>` (personal) or `sat.<...>` (service account), the form the
 * emulator issues (`emulator/store/keys.ts`) and the SDK's redaction already knows
 * (`sdk/core/redact.ts`); anything else is an admin key, sent as a Bearer key.
 * @module
 */
import { z } from "zod";
import { ConfigurationError } from "../core/options";

/** The admin API's authentication modes. */
export const ADMIN_AUTH_MODES = ["bearer", "x-api-key"] as const;

/** An authentication mode: `bearer` (a Split admin API key) or `x-api-key` (a Harness token). */
export const AdminAuth = z.enum(ADMIN_AUTH_MODES, {
  error: `must be one of ${ADMIN_AUTH_MODES.map((m) => `"${m}"`).join(", ")}`,
});
/** See {@link AdminAuth}. */
export type AdminAuth = z.output<typeof AdminAuth>;

/** Environment variable of the mode, as the client option falls back to it. */
export const ADMIN_AUTH_ENV = "FLAGSTACK_ADMIN_AUTH";

/** A Harness personal access token or service account token. */
const HARNESS_TOKEN = /^(?:pat|sat)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The mode for `key` when none is configured: `x-api-key` for a Harness token, else `bearer`. */
export function adminAuthForKey(key: string): AdminAuth {
  return HARNESS_TOKEN.test(key) ? "x-api-key" : "bearer";
}

/** The header that carries `key` in `mode`, as the HTTP core takes it. */
export function adminAuthHeader(mode: AdminAuth, key: string): readonly [name: string, value: string] {
  return mode === "x-api-key" ? ["x-api-key", key] : ["authorization", `Bearer ${key}`];
}

/**
 * The mode of a client: the `adminAuth` option, else {@link ADMIN_AUTH_ENV}, else the key's shape
 * ({@link adminAuthForKey}).
 * @throws ConfigurationError naming the option and the variable when the value is not a mode.
 */
export function resolveAdminAuth(
  option: unknown,
  env: Readonly<Record<string, string | undefined>>,
  key: string,
): AdminAuth {
  const fromEnv = env[ADMIN_AUTH_ENV]?.trim() || undefined;
  const raw = option ?? fromEnv;
  if (raw === undefined) return adminAuthForKey(key);
  const parsed = AdminAuth.safeParse(raw);
  if (parsed.success) return parsed.data;
  const where = option === undefined ? ADMIN_AUTH_ENV : "adminAuth";
  throw new ConfigurationError(
    "adminAuth",
    ADMIN_AUTH_ENV,
    `AdminClient: ${where} ${parsed.error.issues[0]?.message ?? "is invalid"}, got ${JSON.stringify(raw)}`,
  );
}

/** Appended to 401/403 messages: which credential, in which header, and where it comes from. */
export function adminAuthHint(mode: AdminAuth): string {
  return mode === "x-api-key"
    ? "check the Harness token sent in x-api-key: option apiKey or FLAGSTACK_ADMIN_API_KEY (adminAuth: x-api-key)"
    : "check the admin API key: option apiKey or FLAGSTACK_ADMIN_API_KEY";
}
