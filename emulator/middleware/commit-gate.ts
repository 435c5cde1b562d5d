/**
 * The commit gate: a response leaves the emulator only once every change it could show is on
 * disk. With a state file, a handler changes the maps and then waits for the group commit; until
 * that write succeeds, the change is in memory but not yet stored. A read handled meanwhile (a
 * GET, `/api/splitChanges`, a 409 that saw a name taken) is held here until the write is done;
 * when the write fails, the store rolls the change back and the held response is replaced by
 * 503 with the API's error body, so nothing of a refused write is ever served, not even
 * indirectly.
 *
 * A request began in some rollback epoch; when a rollback happens before its response is
 * released, the response is withheld the same way (what it computed may rest on the refused
 * change), and a change it commits after that rollback is refused too (`Store.commit`: it may
 * rest on state that no longer exists). Without a state file nothing is ever pending and the gate
 * costs one comparison.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { unavailable } from "../errors";
import { renderError, replaceResponse } from "../http";
import type { Store } from "../store";

/** Holds each response until the changes it could show are on disk (see the module comment). */
export function commitGate(store: Store): MiddlewareHandler<AppEnv> {
  return async function commitGateMiddleware(c, next) {
    if (!store.persistent) return next();
    const epoch = store.epoch;
    await store.runRequest(next);
    if (store.isSettled(epoch)) return;
    const failure = await store.settle(epoch);
    // 503: the request certainly changed nothing and may be retried once the disk has room; the
    // platform gets the ErrorDTO the injected 503 faults use (ref platform §2).
    if (failure) replaceResponse(c, renderError(c, unavailable(failure.message, failure)));
  };
}
