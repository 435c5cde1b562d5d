/**
 * A large segment's members through the change-request upload, with the real engine (issue 27):
 * Production requires approvals; the program declares 100,000 members as a file; `up` opens an
 * UPLOAD change request and PUTs the CSV to its `transactionMetadata.url` once; a colleague's key
 * approves it and the members are served (the client-side SDK's `/api/memberships/{key}`); a
 * one-key change uploads exactly once more; an unchanged `up` uploads nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../sdk/admin/client";
import { clients, defaultWorkspaceId } from "./fixtures";
import { EngineStack, type RequestRecord } from "./harness";

const MEMBERS = 100_000;
const UPLOAD = /^\/internal\/api\/v2\/large-segments\/uploads\/[0-9a-f-]{36}$/;
const uploadsOf = (requests: RequestRecord[]) =>
  requests.filter((r) => r.method === "PUT" && UPLOAD.test(r.path));
const changeRequestsOf = (requests: RequestRecord[]) =>
  requests.filter((r) => r.method === "POST" && r.path.startsWith("/internal/api/v2/changeRequests/"));

interface Recorded {
  environment: string;
  count: number;
  sha256: string;
  changeRequest: { id: string; status: string };
}

describe("LargeSegment members through the change-request upload", () => {
  let s: EngineStack;
  let admin: AdminClient;
  let approver: AdminClient;
  let sdkKey: string;

  /** The large segments `key` is in, in Production, as the client-side SDK reads them. */
  const memberOf = async (key: string): Promise<string[]> => {
    const res = await fetch(`${s.emu.url}/api/memberships/${encodeURIComponent(key)}`, {
      headers: { authorization: `Bearer ${sdkKey}` },
    });
    return ((await res.json()) as { ls: { k: { n: string }[] } }).ls.k.map((k) => k.n);
  };
  const recorded = async () => ((await s.outputs()).members as Recorded[])[0]!;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/large-segment" });
    ({ admin } = clients(s.emu));
    const ws = await defaultWorkspaceId(admin);
    await admin.environments.patch(ws, "Production", [
      { op: "replace", path: "/changePermissions", value: { areApprovalsRequired: true } },
    ]);
    const key = await admin.apiKeys.create({
      name: "approver",
      apiKeyType: "admin",
      roles: ["API_ALL_GRANTED"],
      workspace: { type: "workspace", id: ws },
    });
    approver = new AdminClient({ baseUrl: s.emu.url, apiKey: key.key, requestsPerSecond: 1000, env: {} });
    sdkKey = s.emu.sdkKeys.Production!;
    await s.setConfig({ "flagstack-e2e-large-segment:members": String(MEMBERS) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("uploads 100,000 members once; they apply when a colleague approves the request", async () => {
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ create: 2 });
    expect(changeRequestsOf(requests)).toHaveLength(1);
    expect(uploadsOf(requests).map((r) => r.status)).toEqual([200]);
    const first = await recorded();
    expect(first).toMatchObject({
      environment: "Production",
      count: MEMBERS,
      changeRequest: { status: "REQUESTED" },
    });
    const cr = await admin.changeRequests.get(first.changeRequest.id);
    expect(cr).toMatchObject({ operationType: "UPLOAD", title: "CRM export", approvers: ["crm-owners"] });
    // Nothing is applied before the approval.
    expect(await memberOf("user-0")).toEqual([]);
    expect((await approver.changeRequests.approve(first.changeRequest.id, "ok")).status).toBe("PUBLISHED");
    for (const key of ["user-0", "user-50000", `user-${MEMBERS - 1}`])
      expect(await memberOf(key)).toEqual(["crm_customers"]);
    expect(await memberOf(`user-${MEMBERS}`)).toEqual([]);
    // The state holds the count and digest, never a key.
    expect(await s.exportText()).not.toContain("user-50000");
  });

  it("a one-key change uploads exactly once, and an unchanged up uploads nothing", async () => {
    const before = await recorded();
    await s.setConfig({ "flagstack-e2e-large-segment:swap": "user-new" });
    const { result, requests } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ same: 1, update: 1 });
    expect(changeRequestsOf(requests)).toHaveLength(1);
    expect(uploadsOf(requests).map((r) => r.status)).toEqual([200]);
    const after = await recorded();
    expect(after.count).toBe(MEMBERS);
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.changeRequest.status).toBe("REQUESTED");
    await approver.changeRequests.approve(after.changeRequest.id, "ok");
    expect(await memberOf("user-new")).toEqual(["crm_customers"]);
    expect(await memberOf("user-0")).toEqual([]);
    expect(await memberOf("user-1")).toEqual(["crm_customers"]);

    const again = await s.up();
    expect(again.result.summary.resourceChanges).toEqual({ same: 2 });
    expect(uploadsOf(again.requests)).toEqual([]);
    expect(changeRequestsOf(again.requests)).toEqual([]);
  });
});
