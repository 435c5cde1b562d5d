/**
 * Change requests (ref admin §1.1 "change requests", §2 and §9.2: approval-gated environments
 * refuse direct writes with 403; splitapiclient `change_request_microclient.py`): submission,
 * the REQUESTED → APPROVED/PUBLISHED, REJECTED, WITHDRAWN transitions with a second key approving,
 * and a large segment's upload.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../emulator";
import { adminError, type Call, definitionBody, start } from "../helpers";

let emu: Emulator;
let call: Call;
let ws: { id: string; name: string };
let gated: { id: string; name: string };
const APPROVER = "adm-approver-0123456789abcdef";
const CR = "/internal/api/v2/changeRequests";

beforeAll(async () => {
  ({ emu, call, ws } = await start({ keys: [{ key: APPROVER, type: "admin", name: "approver" }] }));
  gated = (
    await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, {
      body: { name: "Gated", production: true, changePermissions: { areApprovalsRequired: true } },
    })
  ).body;
  await call("POST", `/internal/api/v2/splits/ws/${ws.id}/trafficTypes/user`, {
    body: { name: "gated_flag" },
  });
  await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "vip" } });
  await call("POST", "/internal/api/v2/segments/Gated/vip");
});
afterAll(() => emu.stop());

const submit = (body: Record<string, unknown>, env = gated.id) =>
  call("POST", `${CR}/ws/${ws.id}/environments/${env}`, { body });
const splitChange = (over: Record<string, unknown> = {}) => ({
  split: { name: "gated_flag", ...definitionBody() },
  operationType: "CREATE",
  title: "turn it on",
  comment: "please",
  approvers: ["boss@example.com"],
  ...over,
});
const crBody = (over: Record<string, unknown>) => ({
  id: expect.any(String),
  status: "REQUESTED",
  title: "turn it on",
  comment: "please",
  approvers: ["boss@example.com"],
  operationType: "CREATE",
  comments: [
    { comment: "please", user: "Admin (all workspaces)", role: "SUBMITTER", timestamp: expect.any(Number) },
  ],
  rolloutStatus: null,
  environment: { id: gated.id, name: "Gated" },
  workspace: { id: ws.id, name: "Default", type: "workspace" },
  split: null,
  segment: null,
  largeSegment: null,
  ruleBasedSegment: null,
  ...over,
});

describe("an environment that requires approvals", () => {
  it("refuses direct writes with 403: definitions and segment keys", async () => {
    const message = `Environment Gated requires approvals: submit this change as a change request (POST /changeRequests/ws/${ws.id}/environments/${gated.id})`;
    const def = await call("POST", `/internal/api/v2/splits/ws/${ws.id}/gated_flag/environments/Gated`, {
      body: definitionBody(),
    });
    expect(def.status).toBe(403);
    expect(def.body).toEqual(adminError(403, message));
    const keys = await call("PUT", "/internal/api/v2/segments/Gated/vip/uploadKeys", {
      body: { keys: ["a"] },
    });
    expect(keys.status).toBe(403);
    expect(keys.body).toEqual(adminError(403, message));
  });

  it("takes a change request, one open per object, and the submitter cannot approve it", async () => {
    const r = await submit(splitChange());
    expect(r.status).toBe(200);
    expect(r.body).toEqual(crBody({ split: { name: "gated_flag", ...definitionBody() } }));
    const again = await submit(splitChange());
    expect(again.status).toBe(409);
    expect(again.body).toEqual(
      adminError(409, `Change request ${r.body.id} for gated_flag is still open in this environment`),
    );
    const self = await call("PUT", `${CR}/${r.body.id}`, { body: { status: "APPROVED", comment: "me" } });
    expect(self.status).toBe(403);
    expect(self.body).toEqual(
      adminError(403, `The submitter of change request ${r.body.id} cannot approve or reject it`),
    );
    const notMine = await call("PUT", `${CR}/${r.body.id}`, { key: APPROVER, body: { status: "WITHDRAWN" } });
    expect(notMine.body).toEqual(
      adminError(403, `Only the submitter can withdraw change request ${r.body.id}`),
    );
    const listed = await call("GET", `${CR}?status=REQUESTED&environmentId=${gated.id}`);
    expect(listed.body).toEqual({
      data: [r.body],
      nextMarker: null,
      previousMarker: null,
      limit: 20,
      count: 1,
    });
  });

  it("applies an approved change and publishes it", async () => {
    const [open] = (await call("GET", `${CR}?status=REQUESTED`)).body.data;
    const r = await call("PUT", `${CR}/${open.id}`, {
      key: APPROVER,
      body: { status: "APPROVED", comment: "ok" },
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("PUBLISHED");
    expect(r.body.comments).toEqual([
      { comment: "please", user: "Admin (all workspaces)", role: "SUBMITTER", timestamp: expect.any(Number) },
      { comment: "ok", user: "approver", role: "APPROVER", timestamp: expect.any(Number) },
      { comment: "", user: "approver", role: "APPROVER", timestamp: expect.any(Number) },
    ]);
    const def = await call("GET", `/internal/api/v2/splits/ws/${ws.id}/gated_flag/environments/Gated`);
    expect(def.status).toBe(200);
    expect(def.body.defaultRule).toEqual(definitionBody().defaultRule);
    const again = await call("PUT", `${CR}/${open.id}`, { key: APPROVER, body: { status: "REJECTED" } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(
      adminError(
        400,
        `Change request ${open.id} is PUBLISHED; only a REQUESTED change request can change status`,
      ),
    );
  });

  it("rejects (another key) and withdraws (the submitter) without applying", async () => {
    const kill = await submit(splitChange({ split: { name: "gated_flag" }, operationType: "KILL" }));
    expect(kill.body.status).toBe("REQUESTED");
    const rejected = await call("PUT", `${CR}/${kill.body.id}`, {
      key: APPROVER,
      body: { status: "REJECTED", comment: "no" },
    });
    expect(rejected.body.status).toBe("REJECTED");
    const keys = await submit({
      segment: { name: "vip", keys: ["k1", "k2"] },
      operationType: "CREATE",
      title: "t",
      comment: "c",
    });
    expect(keys.body).toMatchObject({
      status: "REQUESTED",
      segment: { name: "vip", keys: ["k1", "k2"] },
      split: null,
    });
    const withdrawn = await call("PUT", `${CR}/${keys.body.id}`, { body: { status: "WITHDRAWN" } });
    expect(withdrawn.body.status).toBe("WITHDRAWN");
    const def = await call("GET", `/internal/api/v2/splits/ws/${ws.id}/gated_flag/environments/Gated`);
    expect(def.body.killed).toBe(false);
    expect((await call("GET", "/internal/api/v2/segments/Gated/vip/keys")).body.count).toBe(0);
  });

  it("refuses a direct delete that would remove a definition, members or rules; an empty activation goes", async () => {
    const message = `Environment Gated requires approvals: submit this change as a change request (POST /changeRequests/ws/${ws.id}/environments/${gated.id})`;
    const V2 = "/internal/api/v2";
    // A segment with members: the deactivation would remove them.
    await call("POST", `${V2}/segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "held" } });
    await call("POST", `${V2}/segments/Gated/held`);
    const seeded = await submit({ segment: { name: "held", keys: ["m1"] }, operationType: "UPDATE" });
    await call("PUT", `${CR}/${seeded.body.id}`, { key: APPROVER, body: { status: "APPROVED" } });
    const keys = await call("DELETE", `${V2}/segments/Gated/held`);
    expect([keys.status, keys.body]).toEqual([403, adminError(403, message)]);
    expect((await call("GET", `${V2}/segments/Gated/held/keys`)).body.keys).toEqual([{ key: "m1" }]);
    // Once an approved ARCHIVE removed them, the empty activation is no change to approve.
    const archive = await submit({ segment: { name: "held", keys: ["m1"] }, operationType: "ARCHIVE" });
    await call("PUT", `${CR}/${archive.body.id}`, { key: APPROVER, body: { status: "APPROVED" } });
    expect((await call("DELETE", `${V2}/segments/Gated/held`)).status).toBe(200);
    expect((await call("GET", `${V2}/segments/Gated/held/keys`)).status).toBe(404);

    // A rule-based segment with a definition: the deactivation would remove it.
    await call("POST", `${V2}/rule-based-segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "ruled" },
    });
    await call("POST", `${V2}/rule-based-segments/Gated/ruled`);
    const ruled = await submit({
      ruleBasedSegment: { name: "ruled", rules: [], excludedKeys: ["x"], excludedSegments: [] },
      operationType: "UPDATE",
    });
    await call("PUT", `${CR}/${ruled.body.id}`, { key: APPROVER, body: { status: "APPROVED" } });
    const rbs = await call("DELETE", `${V2}/rule-based-segments/Gated/ruled`);
    expect([rbs.status, rbs.body]).toEqual([403, adminError(403, message)]);
    const listed = await call("GET", `${V2}/rule-based-segments/ws/${ws.id}/environments/Gated`);
    expect(listed.body.map((d: { name: string }) => d.name)).toContain("ruled");
    await call("POST", `${V2}/rule-based-segments/ws/${ws.id}/trafficTypes/user`, { body: { name: "bare" } });
    await call("POST", `${V2}/rule-based-segments/Gated/bare`);
    expect((await call("DELETE", `${V2}/rule-based-segments/Gated/bare`)).status).toBe(200);
    // A definition's DELETE is refused whatever it holds.
    const def = await call("DELETE", `${V2}/splits/ws/${ws.id}/gated_flag/environments/Gated`);
    expect([def.status, def.body]).toEqual([403, adminError(403, message)]);
  });

  it("refuses changes that could not be applied", async () => {
    expect((await submit(splitChange({ split: { name: "nope", ...definitionBody() } }))).body).toEqual(
      adminError(404, "Could not find split nope"),
    );
    expect((await submit(splitChange({ operationType: "UPLOAD" }))).body).toEqual(
      adminError(400, "operationType: UPLOAD does not apply to a split"),
    );
    const bad = await submit(
      splitChange({
        split: { name: "gated_flag", ...definitionBody({ defaultRule: [{ treatment: "on", size: 10 }] }) },
      }),
    );
    expect(bad.status).toBe(400);
    expect((await submit({ operationType: "CREATE" })).body).toEqual(
      adminError(400, "body: exactly one of split, segment, largeSegment and ruleBasedSegment is required"),
    );
  });
});

describe("elsewhere", () => {
  it("a change request is applied at once and PUBLISHED", async () => {
    const r = await submit({ segment: { name: "vip", keys: ["p1"] }, operationType: "CREATE" }, "Production");
    expect(r.status).toBe(404);
    await call("POST", "/internal/api/v2/segments/Production/vip");
    const ok = await submit(
      { segment: { name: "vip", keys: ["p1"] }, operationType: "CREATE" },
      "Production",
    );
    expect(ok.body.status).toBe("PUBLISHED");
    expect((await call("GET", "/internal/api/v2/segments/Production/vip/keys")).body.keys).toEqual([
      { key: "p1" },
    ]);
  });

  it("a large segment's members arrive as a CSV file at the upload address", async () => {
    await call("POST", `/internal/api/v2/large-segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "big" },
    });
    await call("POST", "/internal/api/v2/large-segments/Production/big");
    const r = await submit(
      { largeSegment: { name: "big" }, operationType: "UPLOAD", title: "t", comment: "c" },
      "Production",
    );
    expect(r.body.transactionMetadata).toEqual({
      url: expect.stringMatching(
        new RegExp(`^${emu.url}/internal/api/v2/large-segments/uploads/[0-9a-f-]{36}$`),
      ),
      headers: { Host: [new URL(emu.url).host] },
    });
    const put = await fetch(r.body.transactionMetadata.url, { method: "PUT", body: "key\nm1\nm2\nm1\n" });
    expect(put.status).toBe(200);
    const used = await fetch(r.body.transactionMetadata.url, { method: "PUT", body: "key\n" });
    expect(used.status).toBe(404);
    const cr = await call("GET", `${CR}/${r.body.id}`);
    expect(cr.body.transactionMetadata).toBeUndefined();
    const removed = await submit({ largeSegment: { name: "big" }, operationType: "ARCHIVE" }, "Production");
    expect(removed.body.status).toBe("PUBLISHED");
  });

  it("an environment's deletion takes its change requests along: a pending upload's address is gone", async () => {
    const made = await call("POST", `/internal/api/v2/environments/ws/${ws.id}`, {
      body: { name: "Brief", production: false },
    });
    await call("POST", `/internal/api/v2/large-segments/ws/${ws.id}/trafficTypes/user`, {
      body: { name: "brief_big" },
    });
    await call("POST", "/internal/api/v2/large-segments/Brief/brief_big");
    const r = await submit(
      { largeSegment: { name: "brief_big" }, operationType: "UPLOAD", title: "t", comment: "c" },
      "Brief",
    );
    // A request of another environment, submitted after it, stays.
    await submit({ segment: { name: "vip", keys: ["p2"] }, operationType: "UPDATE" }, "Production");
    for (const k of made.body.apiTokens) await call("DELETE", `/internal/api/v2/apiKeys/${k.id}`);
    const deleted = await call("DELETE", `/internal/api/v2/environments/ws/${ws.id}/Brief`);
    expect([deleted.status, deleted.body]).toEqual([200, true]);
    const put = await fetch(r.body.transactionMetadata.url, { method: "PUT", body: "key\nm1\n" });
    expect([put.status, await put.json()]).toEqual([404, adminError(404, "Could not find the upload")]);
    // A later request gets an id of its own: none of those left is replaced.
    const ids = async () =>
      ((await call("GET", `${CR}?limit=100`)).body.data as { id: string }[]).map((x) => x.id);
    const before = await ids();
    const next = await submit(
      { segment: { name: "vip", keys: ["p3"] }, operationType: "UPDATE" },
      "Production",
    );
    expect([before.includes(next.body.id), await ids()]).toEqual([false, [...before, next.body.id]]);
  });
});
