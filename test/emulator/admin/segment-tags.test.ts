/**
 * One segment by name (`GET /segments/ws/{ws}/{name}`, ref admin §9.1) and segment tags
 * (`POST /tags/ws/{ws}/object/{name}/objecttype/Segment`, ref §1.1): exact shapes, the tags in the
 * segment's answer, the list's `tag` filter, the refusals, and the tags kept in the state file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { adminError, type Call, caller, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
const V2 = "/internal/api/v2";
const tagPath = (name: string, type = "Segment") =>
  `${V2}/tags/ws/${ws.id}/object/${name}/objecttype/${type}`;
const segment = (name: string, tags: { name: string }[] | null) => ({
  name,
  description: `about ${name}`,
  trafficType: { id: expect.any(String), name: "user" },
  creationTime: expect.any(Number),
  tags,
});

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  for (const name of ["plain", "tagged", "other"]) {
    await call("POST", `${V2}/segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name, description: `about ${name}` },
    });
  }
});
afterAll(() => emu.stop());

describe("GET /segments/ws/{ws}/{name}", () => {
  it("answers the segment, untagged as null", async () => {
    const r = await call("GET", `${V2}/segments/ws/${ws.id}/plain`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(segment("plain", null));
  });

  it("is 404 for a name the workspace does not have, and for an unknown workspace", async () => {
    const r = await call("GET", `${V2}/segments/ws/${ws.id}/nobody`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual(adminError(404, "Could not find segment nobody"));
    expect((await call("GET", `${V2}/segments/ws/no-such-ws/plain`)).status).toBe(404);
  });
});

describe("POST /tags/ws/{ws}/object/{name}/objecttype/Segment", () => {
  it("replaces the tags, without duplicates in first-seen order, and answers the segment", async () => {
    const r = await call("POST", tagPath("tagged"), { body: ["web", "growth", "web"] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(segment("tagged", [{ name: "web" }, { name: "growth" }]));
    const again = await call("POST", tagPath("tagged"), { body: ["growth"] });
    expect(again.body.tags).toEqual([{ name: "growth" }]);
    expect((await call("GET", `${V2}/segments/ws/${ws.id}/tagged`)).body).toEqual(
      segment("tagged", [{ name: "growth" }]),
    );
  });

  it("shows the tags in the list, which filters by tag (repeated: any of them)", async () => {
    await call("POST", tagPath("other"), { body: ["mobile"] });
    const all = await call("GET", `${V2}/segments/ws/${ws.id}`);
    expect(all.body.objects).toEqual([
      segment("plain", null),
      segment("tagged", [{ name: "growth" }]),
      segment("other", [{ name: "mobile" }]),
    ]);
    const one = await call("GET", `${V2}/segments/ws/${ws.id}?tag=growth`);
    expect(one.body).toEqual({
      objects: [segment("tagged", [{ name: "growth" }])],
      offset: 0,
      limit: 20,
      totalCount: 1,
    });
    const both = await call("GET", `${V2}/segments/ws/${ws.id}?tag=growth&tag=mobile`);
    expect(both.body.objects.map((s: { name: string }) => s.name)).toEqual(["tagged", "other"]);
  });

  it("removes every tag with [] (tags back to null)", async () => {
    await call("POST", tagPath("other"), { body: ["x"] });
    const r = await call("POST", tagPath("other"), { body: [] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(segment("other", null));
  });

  it("leaves a flag of the same name alone (the object type picks the object)", async () => {
    await call("POST", `${V2}/splits/ws/${ws.id}/trafficTypes/user`, { body: { name: "plain" } });
    await call("POST", tagPath("plain", "Split"), { body: ["flag_only"] });
    expect((await call("GET", `${V2}/segments/ws/${ws.id}/plain`)).body.tags).toBeNull();
    await call("POST", tagPath("plain"), { body: ["segment_only"] });
    expect((await call("GET", `${V2}/splits/ws/${ws.id}/plain`)).body.tags).toEqual([{ name: "flag_only" }]);
  });

  it.each([
    [
      "an unknown object type",
      "plain",
      "Metric",
      ["a"],
      400,
      "objecttype: must be Split or Segment, got Metric",
    ],
    [
      "a segment the workspace does not have",
      "nobody",
      "Segment",
      ["a"],
      404,
      "Could not find segment nobody",
    ],
    [
      "a body that is not an array",
      "plain",
      "Segment",
      { tags: ["a"] },
      400,
      "body: must be an array of tag names",
    ],
    ["an empty tag name", "plain", "Segment", ["ok", ""], 400, "[1]: tag name must not be empty"],
  ])("refuses %s", async (_what, name, type, body, status, message) => {
    const r = await call("POST", tagPath(name, type), { body });
    expect(r.status).toBe(status);
    expect(r.body).toEqual(adminError(status, message));
  });
});

describe("segment tags in the state file", () => {
  it("are kept across a restart, and a state file from before segment tags loads untagged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-segment-tags-"));
    const statePath = join(dir, "state.json");
    try {
      const a = await startEmulator({ port: 0, statePath });
      const wsId = (await caller(a)("GET", `${V2}/workspaces`)).body.objects[0].id;
      await caller(a)("POST", `${V2}/segments/ws/${wsId}/trafficTypes/user`, { body: { name: "kept" } });
      await caller(a)("POST", `${V2}/segments/ws/${wsId}/trafficTypes/user`, { body: { name: "old" } });
      await caller(a)("POST", `${V2}/tags/ws/${wsId}/object/kept/objecttype/Segment`, { body: ["keep"] });
      await a.stop();
      // The segment "old" as a state file written before segments had tags holds it.
      const state = JSON.parse(readFileSync(statePath, "utf8"));
      for (const s of state.segments) if (s.name === "old") delete s.tags;
      writeFileSync(statePath, JSON.stringify(state));
      const b = await startEmulator({ port: 0, statePath });
      const list = await caller(b)("GET", `${V2}/segments/ws/${wsId}`);
      expect(list.body.objects.map((s: { name: string; tags: unknown }) => [s.name, s.tags])).toEqual([
        ["kept", [{ name: "keep" }]],
        ["old", null],
      ]);
      await b.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
