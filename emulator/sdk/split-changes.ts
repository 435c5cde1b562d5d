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
 * - `sets=a,b` (the SDK's `sync.splitFilters` `bySet`, ref wire §6): only the definitions in at
 *   least one of those flag sets (by name); with a later `since`, a changed definition in none of
 *   them is served as an ARCHIVED tombstone, so an SDK that held it drops it (the SDK itself drops
 *   any split outside its sets, `splitChangesUpdater` `matchFilters`; the tombstone is inferred).
 *   `till` still counts every definition of the environment, so the next poll asks only for what
 *   changed after it (a filtered-out change is not served again and again).
 * - `sets` of each split: the names of the definition's flag sets, sorted (ref wire §1).
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
      sets: setNames(store, d),
    },
  );
}

/** The names of a definition's flag sets (a deleted set's id is left out). */
function setNames(store: Store, d: DefinitionRecord): string[] {
  return (d.doc.flagSets ?? []).flatMap((ref) => {
    const set = store.flagSets.get(ref.id);
    return set ? [set.name] : [];
  });
}

/** The `sets` query: the flag set names asked for, or `undefined` for every flag. */
function setsFilter(raw: string | undefined): Set<string> | undefined {
  const names = (raw ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  return names.length ? new Set(names) : undefined;
}

/** Route `/splitChanges`, mounted under `/api` behind the SDK-key middleware. */
export function splitChangesRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/splitChanges", (c) => {
    const env = store.environmentOf(c.get("key"));
    const since = intQuery(c, "since", -1, CHANGE_NUMBER);
    const rbSince = intQuery(c, "rbSince", -1, CHANGE_NUMBER);
    const sets = setsFilter(c.req.query("sets"));
    const splits: SdkSplit[] = [];
    let till = since;
    if (env) {
      for (const d of store.definitions.inEnvironment(env.id)) {
        if (since !== -1 && d.changeNumber <= since) continue;
        const split = splitOf(store, d);
        if (!split) continue;
        till = Math.max(till, d.changeNumber);
        if (sets && !split.sets.some((n) => sets.has(n))) {
          if (since === -1) continue;
          splits.push(
            archivedSplit(split.name, {
              seed: d.seed,
              trafficAllocationSeed: d.trafficAllocationSeed,
              changeNumber: d.changeNumber,
              trafficTypeName: split.trafficTypeName,
            }),
          );
        } else splits.push(split);
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
