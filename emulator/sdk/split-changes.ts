/**
 * `GET /api/splitChanges?s=1.3&since=N[&rbSince=M]`: the flag definitions of the SDK key's
 * environment in the shape the feature-flag SDK reads (ref wire §1):
 * `{ff:{d,s,t}, rbs:{d:[],s,t}}` for spec 1.3, `{splits,since,till}` for older specs.
 *
 * - `since=-1` returns every definition; a later `since` returns the definitions changed after it
 *   plus an ARCHIVED tombstone for each definition removed after it (deleted definition or
 *   deleted flag), so the SDK drops them and answers `control` (ref wire §1).
 * - `till` is the largest change number returned (or `since` when nothing changed: `s == t`).
 *   Change numbers are strictly increasing across the account (`Store.nextChangeNumber`).
 * - Each split is built by `sdk/split/convert.ts` (shared with the policy pack) from the stored
 *   definition, its stable random seeds, and `algo: 2`.
 * @module
 */
import { Hono } from "hono";
import { archivedSplit, type SdkSplit, toSdkSplit } from "../../sdk/split/convert";
import type { AppEnv } from "../context";
import { CHANGE_NUMBER, intQuery } from "../http";
import type { DefinitionRecord, Store } from "../store";

/** The flag spec version served in the 1.3 shape. */
export const FLAG_SPEC_VERSION = "1.3";

/** The SDK split of a stored definition. */
export function splitOf(store: Store, d: DefinitionRecord): SdkSplit | undefined {
  const flag = store.flags.get(d.flagId);
  if (!flag) return undefined;
  return toSdkSplit(
    { ...d.doc, name: flag.name, killed: d.killed },
    {
      seed: d.seed,
      trafficAllocationSeed: d.trafficAllocationSeed,
      changeNumber: d.changeNumber,
      trafficTypeName: store.trafficTypes.get(flag.trafficTypeId)?.name ?? "user",
    },
  );
}

/** Route `/splitChanges`, mounted under `/api` behind the SDK-key middleware. */
export function splitChangesRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/splitChanges", (c) => {
    const env = store.environmentOf(c.get("key"));
    const since = intQuery(c, "since", -1, CHANGE_NUMBER);
    const rbSince = intQuery(c, "rbSince", -1, CHANGE_NUMBER);
    const splits: SdkSplit[] = [];
    let till = since;
    if (env) {
      for (const d of store.definitions.inEnvironment(env.id)) {
        if (since !== -1 && d.changeNumber <= since) continue;
        const split = splitOf(store, d);
        if (!split) continue;
        splits.push(split);
        till = Math.max(till, d.changeNumber);
      }
      if (since !== -1) {
        for (const t of store.definitions.tombstonesIn(env.id)) {
          if (t.changeNumber <= since) continue;
          splits.push(
            archivedSplit(t.name, {
              seed: t.seed,
              trafficAllocationSeed: t.trafficAllocationSeed,
              changeNumber: t.changeNumber,
              trafficTypeName: t.trafficTypeName,
            }),
          );
          till = Math.max(till, t.changeNumber);
        }
      }
    }
    splits.sort((a, b) => a.changeNumber - b.changeNumber);
    const spec = c.req.query("s");
    if (spec && Number(spec) >= Number(FLAG_SPEC_VERSION)) {
      return c.json({ ff: { d: splits, s: since, t: till }, rbs: { d: [], s: rbSince, t: rbSince } });
    }
    return c.json({ splits, since, till });
  });

  return app;
}
