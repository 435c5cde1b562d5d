/**
 * The emulator acknowledges only what it stored (issue 14, group 5): with a state file, a write
 * that the disk refuses (ENOSPC) is an error to the client, and nothing of it is ever served: not
 * to reads made while it was pending (they are held, then answered 503), not afterwards, not
 * after a restart. No temporary file is left beside the state file.
 *
 * The full disk is injected through the store's disk seam (`diskIo.write` in `emulator/disk.ts`),
 * the one call through which the state file and the event log are written: the failing call
 * writes half of its data, as a disk that fills up does, then throws ENOSPC; every other call
 * goes to the real file system. `hold` keeps the failing write pending so that reads can be
 * made while the refused change is in memory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { diskIo } from "../../emulator/disk";
import { adminError, type Call, caller, definitionBody } from "../emulator/helpers";

const dir = mkdtempSync(join(tmpdir(), "flagstack-disk-full-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const ENOSPC_MESSAGE =
  "the emulator could not save its state file (ENOSPC: no space left on device, write); nothing of this request was stored";
const TX = expect.stringMatching(/^[0-9a-z]{11}$/);

let spy: MockInstance<typeof diskIo.write> | undefined;
afterEach(() => {
  spy?.mockRestore();
  spy = undefined;
});

/**
 * Makes the `failCall`-th write through the disk seam fail as a full disk does (half the data,
 * then ENOSPC), once `hold` resolves. Returns the spy.
 */
function fullDisk(failCall: number, hold: Promise<void>): MockInstance<typeof diskIo.write> {
  const original = diskIo.write;
  let calls = 0;
  spy = vi.spyOn(diskIo, "write").mockImplementation(async (file, data) => {
    calls++;
    if (calls !== failCall) return original(file, data);
    await hold;
    await file.write(data.slice(0, Math.floor(data.length / 2)));
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      errno: -28,
      syscall: "write",
    });
  });
  return spy;
}

/** A promise and the function that resolves it. */
function latch(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((r) => {
    release = r;
  });
  return { promise, release };
}

/** Waits until the seam has been called `count` times (the failing write is under way). */
async function writing(s: MockInstance<typeof diskIo.write>, count: number): Promise<void> {
  await vi.waitFor(() => expect(s.mock.calls.length).toBeGreaterThanOrEqual(count), {
    timeout: 5_000,
    interval: 5,
  });
}

/** Time for requests sent while a write is held to reach their handlers (they answer in ~1 ms). */
const settleReads = () => new Promise((r) => setTimeout(r, 300));

/** Files beside the state file that a write left behind. */
const tmpFiles = () => readdirSync(dir).filter((f) => f.includes(".tmp"));

async function persisted(): Promise<{ emu: Emulator; call: Call; path: string; wsId: string }> {
  const path = join(dir, `state-${++n}.json`);
  const emu = await startEmulator({ port: 0, statePath: path });
  const call = caller(emu);
  const wsId = (await call("GET", "/internal/api/v2/workspaces")).body.objects[0].id as string;
  return { emu, call, path, wsId };
}

describe("a full disk (ENOSPC) refuses the write, and nothing of it is served", () => {
  it("ENOSPC on a group create: 503 to the client, the group is never served (not even as a 409), not there after a restart, no temporary file", async () => {
    const { emu, call, path } = await persisted();
    const before = readFileSync(path, "utf8");
    const hold = latch();
    const s = fullDisk(1, hold.promise);

    const create = call("POST", "/internal/api/v2/groups", { body: { name: "doomed", description: "" } });
    await writing(s, 1);
    // The group is in memory now, its write pending: these must not show it.
    const list = call("GET", "/internal/api/v2/groups");
    const duplicate = call("POST", "/internal/api/v2/groups", { body: { name: "doomed", description: "" } });
    await settleReads();
    hold.release();

    const refused = { status: 503, body: adminError(503, ENOSPC_MESSAGE) };
    expect(await create).toMatchObject(refused);
    expect(await list).toMatchObject(refused);
    expect(await duplicate).toMatchObject(refused);
    expect((await call("GET", "/internal/api/v2/groups")).body).toEqual({
      objects: [],
      offset: 0,
      limit: 50,
      totalCount: 0,
    });
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(tmpFiles()).toEqual([]);

    // The disk has room again: the next write is stored as usual.
    const kept = await call("POST", "/internal/api/v2/groups", { body: { name: "kept", description: "" } });
    expect(kept.status).toBe(200);
    await emu.stop();

    const again = await startEmulator({ port: 0, statePath: path });
    expect((await caller(again)("GET", "/internal/api/v2/groups")).body.objects).toEqual([
      { id: kept.body.id, name: "kept", description: "", type: "group" },
    ]);
    await again.stop();
    expect(tmpFiles()).toEqual([]);
  });

  it("ENOSPC on a definition patch: 503, the old definition is what GET and /api/splitChanges serve, before and after a restart", async () => {
    const { emu, call, path, wsId } = await persisted();
    const base = `/internal/api/v2/splits/ws/${wsId}`;
    await call("POST", `${base}/trafficTypes/user`, { body: { name: "f", description: "" } });
    await call("POST", `${base}/f/environments/Production`, { body: definitionBody() });
    const defBefore = (await call("GET", `${base}/f/environments/Production`)).body;
    const changes = () => call("GET", "/api/splitChanges?s=1.3&since=-1", { key: emu.sdkKey });
    const changesBefore = (await changes()).body;
    expect(defBefore.defaultTreatment).toBe("off");
    const before = readFileSync(path, "utf8");
    const hold = latch();
    const s = fullDisk(1, hold.promise);

    const patch = call("PATCH", `${base}/f/environments/Production`, {
      body: [{ op: "replace", path: "/defaultTreatment", value: "on" }],
    });
    await writing(s, 1);
    const read = call("GET", `${base}/f/environments/Production`);
    const sdk = changes();
    await settleReads();
    hold.release();

    const refused = { status: 503, body: adminError(503, ENOSPC_MESSAGE) };
    expect(await patch).toMatchObject(refused);
    expect(await read).toMatchObject(refused);
    expect(await sdk).toMatchObject(refused);
    expect((await call("GET", `${base}/f/environments/Production`)).body).toEqual(defBefore);
    expect((await changes()).body).toEqual(changesBefore);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(tmpFiles()).toEqual([]);
    await emu.stop();

    const again = await startEmulator({ port: 0, statePath: path });
    const call2 = caller(again);
    expect((await call2("GET", `${base}/f/environments/Production`)).body).toEqual(defBefore);
    expect((await call2("GET", "/api/splitChanges?s=1.3&since=-1", { key: again.sdkKey })).body).toEqual(
      changesBefore,
    );
    await again.stop();
  });

  it.each([
    ["the event log append", 1],
    ["the state file write after the append", 2],
  ])(
    "ENOSPC on an event batch (%s): 503, the events are never counted or listed, the log is cut back, none after a restart",
    async (_what, failCall) => {
      const { emu, call, path, wsId } = await persisted();
      const envs = (await call("GET", `/internal/api/v2/environments/ws/${wsId}`)).body as {
        id: string;
        name: string;
      }[];
      const production = envs.find((e) => e.name === "Production")?.id;
      const log = `${path}.events.ndjson`;
      const ev = (key: string) => ({ eventTypeId: "e", trafficTypeName: "user", key, timestamp: 5 });
      expect((await call("POST", "/api/events/bulk", { key: emu.sdkKey, body: [ev("kept")] })).status).toBe(
        202,
      );
      const logBefore = readFileSync(log, "utf8");
      const hold = latch();
      const s = fullDisk(failCall, hold.promise);

      const batch = call("POST", "/api/events/bulk", { key: emu.sdkKey, body: [ev("a"), ev("b")] });
      await writing(s, failCall);
      // Appended in memory, not yet on disk: not counted, not listed.
      expect(emu.eventCount()).toBe(1);
      expect(emu.events().map((e) => e.key)).toEqual(["kept"]);
      const count = call("GET", "/_emulator/events?countOnly=true");
      await settleReads();
      hold.release();

      expect(await batch).toMatchObject({ status: 503, body: adminError(503, ENOSPC_MESSAGE) });
      expect(await count).toMatchObject({ status: 503, body: adminError(503, ENOSPC_MESSAGE) });
      expect(emu.eventCount()).toBe(1);
      expect((await call("GET", "/_emulator/events")).body).toEqual({
        count: 1,
        offset: 0,
        events: [
          {
            eventTypeId: "e",
            trafficTypeName: "user",
            key: "kept",
            timestamp: 5,
            environmentId: production,
            environmentName: "Production",
          },
        ],
      });
      expect(readFileSync(log, "utf8")).toBe(logBefore);
      expect(statSync(log).size).toBe(Buffer.byteLength(logBefore));
      expect(tmpFiles()).toEqual([]);
      await emu.stop();

      const again = await startEmulator({ port: 0, statePath: path });
      expect(again.events().map((e) => e.key)).toEqual(["kept"]);
      await again.stop();
    },
  );

  it("ENOSPC on a platform project create: 503 ErrorDTO, the project is never served, 404 after a restart", async () => {
    const { emu, path } = await persisted();
    const platform = (e: Emulator) => {
      const c = caller(e);
      return (method: string, p: string, body?: unknown) =>
        c(method, `${p}${p.includes("?") ? "&" : "?"}accountIdentifier=${e.accountId}`, {
          key: null,
          headers: { "x-api-key": e.platformKey },
          ...(body === undefined ? {} : { body }),
        });
    };
    const call = platform(emu);
    const project = {
      project: {
        orgIdentifier: "default",
        identifier: "doomed",
        name: "Doomed",
        color: "#123456",
        modules: [],
        description: "",
        tags: {},
      },
    };
    const before = readFileSync(path, "utf8");
    const hold = latch();
    const s = fullDisk(1, hold.promise);

    const create = call("POST", "/ng/api/projects?orgIdentifier=default", project);
    await writing(s, 1);
    const read = call("GET", "/ng/api/projects/doomed?orgIdentifier=default");
    await settleReads();
    hold.release();

    const refused = {
      status: 503,
      body: {
        status: "ERROR",
        code: "UNKNOWN_ERROR",
        message: ENOSPC_MESSAGE,
        correlationId: TX,
        detailedMessage: null,
        responseMessages: [
          {
            code: "UNKNOWN_ERROR",
            level: "ERROR",
            message: ENOSPC_MESSAGE,
            exception: null,
            failureTypes: [],
          },
        ],
        metadata: null,
      },
    };
    expect(await create).toMatchObject(refused);
    expect(await read).toMatchObject(refused);
    const notFound = {
      status: 404,
      body: {
        status: "ERROR",
        code: "ENTITY_NOT_FOUND",
        message: "Project with orgIdentifier [default] and identifier [doomed] not found",
      },
    };
    expect(await call("GET", "/ng/api/projects/doomed?orgIdentifier=default")).toMatchObject(notFound);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(tmpFiles()).toEqual([]);
    await emu.stop();

    const again = await startEmulator({ port: 0, statePath: path });
    expect(await platform(again)("GET", "/ng/api/projects/doomed?orgIdentifier=default")).toMatchObject(
      notFound,
    );
    await again.stop();
  });
});
