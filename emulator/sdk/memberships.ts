/**
 * `GET /api/memberships/{key}`: the segments and large segments a key belongs to in the SDK key's
 * environment, the endpoint the client-side SDK polls (ref wire §6: "the client-side SDK uses
 * `GET {sdk}/memberships/{encodedKey}`"). The shape is the one `@splitsoftware/splitio-commons`
 * reads (`src/dtos/types.ts` `IMembershipsResponse`: `{ms: {cn, k: [{n}]}, ls: {cn, k: [{n}]}}`,
 * `ms` the standard segments, `ls` the large ones; `sync/polling/fetchers/mySegmentsFetcher.ts`):
 * `cn` is the change number of the environment's newest member change of that kind (-1 for none).
 * A large segment's members are those its last applied upload replaced (`../admin/change-requests.ts`):
 * an upload waiting for approval is not served.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import type { Store } from "../store";

/** The members of each large activation as a set, built once per member list (lists are replaced, never edited). */
const memberSets = new WeakMap<readonly string[], Set<string>>();
const setOf = (members: readonly string[]): Set<string> => {
  const known = memberSets.get(members);
  if (known) return known;
  const made = new Set(members);
  memberSets.set(members, made);
  return made;
};

/** Route `/memberships/:key`, mounted under `/api` behind the SDK-key middleware. */
export function membershipsRoutes(store: Store): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get("/memberships/:key", (c) => {
    const key = c.req.param("key");
    const env = store.environmentOf(c.get("key"));
    const ms = { cn: -1, k: [] as { n: string }[] };
    const ls = { cn: -1, k: [] as { n: string }[] };
    if (!env) return c.json({ ms, ls });
    for (const a of store.segments.activeIn(env.id)) {
      ms.cn = Math.max(ms.cn, a.changeNumber);
      const seg = store.segments.get(a.segmentId);
      if (seg && a.members.has(key)) ms.k.push({ n: seg.name });
    }
    const large = store.segmentKinds("large");
    for (const a of large.activeIn(env.id)) {
      ls.cn = Math.max(ls.cn, a.changeNumber);
      const seg = large.get(a.segmentId);
      if (seg && setOf(a.members).has(key)) ls.k.push({ n: seg.name });
    }
    ms.k.sort((x, y) => (x.n < y.n ? -1 : 1));
    ls.k.sort((x, y) => (x.n < y.n ? -1 : 1));
    return c.json({ ms, ls });
  });

  return app;
}
