/**
 * Event import: spec §4 "Event import", §5 item 2, §6; ref admin §6.
 *
 * `POST /api/events/bulk` with an SDK key (server- or client-side; an admin key is 401): the body
 * is a JSON array of event records, each validated with `EventRecord` of `sdk/events/schemas.ts`.
 * A batch with any invalid record is refused whole with 400 naming the record index and field
 * (`events[3].timestamp: ...`), so a client never has to guess which records were kept. An
 * accepted batch is stored with the key's environment (and on disk, with a state file) and
 * answered `202` with an empty body. The import is not idempotent: the same records sent twice
 * are stored twice (spec §4). `POST /api/events` takes one record (ref admin §1.1).
 * @module
 */
import { type Context, Hono } from "hono";
import { EventBatch, EventRecord } from "../../sdk/events/schemas";
import type { AppEnv } from "../context";
import { badRequest, unauthorized, zodBadRequest } from "../errors";
import { emptyResponse, readJson } from "../http";
import { keyAuth } from "../middleware/auth";
import type { Store } from "../store";
import type { EventStore } from "./event-store";

/** Most records accepted in one request (the spec does not show one; the importer sends ≤ 5,000). */
export const MAX_EVENTS_PER_REQUEST = 10_000;
/**
 * Largest body accepted, in bytes; `middleware/body-limit.ts` holds it as the body streams in,
 * chunked or not, before this route reads anything.
 */
export const MAX_EVENTS_BODY_BYTES = 32 * 1024 * 1024;

const REQUIRED = "body: a JSON array of event records is required";

/** Routes `/events/bulk` and `/events`, mounted under `/api`. */
export function eventRoutes(store: Store, events: EventStore): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.use("/events/*", keyAuth(store, "sdk"));
  app.use("/events", keyAuth(store, "sdk"));

  const accept = async (records: EventRecord[], env: { id: string; name: string }) => {
    events.append(records, env);
    await store.commit();
    return emptyResponse(202);
  };
  const envOf = (c: Context<AppEnv>) => {
    const env = store.environmentOf(c.get("key"));
    if (!env) throw unauthorized("Invalid API key: its environment no longer exists");
    return { id: env.id, name: env.name };
  };
  app.post("/events/bulk", async (c) => {
    const env = envOf(c);
    const body = await readJson(c, { required: REQUIRED });
    if (!Array.isArray(body)) throw badRequest(REQUIRED);
    if (body.length > MAX_EVENTS_PER_REQUEST) {
      throw badRequest(`body: at most ${MAX_EVENTS_PER_REQUEST} events per request, got ${body.length}`);
    }
    const parsed = EventBatch.safeParse(body);
    if (!parsed.success) throw zodBadRequest(parsed.error, "events", body);
    return accept(parsed.data, env);
  });

  app.post("/events", async (c) => {
    const env = envOf(c);
    const body = await readJson(c, { required: REQUIRED });
    const parsed = EventRecord.safeParse(body);
    if (!parsed.success) throw zodBadRequest(parsed.error, "event", body);
    return accept([parsed.data], env);
  });

  return app;
}
