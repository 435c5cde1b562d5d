/**
 * State persistence (issue 3 "Start"): with a state file every change is written atomically,
 * restarting on the same file returns every object unchanged, a corrupt file is refused and never
 * overwritten, and group commit writes once for many concurrent changes. Issue 14: a read waits
 * for the write of what it shows, and a rollback refuses the changes made on top of it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startEmulator } from "../../emulator";
import { diskIo } from "../../emulator/disk";
import { StateFileError, Store } from "../../emulator/store";
import { type Call, caller, definitionBody } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "flagstack-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const statePath = () => join(dir, `state-${++n}.json`);

/** Everything the APIs show, for comparing before and after a restart. */
async function snapshot(
  call: Call,
  sdkKeys: Record<string, string>,
  platform: { key: string; account: string },
) {
  const out: Record<string, unknown> = {};
  const get = async (path: string, key?: string) => {
    const r = await call("GET", path, key ? { key } : {});
    // Error bodies carry a per-request transaction id; everything else must match exactly.
    const { transactionId: _t, ...body } =
      r.body && typeof r.body === "object" && !Array.isArray(r.body) ? r.body : { body: r.body };
    out[path + (key ? ` as ${key.slice(0, 8)}` : "")] = { status: r.status, body };
    return r.body;
  };
  const wss = (await get("/internal/api/v2/workspaces?limit=100")).objects as { id: string }[];
  for (const ws of wss) {
    const envs = (await get(`/internal/api/v2/environments/ws/${ws.id}`)) as { id: string }[];
    await get(`/internal/api/v2/trafficTypes/ws/${ws.id}`);
    await get(`/internal/api/v2/rolloutStatuses?wsId=${ws.id}`);
    await get(`/internal/api/v2/segments/ws/${ws.id}`);
    const flags = (await get(`/internal/api/v2/splits/ws/${ws.id}?limit=50`)).objects as {
      id: string;
      name: string;
    }[];
    for (const f of flags) {
      await get(`/internal/api/v2/splits/ws/${ws.id}/${f.name}`);
      for (const e of envs) await get(`/internal/api/v2/splits/ws/${ws.id}/${f.name}/environments/${e.id}`);
    }
    for (const e of envs) await get(`/internal/api/v2/segments/ws/${ws.id}/environments/${e.id}`);
  }
  await get("/internal/api/v2/users?limit=200");
  await get("/internal/api/v2/groups?limit=200");
  await get("/internal/api/v2/segments/Production/beta/keys");
  for (const key of Object.values(sdkKeys)) {
    await get("/api/splitChanges?s=1.3&since=-1", key);
    await get("/api/segmentChanges/beta?since=-1", key);
  }
  await get("/_emulator/events");
  const p = await call(
    "GET",
    `/ng/api/projects/demo?accountIdentifier=${platform.account}&orgIdentifier=default`,
    {
      key: null,
      headers: { "x-api-key": platform.key },
    },
  );
  out.platformProject = { status: p.status, data: p.body?.data };
  return out;
}

describe("persistence", () => {
  it("restarting on the same state file returns every object unchanged", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path });
    const call = caller(emu);
    const ws = (await call("GET", "/internal/api/v2/workspaces")).body.objects[0];
    const statuses = (await call("GET", `/internal/api/v2/rolloutStatuses?wsId=${ws.id}`)).body;
    // Flags, definitions (one killed, one deleted), tags, rollout status, segments with keys.
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "a", description: "A" },
    });
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/account`, { body: { name: "b" } });
    await call("PATCH", `/internal/api/v2/splits/ws/${ws.id}/a`, {
      body: [
        { op: "add", path: "/tags/0", value: { name: "t1" } },
        { op: "replace", path: "/rolloutStatus/id", value: statuses[1].id },
      ],
    });
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/a/environments/Production`, {
      body: definitionBody({
        treatments: [{ name: "on", keys: ["k"], configurations: "{}" }, { name: "off" }],
        trafficAllocation: 70,
      }),
    });
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/a/environments/Staging`, {
      body: definitionBody(),
    });
    await call("PUT", `/internal/api/v2/splits/ws/${ws.id}/a/environments/Staging/kill`);
    await call("POST", `/internal/api/v2/splits/ws/${ws.id}/b/environments/Production`, {
      body: definitionBody(),
    });
    await call("DELETE", `/internal/api/v2/splits/ws/${ws.id}/b/environments/Production`);
    await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "beta" } });
    await call("POST", "/internal/api/v2/segments/Production/beta");
    await call("PUT", "/internal/api/v2/segments/Production/beta/uploadKeys?replace=true", {
      body: { keys: ["x", "y", "z"] },
    });
    await call("PUT", "/internal/api/v2/segments/Production/beta/removeKeys", { body: { keys: ["y"] } });
    // A second workspace with its own environment, users and groups in every state.
    const other = (
      await call("POST", "/internal/api/v2/workspaces", {
        body: { name: "Other", requiresTitleAndComments: true },
      })
    ).body;
    const qa = (
      await call("POST", `/internal/api/v2/environments/ws/${other.id}`, {
        body: { name: "QA", production: false },
      })
    ).body;
    const g = (await call("POST", "/internal/api/v2/groups", { body: { name: "G", description: "group" } }))
      .body;
    const pending = (
      await call("POST", "/internal/api/v2/users", {
        body: { email: "p@example.com", groups: [{ id: g.id, type: "group" }] },
      })
    ).body;
    const active = (
      await call("POST", "/internal/api/v2/users", { body: { email: "a@example.com", groups: [] } })
    ).body;
    await emu.acceptInvitation(active.id);
    const gone = (
      await call("POST", "/internal/api/v2/users", { body: { email: "d@example.com", groups: [] } })
    ).body;
    await emu.acceptInvitation(gone.id);
    await call("PUT", `/internal/api/v2/users/${gone.id}`, {
      body: { email: "d@example.com", name: "D", status: "DEACTIVATED", "2fa": false, type: "user" },
    });
    // Events and a platform project.
    await call("POST", "/api/events/bulk", {
      key: emu.sdkKey,
      body: [
        {
          eventTypeId: "e",
          trafficTypeName: "user",
          key: "k",
          timestamp: 1,
          value: 2,
          properties: { a: [1] },
        },
      ],
    });
    await call("POST", `/ng/api/projects?accountIdentifier=${emu.accountId}&orgIdentifier=default`, {
      key: null,
      headers: { "x-api-key": emu.platformKey },
      body: {
        project: {
          orgIdentifier: "default",
          identifier: "demo",
          name: "Demo",
          color: "#123456",
          modules: [],
          description: "",
          tags: {},
        },
      },
    });
    await emu.addKey({ key: "restricted-admin-key", type: "admin", workspaces: [other.id] });

    const sdkKeys = { ...emu.sdkKeys, QA: qa.apiTokens[0].key };
    const keys = {
      adminKey: emu.adminKey,
      sdkKey: emu.sdkKey,
      platformKey: emu.platformKey,
      accountId: emu.accountId,
    };
    const before = await snapshot(call, sdkKeys, { key: emu.platformKey, account: emu.accountId });
    expect(pending.status).toBe("PENDING");
    await emu.stop();

    const again = await startEmulator({ port: 0, statePath: path });
    expect({
      adminKey: again.adminKey,
      sdkKey: again.sdkKey,
      platformKey: again.platformKey,
      accountId: again.accountId,
    }).toEqual(keys);
    const after = await snapshot(caller(again), sdkKeys, {
      key: again.platformKey,
      account: again.accountId,
    });
    expect(after).toEqual(before);
    expect((after.platformProject as { status: number }).status).toBe(200);
    // The restricted key survived too.
    expect(
      (await caller(again)("GET", "/internal/api/v2/workspaces", { key: "restricted-admin-key" })).body
        .totalCount,
    ).toBe(1);
    await again.stop();
    // No temporary files are left beside the state.
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it("replaces a stored primary key when another is given on restart", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path, adminKey: "first-admin-key" });
    await emu.stop();
    const again = await startEmulator({ port: 0, statePath: path, adminKey: "second-admin-key" });
    const call = caller(again);
    expect((await call("GET", "/internal/api/v2/workspaces")).status).toBe(200);
    expect((await call("GET", "/internal/api/v2/workspaces", { key: "first-admin-key" })).status).toBe(401);
    await again.stop();
  });

  it.each([
    ["not JSON", "{ this is not json", "it is not valid JSON"],
    ["an empty file", "", "it is not valid JSON"],
    [
      "JSON of another shape",
      JSON.stringify({ hello: "world" }),
      "it is not a flagstack emulator state (format: ",
    ],
  ])(
    "refuses a state file that is %s, leaving it byte-for-byte unchanged",
    async (_what, content, reason) => {
      const path = statePath();
      writeFileSync(path, content);
      await expect(startEmulator({ port: 0, statePath: path })).rejects.toMatchObject({
        name: "StateFileError",
        message: expect.stringContaining(`emulator state file ${path} is not usable: ${reason}`),
      });
      expect(readFileSync(path, "utf8")).toBe(content);
      expect(existsSync(`${path}.lock`)).toBe(false);
    },
  );

  it("refuses a state file of another account", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path, accountId: "acct_one" });
    await emu.stop();
    await expect(startEmulator({ port: 0, statePath: path, accountId: "acct_two" })).rejects.toThrow(
      `emulator state file ${path} belongs to account acct_one, not acct_two; it was left unchanged`,
    );
  });

  it("refuses a second emulator on a file that is in use", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path });
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toBeInstanceOf(StateFileError);
    await emu.stop();
    const again = await startEmulator({ port: 0, statePath: path });
    await again.stop();
  });

  it("writes the state file once for many concurrent commits (group commit)", async () => {
    const path = statePath();
    const store = await Store.open({ accountId: "acct", statePath: path });
    const written = store.writeCount;
    await Promise.all(Array.from({ length: 50 }, () => store.commit()));
    expect(store.writeCount - written).toBe(1);
    // A commit made while a write runs waits for the next write, which includes it.
    const first = store.commit();
    const ws = store.workspaces.list()[0];
    if (ws) store.workspaces.update(ws, { name: "Renamed", requiresTitleAndComments: false });
    const second = store.commit();
    await Promise.all([first, second]);
    expect(JSON.parse(readFileSync(path, "utf8")).workspaces[0].name).toBe("Renamed");
    await store.close();
  });

  it("acknowledges a change only after it is on disk", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path });
    const call = caller(emu);
    const g = await call("POST", "/internal/api/v2/groups", { body: { name: "durable", description: "" } });
    expect(g.status).toBe(200);
    const onDisk = JSON.parse(readFileSync(path, "utf8"));
    expect(onDisk.groups).toEqual([{ id: g.body.id, name: "durable", description: "" }]);
    await emu.stop();
  });
});

describe("the event log", () => {
  it("keeps events across a restart, drops a torn last line and refuses a corrupt middle line", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path });
    const call = caller(emu);
    const ev = (key: string) => ({ eventTypeId: "e", trafficTypeName: "user", key, timestamp: 5 });
    await call("POST", "/api/events/bulk", { key: emu.sdkKey, body: [ev("a"), ev("b")] });
    await emu.stop();
    const log = `${path}.events.ndjson`;
    const good = readFileSync(log, "utf8");
    writeFileSync(log, `${good}{"e":"e","t":"user","k":"tor`);
    const again = await startEmulator({ port: 0, statePath: path });
    expect(again.events().map((e) => e.key)).toEqual(["a", "b"]);
    await again.stop();
    expect(readFileSync(log, "utf8")).toBe(good);
    const corrupt = `${good.split("\n")[0]}\nnot json\n${good.split("\n")[1]}\n`;
    writeFileSync(log, corrupt);
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(
      `event log ${log} is corrupt at line 2`,
    );
    expect(readFileSync(log, "utf8")).toBe(corrupt);
  });
});

describe("commit and rollback", () => {
  it("holds a read made while a write is pending until the write is done, then shows the change", async () => {
    const path = statePath();
    const emu = await startEmulator({ port: 0, statePath: path });
    const call = caller(emu);
    const original = diskIo.write;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let written = false;
    const spy = vi.spyOn(diskIo, "write").mockImplementation(async (file, data) => {
      await held;
      await original(file, data);
      written = true;
    });
    try {
      const create = call("POST", "/internal/api/v2/groups", { body: { name: "slow", description: "" } });
      await vi.waitFor(() => expect(spy).toHaveBeenCalled(), { interval: 5 });
      const list = call("GET", "/internal/api/v2/groups").then((r) => ({ ...r, afterWrite: written }));
      await new Promise((r) => setTimeout(r, 100));
      release();
      const g = await create;
      expect(g.status).toBe(200);
      const r = await list;
      expect(r.afterWrite).toBe(true);
      expect(r.body.objects).toEqual([{ id: g.body.id, name: "slow", description: "", type: "group" }]);
    } finally {
      spy.mockRestore();
      await emu.stop();
    }
  });

  it("refuses the change of a request that began before a rollback, with its whole group, and never writes it", async () => {
    const path = statePath();
    const store = await Store.open({ accountId: "acct", statePath: path });
    const before = readFileSync(path, "utf8");
    let resume!: () => void;
    const paused = new Promise<void>((r) => {
      resume = r;
    });
    // A request that read the state, then waits (as if on the network) across the rollback.
    const stale = store.runRequest(async () => {
      await paused;
      store.groups.create({ name: "stale", description: "" });
      return store.commit();
    });
    const spy = vi
      .spyOn(diskIo, "write")
      .mockRejectedValueOnce(
        Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }),
      );
    store.groups.create({ name: "refused", description: "" });
    await expect(store.commit()).rejects.toMatchObject({
      name: "StateWriteError",
      code: "ENOSPC",
      message:
        "the emulator could not save its state file (ENOSPC: no space left on device, write); nothing of this request was stored",
    });
    spy.mockRestore();
    expect(store.epoch).toBe(1);
    expect(store.groups.list()).toEqual([]);
    // A change of this epoch in the same group as the stale one is refused with it.
    const fresh = store.runRequest(() => {
      store.groups.create({ name: "fresh", description: "" });
      return store.commit();
    });
    resume();
    const refusal =
      "the emulator could not save its state file earlier (ENOSPC: no space left on device, write) and rolled back; this request began before that and may rest on the rolled-back state, so nothing of it was stored";
    await expect(stale).rejects.toThrow(refusal);
    await expect(fresh).rejects.toThrow(refusal);
    expect(store.groups.list()).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(before);
    // The next change of this epoch is written as usual.
    const next = store.groups.create({ name: "next", description: "" });
    await store.commit();
    expect(JSON.parse(readFileSync(path, "utf8")).groups).toEqual([
      { id: next.id, name: "next", description: "" },
    ]);
    await store.close();
  });
});
