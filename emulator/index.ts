/**
 * A faithful local emulator of the feature-flag admin API, its event import and SDK endpoints,
 * and the platform API, on one port.
 *
 * @example
 * const emu = await startEmulator({ port: 0 });
 * const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
 * // ... the real SDK: urls.sdk/events/auth/telemetry = `${emu.url}/api`, urls.streaming = emu.url
 * await emu.stop();
 * @module
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { userJson } from "./admin/common";
import { EventStore, type StoredEvent } from "./events/event-store";
import { FaultConfig, type FaultConfigInput, FaultController, type FaultSettings } from "./middleware/faults";
import { RateLimitConfig, RateLimiter } from "./middleware/rate-limit";
import { RequestLog, type RequestRecord } from "./middleware/request-log";
import type { SdkReports } from "./sdk";
import { createApp, listen } from "./server";
import { type ApiKeyInput, ApiKeySpec, newKeyString, StateFileError, Store } from "./store";

export type { Api } from "./context";
export { StateWriteError } from "./errors";
export type { StoredEvent } from "./events/event-store";
export type { FaultConfigInput, FaultSettings } from "./middleware/faults";
export type { RateLimitConfig } from "./middleware/rate-limit";
export { busiestSecond, type RequestRecord } from "./middleware/request-log";
export { type ApiKey, type ApiKeyInput, StateFileError } from "./store";

/** Options of {@link startEmulator}; all optional. */
export const EmulatorOptions = z
  .object({
    /** TCP port; 0 (default) picks a free one. */
    port: z.number().int().min(0).max(65535).default(0),
    /** Address to bind; loopback by default so nothing outside the machine reaches it. */
    host: z.string().min(1).default("127.0.0.1"),
    /**
     * JSON state file; without it everything stays in memory. A symlink is followed: the lock,
     * the writes and the event log (`<real file>.events.ndjson`) belong to the file it names.
     */
    statePath: z.string().min(1).optional(),
    /** Admin API key (all workspaces); generated (or kept from the state file) when absent. */
    adminKey: ApiKeySpec.shape.key.optional(),
    /** Server-side SDK key of the Production environment. */
    sdkKey: ApiKeySpec.shape.key.optional(),
    /** Platform API key (`x-api-key`). */
    platformKey: ApiKeySpec.shape.key.optional(),
    /** Platform `accountIdentifier`. */
    accountId: z
      .string()
      .regex(/^[-_a-zA-Z0-9]{1,64}$/, "accountId must be 1-64 letters, digits, '-' or '_'")
      .optional(),
    /** Server-side rate limit (admin, events, platform), or `null` for none. */
    rateLimit: RateLimitConfig.nullable().optional(),
    /** Injected faults. */
    faults: FaultConfig.optional(),
    /** More keys (for example restricted admin keys). */
    keys: z.array(ApiKeySpec).optional(),
    /** Most request records kept (default 200,000). */
    requestLogLimit: z.number().int().min(1).optional(),
  })
  .strict();
/** Options of {@link startEmulator}. */
export type EmulatorOptions = z.input<typeof EmulatorOptions>;

/** A running emulator. */
export interface Emulator {
  /** `http://127.0.0.1:PORT`: base of every API (`/internal/api/v2`, `/api`, `/ng/api`, ...). */
  readonly url: string;
  readonly port: number;
  /** Admin key with access to every workspace. */
  readonly adminKey: string;
  /** Server-side SDK key of the Production environment of `Default`. */
  readonly sdkKey: string;
  /** Server-side SDK keys of the environments of the `Default` workspace, by environment name. */
  readonly sdkKeys: Readonly<Record<string, string>>;
  /** `x-api-key` of the platform API. */
  readonly platformKey: string;
  /** The platform `accountIdentifier`. */
  readonly accountId: string;
  /** The state file, when persisted. */
  readonly statePath: string | undefined;
  /** A copy of the request log, oldest first. */
  requests(): RequestRecord[];
  resetRequests(): void;
  /** Replaces the fault settings; returns them with the seed in use. */
  setFaults(faults: FaultConfigInput): FaultSettings;
  /** Sets (or with `null` removes) the server-side rate limit. */
  setRateLimit(limit: { requestsPerSecond: number } | null): void;
  /** PENDING → ACTIVE, as when the invited person registers; returns the user as the API shows it. */
  acceptInvitation(userId: string): Promise<ReturnType<typeof userJson>>;
  /** Every stored event (bulk import and SDK `track()`), oldest first. */
  events(filter?: { environment?: string }): StoredEvent[];
  /** How many events are stored (cheap, unlike `events().length`). */
  eventCount(): number;
  /** Adds (or replaces, by key string) an API key; throws at once on a bad key, resolves once persisted. */
  addKey(key: ApiKeyInput): Promise<void>;
  /** Stops the server, waits for pending writes and releases the state file. */
  stop(): Promise<void>;
}

/** A 22-character alphanumeric account id, shaped like the platform's (ref platform §1). */
const newAccountId = (): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return [...randomBytes(22)].map((b) => alphabet[b % alphabet.length]).join("");
};

/** Validates an argument of an {@link Emulator} method; throws an Error naming the field. */
function checked<S extends z.ZodType>(method: string, schema: S, value: unknown): z.input<S> {
  const r = schema.safeParse(value);
  if (r.success) return value as z.input<S>;
  const i = r.error.issues[0];
  throw new Error(`${method}: ${i ? `${i.path.join(".") || "argument"}: ${i.message}` : "invalid argument"}`);
}

/** Starts the emulator; see {@link EmulatorOptions}. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const parsedOpts = EmulatorOptions.safeParse(options);
  if (!parsedOpts.success) {
    const i = parsedOpts.error.issues[0];
    throw new Error(
      `startEmulator: ${i ? `${i.path.join(".") || "options"}: ${i.message}` : "invalid options"}`,
    );
  }
  const opts = parsedOpts.data;
  const store = await Store.open({ accountId: opts.accountId ?? newAccountId(), statePath: opts.statePath });
  try {
    if (opts.accountId && opts.accountId !== store.accountId) {
      throw new StateFileError(
        `emulator state file ${opts.statePath} belongs to account ${store.accountId}, not ${opts.accountId}; it was left unchanged`,
      );
    }
    // Beside the real state file, so the log follows it through a symlink as the lock does.
    const events = new EventStore(store.filePath ? `${store.filePath}.events.ndjson` : undefined);
    await events.load();
    store.log = events;

    const defaultWs = store.workspaces.find((w) => w.name === "Default");
    const envByName = (name: string) =>
      defaultWs ? store.environments.inWorkspace(defaultWs.id).find((e) => e.name === name) : undefined;
    const adminKey = store.keys.ensurePrimary(
      (k) => k.type === "admin",
      opts.adminKey,
      () => ({ name: "Admin (all workspaces)", key: newKeyString.admin(), type: "admin" }),
    );
    const platformKey = store.keys.ensurePrimary(
      (k) => k.type === "platform",
      opts.platformKey,
      () => ({ name: "Platform", key: newKeyString.platform(store.accountId), type: "platform" }),
    );
    for (const name of ["Production", "Staging"]) {
      const env = envByName(name);
      if (!env) continue;
      store.keys.ensurePrimary(
        (k) => k.type === "sdk" && k.environments?.[0] === env.id,
        name === "Production" ? opts.sdkKey : undefined,
        () => ({
          name: `${name} server-side`,
          key: newKeyString.sdk(),
          type: "sdk",
          apiKeyType: "server_side",
          environments: [env.id],
          workspaces: [env.workspaceId],
        }),
      );
    }
    for (const k of opts.keys ?? []) store.keys.add(k);
    await store.commit();

    const requestLog = new RequestLog(opts.requestLogLimit);
    const faults = new FaultController(opts.faults ?? {});
    const rateLimiter = new RateLimiter(opts.rateLimit ?? null);
    const sdkReports: SdkReports = { impressionBatches: 0, impressionCountBatches: 0, telemetry: 0 };
    const app = createApp({ store, events, requestLog, faults, rateLimiter, sdkReports });
    const server = await listen(app, opts.port, opts.host);
    const hostForUrl = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
    const url = `http://${hostForUrl}:${server.port}`;

    const sdkKeys = (): Record<string, string> => {
      const out: Record<string, string> = {};
      if (!defaultWs) return out;
      for (const env of store.environments.inWorkspace(defaultWs.id)) {
        const k = store.keys.serverSideOf(env.id);
        if (k) out[env.name] = k.key;
      }
      return out;
    };
    let stopped: Promise<void> | undefined;

    return {
      url,
      port: server.port,
      adminKey,
      get sdkKey() {
        return sdkKeys().Production ?? "";
      },
      get sdkKeys() {
        return sdkKeys();
      },
      platformKey,
      accountId: store.accountId,
      statePath: opts.statePath,
      requests: () => requestLog.list(),
      resetRequests: () => requestLog.reset(),
      setFaults: (f) => faults.set(checked("setFaults", FaultConfig, f)),
      setRateLimit: (limit) => {
        rateLimiter.set(limit === null ? null : checked("setRateLimit", RateLimitConfig, limit));
      },
      acceptInvitation: async (userId) => {
        const u = store.users.accept(userId);
        await store.commit();
        return userJson(u);
      },
      events: (filter) => {
        const ref = filter?.environment;
        if (!ref) return events.list();
        const env = store.environments.get(ref) ?? envByName(ref);
        return env ? events.list({ environmentId: env.id }) : [];
      },
      eventCount: () => events.count,
      addKey: (key) => {
        store.keys.add(checked("addKey", ApiKeySpec, key));
        return store.commit();
      },
      stop: () => {
        stopped ??= (async () => {
          await server.close();
          await store.close();
        })();
        return stopped;
      },
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}
