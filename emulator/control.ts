/**
 * Control routes under `/_emulator` (never under an API prefix, never rate limited or faulted, no
 * key needed: the emulator serves tests on 127.0.0.1):
 * - `GET /_emulator/requests[?api=admin]` → the request log; `DELETE` clears it.
 * - `GET|PUT /_emulator/faults` → the fault settings (see `middleware/faults.ts`).
 * - `GET|PUT /_emulator/rate-limit` → `{requestsPerSecond}` or `null`.
 * - `POST /_emulator/users/{id}/accept` → the invited user becomes ACTIVE (the real service does
 *   this when the person registers, spec §3).
 * - `GET /_emulator/events[?offset&limit&environment]` → `{count, events}`; `?countOnly=true`
 *   → `{count}`; `DELETE` clears them.
 * - `GET /_emulator/sdk` → counts of impressions and telemetry the SDKs posted.
 * - `GET /_emulator/health` → `{status:"ok"}`.
 * Errors use the admin API's error body.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { parseValue, userJson } from "./admin/common";
import { APIS, type AppEnv } from "./context";
import { badRequest, notFound } from "./errors";
import type { EventStore } from "./events/event-store";
import { intQuery, readJson, WHOLE_NUMBER } from "./http";
import { FaultConfig, type FaultController } from "./middleware/faults";
import { RateLimitConfig, type RateLimiter } from "./middleware/rate-limit";
import type { RequestLog } from "./middleware/request-log";
import type { SdkReports } from "./sdk";
import type { Store } from "./store";

/** What the control routes act on. */
export interface ControlDeps {
  store: Store;
  events: EventStore;
  requestLog: RequestLog;
  faults: FaultController;
  rateLimiter: RateLimiter;
  sdkReports: SdkReports;
}

/** Offsets and limits of the event list: a sign is not a whole number here. */
const UNSIGNED = { ...WHOLE_NUMBER, signed: false };

/** The `/_emulator` sub-app. */
export function controlRoutes(deps: ControlDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/health", (c) => c.json({ status: "ok" }));

  app.get("/requests", (c) => {
    const api = c.req.query("api");
    if (api !== undefined && !(APIS as readonly string[]).includes(api)) {
      throw badRequest(`api: must be one of ${APIS.join(", ")}, got "${api}"`);
    }
    const all = deps.requestLog.list();
    return c.json(api ? all.filter((r) => r.api === api) : all);
  });
  app.delete("/requests", (c) => {
    deps.requestLog.reset();
    return c.json(true);
  });

  app.get("/faults", (c) => c.json(deps.faults.get()));
  app.put("/faults", async (c) => {
    const body = parseValue(FaultConfig, (await readJson(c)) ?? {});
    return c.json(deps.faults.set(body));
  });

  app.get("/rate-limit", (c) => c.json(deps.rateLimiter.get()));
  app.put("/rate-limit", async (c) => {
    const body = await readJson(c);
    return c.json(
      deps.rateLimiter.set(body === undefined || body === null ? null : parseValue(RateLimitConfig, body)),
    );
  });

  app.post("/users/:id/accept", async (c) => {
    const user = deps.store.users.accept(c.req.param("id"));
    await deps.store.commit();
    return c.json(userJson(user));
  });

  app.get("/events", (c) => {
    const envRef = c.req.query("environment");
    let environmentId: string | undefined;
    if (envRef) {
      const env = deps.store.environments.anyByRef(envRef);
      if (!env) throw notFound(`Could not find environment ${envRef}`);
      environmentId = env.id;
    }
    const count = deps.events.countOf(environmentId);
    if (c.req.query("countOnly") === "true") return c.json({ count });
    const offset = intQuery(c, "offset", 0, UNSIGNED);
    const limit = intQuery(c, "limit", 10_000, UNSIGNED);
    const events = deps.events.list({ offset, limit, ...(environmentId ? { environmentId } : {}) });
    return c.json({ count, offset, events });
  });
  app.delete("/events", async (c) => {
    // Not while a flush is appending to the log: the truncation and the append would interleave.
    await deps.store.idle();
    await deps.events.clear();
    return c.json(true);
  });

  app.get("/sdk", (c) => c.json(deps.sdkReports));

  return app;
}

/** Zod schema of `GET /_emulator/events` responses, for clients of the control routes. */
export const EventsPage = z.object({
  count: z.number().int(),
  offset: z.number().int(),
  events: z.array(z.unknown()),
});
