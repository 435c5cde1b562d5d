/**
 * Reads that share a list (`provider/core/list-reads.ts`, issue 25), against the emulator through
 * the recording proxy: concurrent reads of a scope share one fetch of its list; an object missing
 * from the list is read once by a single GET before it is reported gone; any write drops the
 * lists; the read an update makes before it writes is a single GET; outside the window every read
 * is single; a list older than the window's age is fetched again; a list that cannot be read falls
 * back to single reads. Flags (the workspace's list) and definitions (an environment's list).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminClient } from "../../../provider/core/config";
import {
  closeListReads,
  listRead,
  listReadStats,
  openListReads,
  openListReadsForOperation,
  PAGE_WAIT_MS,
} from "../../../provider/core/list-reads";
import { impl as environmentImpl } from "../../../provider/flags/environment";
import { impl as flagImpl } from "../../../provider/flags/flag";
import { impl as definitionImpl } from "../../../provider/flags/flag-definition";
import { impl as groupImpl } from "../../../provider/flags/group";
import { impl as ruleBasedSegmentImpl } from "../../../provider/flags/rule-based-segment";
import { impl as ruleBasedDefinitionImpl } from "../../../provider/flags/rule-based-segment-definition";
import { impl as segmentImpl } from "../../../provider/flags/segment";
import { impl as trafficTypeImpl } from "../../../provider/flags/traffic-type";
import { impl as attributeImpl } from "../../../provider/flags/traffic-type-attribute";
import { impl as workspaceImpl } from "../../../provider/flags/workspace";
import type { Environment, Workspace } from "../../../sdk/admin/schemas";
import { NotFoundError } from "../../../sdk/core/errors";
import { startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let envs: Environment[];

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  envs = await bed.admin.environments.list(ws.id);
});
afterAll(async () => {
  closeListReads();
  await bed?.stop();
});
afterEach(() => {
  closeListReads();
});

type Props = Record<string, unknown>;
const API = "/internal/api/v2";
/** `METHOD path?query` of each request the provider sent since the last reset. */
const sent = () =>
  bed.proxy.requests().map((r) => {
    const q = new URLSearchParams(r.query).toString();
    return `${r.method} ${r.path}${q ? `?${q}` : ""}`;
  });
const flagList = () => `GET ${API}/splits/ws/${ws.id}?offset=0&limit=50`;
const definitionList = (env: Environment) =>
  `GET ${API}/splits/ws/${ws.id}/environments/${env.id}?offset=0&limit=50`;

/** `n` flags made by the provider (no list window open), with their ids and recorded outputs. */
async function flags(n: number): Promise<{ id: string; outs: Props; name: string }[]> {
  const made = [];
  for (let i = 0; i < n; i++) {
    const name = unique("listed");
    const checked = await flagImpl.check({}, { workspace: "Default", name, tags: ["a"] });
    const r = await flagImpl.create(checked.inputs as never);
    made.push({ id: r.id, outs: JSON.parse(JSON.stringify(r.outs)) as Props, name });
  }
  return made;
}

const read = (f: { id: string; outs: Props }) => flagImpl.read(f.id, f.outs as never);

describe("flags: reads that share the workspace's list", () => {
  it("concurrent reads of one workspace share one fetch of its list, and answer as single reads do", async () => {
    const made = await flags(3);
    const single = await Promise.all(made.map(read));
    openListReads();
    bed.reset();
    const listed = await Promise.all(made.map(read));
    expect(sent()).toEqual([flagList()]);
    expect(listed).toEqual(single);
    expect(listed.map((r) => r.id)).toEqual(made.map((f) => f.id));
    expect(listReadStats()).toEqual({
      lists: { [`flags of workspace ${ws.id}`]: 1 },
      singles: 0,
      fromList: 3,
    });
    // A later read of the same scope in the window is answered by the same list.
    bed.reset();
    expect(await read(made[0]!)).toEqual(single[0]);
    expect(sent()).toEqual([]);
  });

  it("a flag missing from the list is read once by a single GET before it is reported gone", async () => {
    const [kept, deleted] = await flags(2);
    await bed.admin.flags.delete(ws.id, deleted!.name);
    openListReads();
    bed.reset();
    const [a, b] = await Promise.all([read(kept!), read(deleted!)]);
    expect(sent()).toEqual([flagList(), `GET ${API}/splits/ws/${ws.id}/${deleted!.id}`]);
    expect(b).toEqual({});
    expect(a.id).toBe(kept!.id);
  });

  it("any write drops the lists: a read after it fetches the list again", async () => {
    const [a, b] = await flags(2);
    openListReads();
    bed.reset();
    await read(a!);
    const checked = await flagImpl.check(b!.outs, { workspace: "Default", name: b!.name, tags: ["a", "b"] });
    await flagImpl.update(b!.id, b!.outs as never, checked.inputs as never);
    const after = await read(a!);
    expect(sent()).toEqual([
      flagList(),
      `GET ${API}/splits/ws/${ws.id}/${b!.id}`,
      `PATCH ${API}/splits/ws/${ws.id}/${b!.name}`,
      flagList(),
    ]);
    expect(after.id).toBe(a!.id);
  });

  it("the read an update makes before it writes is a single fresh GET, even with the list fetched", async () => {
    const [f] = await flags(1);
    openListReads();
    await read(f!);
    // A colleague's change after the list was fetched: the guard sees it and refuses.
    await bed.admin.flags.setDescription(ws.id, f!.name, "a colleague's");
    bed.reset();
    const checked = await flagImpl.check(f!.outs, {
      workspace: "Default",
      name: f!.name,
      description: "ours",
    });
    await expect(flagImpl.update(f!.id, f!.outs as never, checked.inputs as never)).rejects.toThrow(
      /description/,
    );
    expect(sent()).toEqual([`GET ${API}/splits/ws/${ws.id}/${f!.id}`]);
  });

  it("outside the window every read is a single GET", async () => {
    const [f] = await flags(1);
    bed.reset();
    await read(f!);
    await read(f!);
    expect(sent()).toEqual([
      `GET ${API}/splits/ws/${ws.id}/${f!.id}`,
      `GET ${API}/splits/ws/${ws.id}/${f!.id}`,
    ]);
  });

  it("a list serves reads for the window's age after it arrived, then is fetched again", async () => {
    const [f] = await flags(1);
    let now = 1_000_000;
    openListReads({ maxAgeMs: 1000, now: () => now });
    bed.reset();
    await read(f!);
    now += 1000;
    await read(f!);
    expect(sent()).toEqual([flagList()]);
    now += 1;
    await read(f!);
    expect(sent()).toEqual([flagList(), flagList()]);
  });

  it("FLAGSTACK_LIST_READS=off keeps the window closed in a provider process", async () => {
    const before = process.env.FLAGSTACK_LIST_READS;
    process.env.FLAGSTACK_LIST_READS = "off";
    try {
      openListReadsForOperation();
      const [f] = await flags(1);
      bed.reset();
      await Promise.all([read(f!), read(f!)]);
      expect(sent()).toEqual([
        `GET ${API}/splits/ws/${ws.id}/${f!.id}`,
        `GET ${API}/splits/ws/${ws.id}/${f!.id}`,
      ]);
    } finally {
      if (before === undefined) delete process.env.FLAGSTACK_LIST_READS;
      else process.env.FLAGSTACK_LIST_READS = before;
    }
  });

  it("the HTTP core tells its write watchers when a write starts and settles, never for a GET", async () => {
    const [f] = await flags(1);
    const seen: string[] = [];
    const stop = adminClient().core.watchWrites(() => seen.push("write"));
    try {
      await adminClient().flags.get(ws.id, f!.id);
      expect(seen).toEqual([]);
      await adminClient().flags.setDescription(ws.id, f!.name, "x");
      expect(seen).toEqual(["write", "write"]);
      await expect(adminClient().flags.setDescription(ws.id, "no-such-flag", "x")).rejects.toThrow();
      expect(seen).toEqual(["write", "write", "write", "write"]);
      // A dry run changes nothing (the environment PATCH that shows its change permissions).
      await adminClient().environments.patch(ws.id, envs[0]!.id, [], { dryRun: true });
      expect(seen).toHaveLength(4);
    } finally {
      stop();
    }
  });
});

describe("definitions: reads that share an environment's list", () => {
  const program = (flag: string, environment: string) => ({
    workspace: "Default",
    flag,
    environment,
    treatments: [{ name: "on", keys: ["qa"] }, { name: "off" }],
    defaultTreatment: "off",
  });

  it("the reads of two environments' definitions fetch one list per environment; a deleted one is confirmed", async () => {
    const [prod, staging] = envs;
    const [f, g] = await flags(2);
    const made: { id: string; outs: Props }[] = [];
    for (const flag of [f!, g!]) {
      for (const env of [prod!, staging!]) {
        const checked = await definitionImpl.check({}, program(flag.name, env.name));
        const r = await definitionImpl.create(checked.inputs as never);
        made.push({ id: r.id, outs: JSON.parse(JSON.stringify(r.outs)) as Props });
      }
    }
    const readDef = (d: { id: string; outs: Props }) => definitionImpl.read(d.id, d.outs as never);
    const single = await Promise.all(made.map(readDef));
    // Someone removes g's definition in staging.
    await bed.admin.definitions.delete(ws.id, g!.name, staging!.id, { title: "t", comment: "c" });
    openListReads();
    bed.reset();
    const listed = await Promise.all(made.map(readDef));
    expect(sent().sort()).toEqual(
      [
        definitionList(prod!),
        definitionList(staging!),
        `GET ${API}/splits/ws/${ws.id}/${g!.id}/environments/${staging!.id}`,
      ].sort(),
    );
    expect(listed.slice(0, 3)).toEqual(single.slice(0, 3));
    expect(listed[3]).toEqual({});
  });
});

describe("other kinds: segments, groups and environments share their list", () => {
  /** `n` objects made by a kind's provider from the inputs `program(i)`. */
  const make = async (
    kind: typeof segmentImpl | typeof groupImpl | typeof environmentImpl,
    n: number,
    program: (name: string) => Record<string, unknown>,
  ) => {
    const made: { id: string; outs: Props }[] = [];
    for (let i = 0; i < n; i++) {
      const checked = await kind.check({}, program(unique("shared", "_")));
      const r = await kind.create(checked.inputs as never);
      made.push({ id: r.id, outs: JSON.parse(JSON.stringify(r.outs)) as Props });
    }
    return made;
  };
  const readAll = (
    kind: typeof segmentImpl | typeof groupImpl | typeof environmentImpl,
    made: { id: string; outs: Props }[],
  ) => Promise.all(made.map((m) => kind.read(m.id, m.outs as never)));

  it("segments: one list of the workspace; a deleted one confirmed by its GET", async () => {
    const made = await make(segmentImpl, 3, (name) => ({ workspace: "Default", name, tags: ["t"] }));
    const single = await readAll(segmentImpl, made);
    const gone = made[2]!.outs.name as string;
    await bed.admin.segments.delete(ws.id, gone);
    openListReads();
    bed.reset();
    const listed = await readAll(segmentImpl, made);
    expect(sent()).toEqual([
      `GET ${API}/segments/ws/${ws.id}?offset=0&limit=50`,
      `GET ${API}/segments/ws/${ws.id}/${gone}`,
    ]);
    expect(listed.slice(0, 2)).toEqual(single.slice(0, 2));
    expect(listed[2]).toEqual({});
  });

  it("groups: one list of the account", async () => {
    const made = await make(groupImpl, 3, (name) => ({ name, description: "team" }));
    const single = await readAll(groupImpl, made);
    openListReads();
    bed.reset();
    expect(await readAll(groupImpl, made)).toEqual(single);
    expect(sent()).toEqual([`GET ${API}/groups?offset=0&limit=200`]);
  });

  it("environments: one list of the workspace; the update's guard walks it afresh", async () => {
    const made = await make(environmentImpl, 2, (name) => ({
      workspace: "Default",
      name,
      production: false,
    }));
    const single = await readAll(environmentImpl, made);
    openListReads();
    bed.reset();
    expect(await readAll(environmentImpl, made)).toEqual(single);
    expect(sent()).toEqual([`GET ${API}/environments/ws/${ws.id}`]);
    // The guard's read: the list again, not the one the reads shared.
    const [e] = made;
    bed.reset();
    const checked = await environmentImpl.check(e!.outs, {
      workspace: "Default",
      name: e!.outs.name,
      production: true,
    });
    await environmentImpl.update(e!.id, e!.outs as never, checked.inputs as never);
    expect(sent()).toEqual([
      `GET ${API}/environments/ws/${ws.id}`,
      `PATCH ${API}/environments/ws/${ws.id}/${e!.id}`,
    ]);
  });
});

describe("lists of one request and walks of a list: traffic types, attributes, workspaces, rule-based segments", () => {
  type Kind = {
    check: (olds: never, news: never) => Promise<{ inputs?: unknown }>;
    create: (inputs: never) => Promise<{ id: string; outs: unknown }>;
    read: (id: string, props: never) => Promise<unknown>;
    update: (id: string, olds: never, news: never) => Promise<unknown>;
  };
  /** `n` objects made by a kind's provider (no window open) from the inputs `program(name)`. */
  const make = async (kind: Kind, n: number, program: (name: string) => Record<string, unknown>) => {
    const made: { id: string; outs: Props }[] = [];
    for (let i = 0; i < n; i++) {
      const checked = await kind.check({} as never, program(unique("lr", "_")) as never);
      const r = await kind.create(checked.inputs as never);
      made.push({ id: r.id, outs: JSON.parse(JSON.stringify(r.outs)) as Props });
    }
    return made;
  };
  const readAll = (kind: Kind, made: { id: string; outs: Props }[]) =>
    Promise.all(made.map((m) => kind.read(m.id, m.outs as never)));

  it("traffic types: one list of the workspace for every read; the update's guard reads it afresh", async () => {
    const made = await make(trafficTypeImpl as unknown as Kind, 3, (name) => ({
      workspace: "Default",
      name,
    }));
    const single = await readAll(trafficTypeImpl as unknown as Kind, made);
    openListReads();
    bed.reset();
    expect(await readAll(trafficTypeImpl as unknown as Kind, made)).toEqual(single);
    expect(sent()).toEqual([`GET ${API}/trafficTypes/ws/${ws.id}`]);
    bed.reset();
    const [t] = made;
    await trafficTypeImpl.update(t!.id, t!.outs as never, { ...t!.outs, adopt: true } as never);
    expect(sent()).toEqual([`GET ${API}/trafficTypes/ws/${ws.id}`]);
  });

  it("traffic type attributes: one list of the traffic type; a deleted one confirmed by a single read", async () => {
    const made = await make(attributeImpl as unknown as Kind, 3, (name) => ({
      workspace: "Default",
      trafficType: "user",
      attributeId: name,
      displayName: "Plan",
      dataType: "STRING",
    }));
    const single = await readAll(attributeImpl as unknown as Kind, made);
    const tt = made[0]!.outs.trafficTypeId as string;
    await bed.admin.attributes.delete(ws.id, tt, made[2]!.outs.attributeId as string);
    openListReads();
    bed.reset();
    const listed = await readAll(attributeImpl as unknown as Kind, made);
    const list = `GET ${API}/schema/ws/${ws.id}/trafficTypes/${tt}`;
    expect(sent()).toEqual([list, list]);
    expect(listed.slice(0, 2)).toEqual(single.slice(0, 2));
    expect(listed[2]).toEqual({});
    expect(listReadStats()).toEqual({
      lists: { [`attributes of traffic type ${tt} in workspace ${ws.id}`]: 1 },
      singles: 1,
      fromList: 2,
    });
  });

  it("workspaces: one list of the account, found by id or name", async () => {
    const made = await make(workspaceImpl as unknown as Kind, 2, (name) => ({ name }));
    const single = await readAll(workspaceImpl as unknown as Kind, made);
    openListReads();
    bed.reset();
    expect(await readAll(workspaceImpl as unknown as Kind, made)).toEqual(single);
    // `pulumi import` reads by name: the same list answers it.
    const byName = await workspaceImpl.read(made[0]!.outs.name as string, {} as never);
    expect(byName).toEqual(single[0]);
    expect(sent()).toEqual([`GET ${API}/workspaces?offset=0&limit=100`]);
  });

  it("rule-based segments and their definitions: one walk of each list, not one walk per object", async () => {
    const segments = await make(ruleBasedSegmentImpl as unknown as Kind, 3, (name) => ({
      workspace: "Default",
      trafficType: "user",
      name,
      description: "listed",
    }));
    const staging = envs.find((e) => e.name === "Staging") as Environment;
    const definitions = await make(ruleBasedDefinitionImpl as unknown as Kind, 0, () => ({}));
    for (const s of segments) {
      const checked = await ruleBasedDefinitionImpl.check(
        {} as never,
        {
          workspace: "Default",
          environment: "Staging",
          segment: s.outs.name,
          excludedKeys: ["qa-bot"],
          title: "t",
          comment: "c",
        } as never,
      );
      const r = await ruleBasedDefinitionImpl.create(checked.inputs as never);
      definitions.push({ id: r.id, outs: JSON.parse(JSON.stringify(r.outs)) as Props });
    }
    const singleSegments = await readAll(ruleBasedSegmentImpl as unknown as Kind, segments);
    const singleDefinitions = await readAll(ruleBasedDefinitionImpl as unknown as Kind, definitions);
    openListReads();
    bed.reset();
    expect(await readAll(ruleBasedSegmentImpl as unknown as Kind, segments)).toEqual(singleSegments);
    expect(await readAll(ruleBasedDefinitionImpl as unknown as Kind, definitions)).toEqual(singleDefinitions);
    const pages = (path: string, n: number) =>
      Array.from({ length: n }, (_, i) => `GET ${API}${path}?offset=${i * 50}&limit=50`);
    const segmentPages = sent().filter((r) => r.startsWith(`GET ${API}/rule-based-segments/ws/${ws.id}?`));
    const definitionPages = sent().filter((r) =>
      r.startsWith(`GET ${API}/rule-based-segments/ws/${ws.id}/environments/${staging.id}?`),
    );
    // Every request was a page of one of the two lists, each page read once.
    expect(sent()).toEqual([...segmentPages, ...definitionPages]);
    expect(segmentPages).toEqual(pages(`/rule-based-segments/ws/${ws.id}`, segmentPages.length));
    expect(definitionPages).toEqual(
      pages(`/rule-based-segments/ws/${ws.id}/environments/${staging.id}`, definitionPages.length),
    );
    expect(listReadStats().singles).toBe(0);
  });
});

describe("listRead", () => {
  const item = (id: string) => ({ id, name: `n-${id}` });
  const spec = (over: Partial<Parameters<typeof listRead<{ id: string; name: string }>>[0]>) => ({
    client: {},
    scope: "things",
    key: "a",
    async *list() {
      yield item("a");
    },
    pageSize: 50,
    keys: (t: { id: string; name: string }) => [t.id, t.name],
    single: async () => item("a"),
    ...over,
  });

  it("an object the list misses but the single read finds is returned (a page that shifted)", async () => {
    openListReads();
    const singles: string[] = [];
    const found = await listRead(
      spec({
        key: "b",
        single: async () => {
          singles.push("b");
          return item("b");
        },
      }),
    );
    expect(found).toEqual(item("b"));
    expect(singles).toEqual(["b"]);
  });

  /** `n` objects in pages of 50, counted as they are read, and the single reads made. */
  function counted(n = 120) {
    const c = {
      read: 0,
      singles: [] as string[],
      list: async function* () {
        for (let i = 0; i < n; i++) {
          c.read++;
          yield item(String(i));
        }
      },
      single: (key: string) => async () => {
        c.singles.push(key);
        return item(key);
      },
    };
    return c;
  }

  it("never reads more pages than the scope has had reads, and a page more per read that waited in vain; the rest read singly", async () => {
    openListReads();
    const c = counted(300);
    const { list, single } = c;
    const client = {};
    // One read of an object on the fifth page: the page it pays for, a page more after waiting in
    // vain for the scope's next reads, then its single read.
    expect(await listRead(spec({ client, list, key: "210", single: single("210") }))).toEqual(item("210"));
    expect([c.read, c.singles]).toEqual([100, ["210"]]);
    // A second read finds its object in the pages read.
    expect(await listRead(spec({ client, list, key: "60", single: single("60") }))).toEqual(item("60"));
    expect([c.read, c.singles]).toEqual([100, ["210"]]);
    // Concurrent reads pay for the pages they wait on together; the list ends, a missing one is single.
    const keys = ["100", "119", "nope"];
    const found = await Promise.all(
      keys.map((key) => listRead(spec({ client, list, key, single: single(key) }))),
    );
    expect(found).toEqual([item("100"), item("119"), item("nope")]);
    expect([c.read, c.singles]).toEqual([300, ["210", "nope"]]);
  });

  it("a read waiting for a page the reads have not paid for goes on when the scope's next reads pay for it", async () => {
    openListReads();
    const c = counted();
    const { list, single } = c;
    const client = {};
    // The first read's object is on the third page: one page is paid for, and it waits.
    const first = listRead(spec({ client, list, key: "110", single: single("110") }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(c.read).toBe(50);
    // Two reads within PAGE_WAIT_MS (objects on the first page) pay for two pages more.
    const later = ["0", "1"].map((key) => listRead(spec({ client, list, key, single: single(key) })));
    expect(await Promise.all([first, ...later])).toEqual([item("110"), item("0"), item("1")]);
    // Read up to the object waited for, and not one read singly.
    expect([c.read, c.singles]).toEqual([111, []]);
    expect(PAGE_WAIT_MS).toBe(25);
  });

  it("objects are found by every key (id and name)", async () => {
    openListReads();
    let fetched = 0;
    const list = async function* () {
      fetched++;
      yield item("a");
    };
    const client = {};
    expect(await listRead(spec({ client, key: "n-a", list }))).toEqual(item("a"));
    expect(await listRead(spec({ client, key: "a", list }))).toEqual(item("a"));
    expect(fetched).toBe(1);
  });

  it("a list that cannot be read falls back to each read's single GET; a gone one is undefined", async () => {
    openListReads();
    let fetched = 0;
    const client = {};
    const list = (): AsyncIterable<{ id: string; name: string }> => ({
      [Symbol.asyncIterator]: () => {
        fetched++;
        return { next: () => Promise.reject(new Error("list refused")) };
      },
    });
    const gone = () =>
      Promise.reject(new NotFoundError({ status: 404, method: "GET", url: "/x", message: "gone" }));
    const [a, b] = await Promise.all([
      listRead(spec({ client, list })),
      listRead(spec({ client, list, key: "c", single: gone })),
    ]);
    expect(fetched).toBe(1);
    expect(a).toEqual(item("a"));
    expect(b).toBeUndefined();
    expect(listReadStats().singles).toBe(2);
  });
});
