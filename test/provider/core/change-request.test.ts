/**
 * Change requests of approval-gated environments (provider/core/change-request.ts) through
 * FlagDefinition and SegmentKeys against the emulator: the refused write becomes a change request
 * with the exact body, the state records what is live plus `pendingChangeRequest`, a second `up`
 * submits nothing (the recorded request read again, or the open one found by the list after a
 * timeout), a second admin key approves through the SDK and the next refresh shows no diff;
 * `waitForApproval` succeeds when approved meanwhile (with its progress line) and fails on
 * REJECTED, WITHDRAWN and the timeout with exact messages; a recorded request rejected since is
 * reported on the next `up` (who, when, the comment, in the door's words) before the change is
 * submitted anew; an environment without approvals is
 * written directly with the same requests as before.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ownerDeleteGate, readAheadOwnerGate, setProgressSink } from "../../../provider/core/change-request";
import { PULUMI_WORDS, TERRAFORM_WORDS, useDoor } from "../../../provider/core/door";
import { impl as flag, flagProviderText } from "../../../provider/flags/flag";
import { impl as definitions, flagDefinitionProviderText } from "../../../provider/flags/flag-definition";
import { impl as segment, segmentProviderText } from "../../../provider/flags/segment";
import { impl as segmentKeys, segmentKeysProviderText } from "../../../provider/flags/segment-keys";
import { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import type { Driver, Mode } from "../harness";
import {
  createGatedEnvironment,
  itRefusesWithNoRequest,
  startTestbed,
  type Testbed,
  unique,
} from "../testbed";

let bed: Testbed;
let ws: Workspace;
let gatedId: string;
let prodId: string;
let approver: AdminClient;
let defs: Driver;
let keys: Driver;
let flags: Driver;
let segments: Driver;
let hostDefs: Driver;
let progress: string[];
type Props = Record<string, unknown>;
const V2 = "/internal/api/v2";
const TITLE = "pulumi up: shop/dev";
const SUBMITTER = 'Admin (all workspaces) (SUBMITTER) commented: "oops"';

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prodId = (await bed.admin.environments.find(ws.id, "Production"))!.id;
  gatedId = await createGatedEnvironment(bed.admin, ws.id);
  const key = await bed.admin.apiKeys.create({
    name: "approver",
    apiKeyType: "admin",
    roles: ["API_ALL_GRANTED"],
    workspace: { type: "workspace", id: ws.id },
  });
  approver = new AdminClient({ baseUrl: bed.emu.url, apiKey: key.key, requestsPerSecond: 1000 });
  defs = await bed.driver("direct", definitions, flagDefinitionProviderText);
  keys = await bed.driver("direct", segmentKeys, segmentKeysProviderText);
  flags = await bed.driver("direct", flag, flagProviderText);
  segments = await bed.driver("direct", segment, segmentProviderText);
  hostDefs = await bed.driver("gRPC host", definitions, flagDefinitionProviderText);
});
afterAll(async () => {
  await bed?.stop();
});
let previousSink: ((m: string) => void) | undefined;
beforeAll(() => {
  previousSink = setProgressSink((m) => progress.push(m));
});
afterAll(() => {
  if (previousSink) setProgressSink(previousSink);
});
afterEach(() => {
  progress = [];
});
progress = [];

const checked = async (p: Driver, program: Props) => {
  const r = await p.check({}, program);
  expect(r.failures).toEqual([]);
  return r.inputs;
};
const doc = (split: number) => ({
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: split },
    { treatment: "off", size: 100 - split },
  ],
});
const programFor = (flag: string, split: number, environment = "Gated", over: Props = {}) => ({
  workspace: "Default",
  flag,
  environment,
  ...doc(split),
  changeRequest: { title: "Roll out", comment: `to ${split}%`, approvers: ["lead@example.com"] },
  ...over,
});
/** A flag whose definition in Gated is `doc(50)`, made through an approved change request, and its state. */
const seeded = async () => {
  const flag = unique("cr-flag");
  await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
  const cr = await bed.admin.changeRequests.create(ws.id, gatedId, {
    split: { name: flag, ...doc(50) },
    operationType: "CREATE",
    title: "seed",
    comment: "seed",
  });
  await approver.changeRequests.approve(cr.id, "ok");
  const r = await defs.read(`Default/${flag}/Gated`, {});
  const id = r.id as string;
  const olds: Props = { ...(r.props as Props), changeRequest: programFor(flag, 50).changeRequest };
  return { flag, id, olds };
};
/** The open change request of a flag in Gated, once the provider has submitted it. */
const openRequestOf = async (name: string) => {
  for (let i = 0; i < 200; i++) {
    for await (const cr of bed.admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId })) {
      const object = (cr.split ?? cr.segment) as { name: string } | null;
      if (object?.name === name) return cr;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no open change request of ${name}`);
};
const definitionIn = async (flag: string, env: string) => {
  const d = await bed.admin.definitions.get(ws.id, flag, env);
  return d.defaultRule;
};

describe("FlagDefinition in an environment that requires approvals", () => {
  it("submits an update as a change request, records what is live, never submits it twice, and is applied once approved", async () => {
    const { flag, id, olds } = await seeded();
    const news = await checked(defs, programFor(flag, 60));
    bed.reset();
    const first = await defs.update(id, olds, news);
    const pending = first.outs.pendingChangeRequest as { id: string };
    expect(first.outs.pendingChangeRequest).toEqual({
      id: pending.id,
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    // What is live, not the requested change.
    expect(first.outs.defaultRule).toEqual(doc(50).defaultRule);
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${V2}/splits/ws/${ws.id}/${olds.flagId}/environments/${gatedId} 200`,
      `PATCH ${V2}/splits/ws/${ws.id}/${flag}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `GET ${V2}/changeRequests 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual({
      split: {
        name: flag,
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        trafficAllocation: 100,
        rules: [],
        defaultRule: doc(60).defaultRule,
      },
      operationType: "UPDATE",
      title: "Roll out",
      comment: "to 60%",
      approvers: ["lead@example.com"],
    });
    expect(progress).toEqual([
      `environment "Gated" requires approvals: submitted change request ${pending.id} for the definition of flag "${flag}" in environment "Gated" (REQUESTED)`,
    ]);

    // The next `up` reads the definition and the recorded request, and submits nothing.
    expect((await defs.diff(id, first.outs, news)).changes).toBe(true);
    bed.reset();
    const second = await defs.update(id, first.outs, news);
    expect(second.outs.pendingChangeRequest).toEqual(first.outs.pendingChangeRequest);
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${V2}/splits/ws/${ws.id}/${olds.flagId}/environments/${gatedId}`,
      `GET ${V2}/changeRequests/${pending.id}`,
    ]);

    // A second admin key approves through the SDK: refresh shows the program's definition, no diff.
    await approver.changeRequests.approve(pending.id, "ship it");
    expect(await definitionIn(flag, gatedId)).toEqual(doc(60).defaultRule);
    const refreshed = await defs.read(id, second.outs);
    expect(refreshed.props?.pendingChangeRequest).toBeUndefined();
    expect(refreshed.props?.defaultRule).toEqual(doc(60).defaultRule);
    expect((await defs.diff(id, refreshed.props as Props, news)).changes).toBe(false);
  });

  it("kills through a KILL change request after the document's UPDATE, each approved in turn (waitForApproval)", async () => {
    const { flag, id, olds } = await seeded();
    const news = await checked(
      defs,
      programFor(flag, 55, "Gated", {
        killed: true,
        waitForApproval: { timeoutSeconds: 10, pollSeconds: 0.05 },
      }),
    );
    const approving = (async () => {
      const ops: string[] = [];
      for (const _ of [1, 2]) {
        const cr = await openRequestOf(flag);
        ops.push(`${cr.operationType} ${JSON.stringify(cr.split)}`);
        await approver.changeRequests.approve(cr.id, "ok");
      }
      return ops;
    })();
    const r = await defs.update(id, olds, news);
    expect(await approving).toEqual([
      `UPDATE ${JSON.stringify({ name: flag, treatments: [{ name: "on" }, { name: "off" }], defaultTreatment: "off", trafficAllocation: 100, rules: [], defaultRule: doc(55).defaultRule })}`,
      `KILL ${JSON.stringify({ name: flag })}`,
    ]);
    expect(r.outs).toMatchObject({ killed: true, defaultRule: doc(55).defaultRule });
    expect(r.outs.pendingChangeRequest).toBeUndefined();
  });

  it("refuses a different change while the recorded request is open, naming it", async () => {
    const { flag, id, olds } = await seeded();
    const first = await defs.update(id, olds, await checked(defs, programFor(flag, 60)));
    const crId = (first.outs.pendingChangeRequest as { id: string }).id;
    bed.reset();
    const failure = await defs
      .update(id, first.outs, await checked(defs, programFor(flag, 65)))
      .catch((e: Error) => e);
    expect((failure as Error).message).toBe(
      `change request ${crId} (changeRequests/${crId}) for the definition of flag "${flag}" in environment "Gated" is open (REQUESTED) ` +
        "with a different change, and the service takes one open change request per object: approve, reject or withdraw it, then run `pulumi up` again",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("after a rejection, the next up reports who rejected it, when and the comment, and submits the change anew", async () => {
    const { flag, id, olds } = await seeded();
    const news = await checked(defs, programFor(flag, 60));
    const first = await defs.update(id, olds, news);
    const rejectedId = (first.outs.pendingChangeRequest as { id: string }).id;
    await approver.changeRequests.reject(rejectedId, "not this week");
    const decided = (await bed.admin.changeRequests.get(rejectedId)).comments.at(-1);
    const at = new Date(decided?.timestamp ?? 0).toISOString();
    progress = [];
    bed.reset();
    const second = await defs.update(id, first.outs, news);
    const next = (second.outs.pendingChangeRequest as { id: string }).id;
    expect(next).not.toBe(rejectedId);
    expect(second.outs.pendingChangeRequest).toEqual({
      id: next,
      status: "REQUESTED",
      reference: `changeRequests/${next}`,
    });
    expect(second.outs.defaultRule).toEqual(doc(50).defaultRule);
    const about = `the definition of flag "${flag}" in environment "Gated"`;
    expect(progress).toEqual([
      `change request ${rejectedId} (changeRequests/${rejectedId}) for ${about}, recorded as pending by an earlier \`pulumi up\`, ` +
        `was REJECTED by approver (APPROVER) at ${at}, commenting "not this week"; nothing of it was applied, so this \`pulumi up\` makes the change anew`,
      `environment "Gated" requires approvals: submitted change request ${next} for ${about} (REQUESTED)`,
    ]);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `PATCH ${V2}/splits/ws/${ws.id}/${flag}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
  });

  it("waitForApproval: polls with a progress line until a second key approves, then records the applied definition", async () => {
    const { flag, id, olds } = await seeded();
    const news = await checked(
      defs,
      programFor(flag, 70, "Gated", { waitForApproval: { timeoutSeconds: 10, pollSeconds: 0.05 } }),
    );
    const approving = (async () => {
      const cr = await openRequestOf(flag);
      await approver.changeRequests.approve(cr.id, "fine");
      return cr.id;
    })();
    const r = await defs.update(id, olds, news);
    const crId = await approving;
    expect(r.outs.pendingChangeRequest).toBeUndefined();
    expect(r.outs.defaultRule).toEqual(doc(70).defaultRule);
    expect(progress).toContain(`waiting for change request ${crId} (REQUESTED, 0s of 10s)`);
  });

  it.each([
    ["REJECTED", 'approver (APPROVER) commented: "not this week"'],
    ["WITHDRAWN", SUBMITTER],
  ])("waitForApproval fails on %s with the request, its status and the comment", async (status, said) => {
    const { flag, id, olds } = await seeded();
    const news = await checked(
      defs,
      programFor(flag, 80, "Gated", { waitForApproval: { timeoutSeconds: 10, pollSeconds: 0.05 } }),
    );
    const ending = (async () => {
      const cr = await openRequestOf(flag);
      if (status === "REJECTED") await approver.changeRequests.reject(cr.id, "not this week");
      else await bed.admin.changeRequests.withdraw(cr.id, "oops");
      return cr.id;
    })();
    const failure = await defs.update(id, olds, news).catch((e: Error) => e);
    const crId = await ending;
    expect((failure as Error).message).toBe(
      `change request ${crId} (changeRequests/${crId}) for the definition of flag "${flag}" in environment "Gated" was ${status}; ${said}; ` +
        "nothing was applied. Run `pulumi up` again to submit the change anew",
    );
    expect(await definitionIn(flag, gatedId)).toEqual(doc(50).defaultRule);
  });

  it("waitForApproval fails on the timeout, and the next up finds the open request instead of submitting another", async () => {
    const { flag, id, olds } = await seeded();
    const news = await checked(
      defs,
      programFor(flag, 90, "Gated", { waitForApproval: { timeoutSeconds: 0.2, pollSeconds: 0.05 } }),
    );
    const failure = await defs.update(id, olds, news).catch((e: Error) => e);
    const cr = await openRequestOf(flag);
    expect((failure as Error).message).toBe(
      `change request ${cr.id} (changeRequests/${cr.id}) for the definition of flag "${flag}" in environment "Gated" is still REQUESTED after 0.2s ` +
        "(waitForApproval.timeoutSeconds); nothing is applied until it is approved. The next `pulumi up` picks it up (it is not submitted again)",
    );
    // The failed update recorded nothing: the next one has the old state, is refused, and finds the request.
    bed.reset();
    const { waitForApproval: _w, ...noWait } = news;
    const next = await defs.update(id, olds, noWait);
    expect(next.outs.pendingChangeRequest).toEqual({
      id: cr.id,
      status: "REQUESTED",
      reference: `changeRequests/${cr.id}`,
    });
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `PATCH ${V2}/splits/ws/${ws.id}/${flag}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
    ]);
    expect(progress.at(-1)).toBe(
      `change request ${cr.id} for the definition of flag "${flag}" in environment "Gated" is already open (REQUESTED): not submitted again`,
    );
  });

  it("deletes through an ARCHIVE change request: the delete fails naming it until it is approved", async () => {
    const { flag, id, olds } = await seeded();
    bed.reset();
    const failure = await defs.delete(id, olds).catch((e: Error) => e);
    const cr = await openRequestOf(flag);
    expect(cr.operationType).toBe("ARCHIVE");
    expect((failure as Error).message).toBe(
      `environment "Gated" requires approvals: change request ${cr.id} (changeRequests/${cr.id}) to delete the definition of flag "${flag}" in environment "Gated" ` +
        "is REQUESTED; the definition stays, and stays in the state, until it is approved. Run the delete again after approval (the request is not submitted again), or set `waitForApproval`",
    );
    // Again before approval: found, not submitted twice.
    await expect(defs.delete(id, olds)).rejects.toThrow(`change request ${cr.id} `);
    expect(bed.proxy.writes().filter((w) => w.method === "POST")).toHaveLength(1);
    await approver.changeRequests.approve(cr.id, "ok");
    await defs.delete(id, olds);
    await expect(bed.admin.definitions.get(ws.id, flag, gatedId)).rejects.toMatchObject({ status: 404 });
  });

  it("creates through a change request: nothing recorded as live until it is approved", async () => {
    const flag = unique("cr-new");
    await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    const inputs = await checked(defs, programFor(flag, 40));
    const made = await defs.create(inputs);
    const pending = made.outs.pendingChangeRequest as { id: string };
    expect(made.outs).toMatchObject({
      treatments: [],
      rules: [],
      defaultRule: [],
      creationTime: 0,
      pendingChangeRequest: {
        id: pending.id,
        status: "REQUESTED",
        reference: `changeRequests/${pending.id}`,
      },
    });
    expect(bed.proxy.writes().at(-1)?.body).toMatchObject({ operationType: "CREATE", title: "Roll out" });
    // Refresh keeps it while the request is open; after approval the update writes nothing.
    expect((await defs.read(made.id, made.outs)).props?.pendingChangeRequest).toEqual(
      made.outs.pendingChangeRequest,
    );
    await approver.changeRequests.approve(pending.id, "ok");
    bed.reset();
    const r = await defs.update(made.id, made.outs, inputs);
    expect(r.outs.pendingChangeRequest).toBeUndefined();
    expect(r.outs.defaultRule).toEqual(doc(40).defaultRule);
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("sends flagSets in the split of the change request; once approved, nothing is left to write", async () => {
    const flag = unique("cr-sets");
    await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    const set = await bed.admin.flagSets.create({ name: flag.replace(/-/g, "_"), workspace: { id: ws.id } });
    const inputs = await checked(defs, programFor(flag, 40, "Gated", { flagSets: [set.id] }));
    bed.reset();
    const made = await defs.create(inputs);
    const pending = made.outs.pendingChangeRequest as { id: string };
    expect(bed.proxy.writes().at(-1)?.body).toMatchObject({
      operationType: "CREATE",
      split: { name: flag, flagSets: [{ id: set.id, type: "flag_set" }] },
    });
    await approver.changeRequests.approve(pending.id, "ok");
    bed.reset();
    const r = await defs.update(made.id, made.outs, inputs);
    expect(r.outs.flagSets).toEqual([set.id]);
    expect(bed.proxy.writes()).toEqual([]);
  });
});

describe("a Flag with a definition in an environment that requires approvals", () => {
  /** The flag's state as a create records it (read by its id). */
  const flagState = async (flag: string) => {
    const f = await bed.admin.flags.get(ws.id, flag);
    const r = await flags.read(f.id, {
      workspace: "Default",
      trafficType: "user",
      name: flag,
      workspaceId: ws.id,
      workspaceName: "Default",
    } as Props);
    return { id: f.id, outs: r.props as Props };
  };

  it("is not deleted behind the gate: its delete submits the ARCHIVE request, fails naming it, and deletes once it is approved", async () => {
    const { flag } = await seeded();
    const { id, outs } = await flagState(flag);
    bed.reset();
    const failure = await flags.delete(id, outs).catch((e: Error) => e);
    const cr = await openRequestOf(flag);
    expect(cr.operationType).toBe("ARCHIVE");
    expect((failure as Error).message).toBe(
      `flag "${flag}" in workspace "Default" is not deleted: deleting it would also delete its definitions in environments that require approvals, without approval. ` +
        `Environment "Gated": change request ${cr.id} (changeRequests/${cr.id}) to delete the definition of flag "${flag}" in environment "Gated" is REQUESTED. ` +
        "The flag stays, and stays in the state, until each is approved; run the delete again then (the requests are not submitted again)",
    );
    // The environments' change permissions are read with dry runs (once per process), which change nothing.
    expect(bed.proxy.writes().every((w) => w.method !== "PATCH" || w.query.dry_run === "true")).toBe(true);
    expect(
      bed.proxy
        .writes()
        .filter((w) => w.method !== "PATCH")
        .map((w) => ({ call: `${w.method} ${w.path} ${w.status}`, body: w.body })),
    ).toEqual([
      {
        call: `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
        body: {
          split: { name: flag },
          operationType: "ARCHIVE",
          title: TITLE,
          comment: `delete of flag "${flag}" in environment "Gated" by flagstack (Pulumi stack shop/dev)`,
          approvers: [],
        },
      },
    ]);
    expect(await definitionIn(flag, gatedId)).toEqual(doc(50).defaultRule);
    // Again before approval: the open request is named, not submitted twice, and the flag stays.
    bed.reset();
    await expect(flags.delete(id, outs)).rejects.toThrow(`change request ${cr.id} `);
    expect(bed.proxy.writes()).toEqual([]);
    await approver.changeRequests.approve(cr.id, "ok");
    bed.reset();
    await flags.delete(id, outs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `DELETE ${V2}/splits/ws/${ws.id}/${flag} 200`,
    ]);
    await expect(bed.admin.flags.get(ws.id, flag)).rejects.toMatchObject({ status: 404 });
  });

  it("finds the ARCHIVE request its definition's delete submitted (deletedWith): the flag stays while it is REQUESTED", async () => {
    const { flag, id: defId, olds } = await seeded();
    await expect(defs.delete(defId, olds)).rejects.toThrow(/to delete the definition of flag/);
    const cr = await openRequestOf(flag);
    const { id, outs } = await flagState(flag);
    bed.reset();
    await expect(flags.delete(id, outs)).rejects.toThrow(
      `Environment "Gated": change request ${cr.id} (changeRequests/${cr.id}) to delete the definition of flag "${flag}" in environment "Gated" is REQUESTED.`,
    );
    expect(bed.proxy.writes().filter((w) => w.method !== "PATCH")).toEqual([]);
    expect(await definitionIn(flag, gatedId)).toEqual(doc(50).defaultRule);
  });

  it("a flag whose definitions are all in environments without approvals is deleted with one DELETE", async () => {
    const flag = unique("cr-free");
    await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    await defs.create(await checked(defs, programFor(flag, 50, "Production")));
    const { id, outs } = await flagState(flag);
    bed.reset();
    await flags.delete(id, outs);
    expect(
      bed.proxy
        .writes()
        .filter((w) => w.method !== "PATCH")
        .map((w) => `${w.method} ${w.path}`),
    ).toEqual([`DELETE ${V2}/splits/ws/${ws.id}/${flag}`]);
    await expect(bed.admin.flags.get(ws.id, flag)).rejects.toMatchObject({ status: 404 });
  });
});

describe("readAheadOwnerGate", () => {
  it("sends the owner-delete gate's reads ahead, once, so that the gate itself then sends none", async () => {
    // A client of its own: its memo of lookups starts empty.
    const admin = new AdminClient({
      baseUrl: bed.proxy.url,
      apiKey: bed.emu.adminKey,
      requestsPerSecond: 1000,
    });
    const envs = await bed.admin.environments.list(ws.id);
    bed.reset();
    readAheadOwnerGate(admin, ws.id);
    readAheadOwnerGate(admin, ws.id);
    const expected = [
      `GET ${V2}/environments/ws/${ws.id}`,
      ...envs.map((e) => `PATCH ${V2}/environments/ws/${ws.id}/${e.id} dry_run=true`),
    ].sort();
    const seen = () =>
      bed.proxy
        .requests()
        .map((r) => `${r.method} ${r.path}${r.query.dry_run ? ` dry_run=${r.query.dry_run}` : ""}`)
        .sort();
    for (let i = 0; i < 200 && seen().length < expected.length; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(seen()).toEqual(expected);
    bed.reset();
    const asked: string[] = [];
    await ownerDeleteGate({
      admin,
      wsId: ws.id,
      describe: 'flag "none" in workspace "Default"',
      noun: "flag",
      holds: "definitions",
      archiveIn: async (env) => {
        asked.push(env.name);
        return undefined;
      },
      note: () => ({ title: "t", comment: "c", approvers: [] }),
    });
    // Only the gated environment is asked what the flag holds there; nothing is read again.
    expect([asked, bed.proxy.requests()]).toEqual([["Gated"], []]);
  });

  it("a read ahead that fails fails nothing and is not kept: the gate reads again", async () => {
    const admin = new AdminClient({ baseUrl: bed.proxy.url, apiKey: "wrong-key", requestsPerSecond: 1000 });
    bed.reset();
    readAheadOwnerGate(admin, ws.id);
    for (let i = 0; i < 200 && bed.proxy.requests().length < 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${V2}/environments/ws/${ws.id} 401`,
    ]);
    const gate = ownerDeleteGate({
      admin,
      wsId: ws.id,
      describe: 'flag "none" in workspace "Default"',
      noun: "flag",
      holds: "definitions",
      archiveIn: async () => undefined,
      note: () => ({ title: "t", comment: "c", approvers: [] }),
    });
    await expect(gate).rejects.toMatchObject({ status: 401 });
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${V2}/environments/ws/${ws.id} 401`,
      `GET ${V2}/environments/ws/${ws.id} 401`,
    ]);
  });
});

describe("through the gRPC host", () => {
  it("submits once, reports it on the next up, and records the applied definition after approval", async () => {
    const host = hostDefs;
    const { flag, id, olds } = await seeded();
    const news = await checked(host, programFor(flag, 20));
    const first = await host.update(id, olds, news);
    const pending = first.outs.pendingChangeRequest as { id: string };
    expect(first.outs.pendingChangeRequest).toEqual({
      id: pending.id,
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    expect(first.outs.defaultRule).toEqual(doc(50).defaultRule);
    const second = await host.update(id, first.outs, news);
    expect(second.outs.pendingChangeRequest).toEqual(first.outs.pendingChangeRequest);
    const open = [];
    for await (const cr of bed.admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId })) {
      if ((cr.split as { name: string } | null)?.name === flag) open.push(cr.id);
    }
    expect(open).toEqual([pending.id]);
    await approver.changeRequests.approve(pending.id, "ok");
    const third = await host.update(id, second.outs, news);
    expect(third.outs.pendingChangeRequest).toBeUndefined();
    expect(third.outs.defaultRule).toEqual(doc(20).defaultRule);
  });
});

describe("check", () => {
  const base = programFor("any-flag", 50);
  itRefusesWithNoRequest(
    [
      [
        "an empty title",
        { ...base, changeRequest: { title: "" } },
        "changeRequest.title",
        "must not be empty",
      ],
      [
        "an empty approver",
        { ...base, changeRequest: { approvers: [""] } },
        "changeRequest.approvers[0]",
        "an approver must not be empty",
      ],
      [
        "a negative timeout",
        { ...base, waitForApproval: { timeoutSeconds: -1 } },
        "waitForApproval.timeoutSeconds",
        "must be positive",
      ],
      [
        "no timeout",
        { ...base, waitForApproval: { pollSeconds: 5 } },
        "waitForApproval.timeoutSeconds",
        "must be a number",
      ],
      [
        "an unknown member",
        { ...base, waitForApproval: { timeoutSeconds: 5, every: 1 } },
        "waitForApproval.every",
        "unknown property",
      ],
    ],
    () => ({ bed, drivers: { direct: defs, "gRPC host": hostDefs } as Record<Mode, Driver> }),
  );
});

describe("the change request's note", () => {
  it("defaults to the resource's change title and comment, with no approvers", async () => {
    const { flag, id, olds } = await seeded();
    const { changeRequest: _c, ...program } = programFor(flag, 30);
    bed.reset();
    await defs.update(id, { ...olds, changeRequest: undefined }, await checked(defs, program));
    expect(bed.proxy.writes().at(-1)?.body).toMatchObject({
      operationType: "UPDATE",
      title: TITLE,
      comment: `update of flag "${flag}" in environment "Gated" by flagstack (Pulumi stack shop/dev)`,
      approvers: [],
    });
  });
});

describe("an environment without approvals", () => {
  it("is written directly: the same requests as before, no change request", async () => {
    const flag = unique("cr-open");
    await bed.admin.flags.create(ws.id, "user", { name: flag, description: "" });
    const made = await defs.create(await checked(defs, programFor(flag, 50, "Production")));
    bed.reset();
    const r = await defs.update(made.id, made.outs, await checked(defs, programFor(flag, 60, "Production")));
    expect(r.outs.pendingChangeRequest).toBeUndefined();
    expect(bed.proxy.requests().map((x) => `${x.method} ${x.path} ${x.status}`)).toEqual([
      `GET ${V2}/splits/ws/${ws.id}/${made.outs.flagId}/environments/${prodId} 200`,
      `PATCH ${V2}/splits/ws/${ws.id}/${flag}/environments/${prodId} 200`,
    ]);
  });
});

describe("SegmentKeys in an environment that requires approvals", () => {
  const openSegmentRequest = async (name: string) => {
    for (let i = 0; i < 200; i++) {
      for await (const cr of bed.admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId })) {
        if ((cr.segment as { name: string } | null)?.name === name) return cr;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no open change request of ${name}`);
  };
  const membersIn = async (segment: string) => {
    const out: string[] = [];
    for await (const k of bed.admin.segmentKeys.list(gatedId, segment)) out.push(k);
    return out.sort();
  };
  const segmentIn = async () => {
    const segment = unique("cr_seg", "_");
    await bed.admin.segments.create(ws.id, "user", { name: segment });
    const made = await keys.create(
      await checked(keys, { workspace: "Default", environment: "Gated", segment, title: "t", comment: "c" }),
    );
    return { segment, made };
  };
  const program = (segment: string, members: string[]) => ({
    workspace: "Default",
    environment: "Gated",
    segment,
    keys: members,
    title: "t",
    comment: "c",
    changeRequest: { title: "Beta", comment: "two more", approvers: ["qa-leads"] },
  });

  it("submits an addition as a change request, once, applied after a second key approves", async () => {
    const { segment, made } = await segmentIn();
    const news = await checked(keys, program(segment, ["ana", "ben"]));
    bed.reset();
    const first = await keys.update(made.id, made.outs, news);
    const pending = first.outs.pendingChangeRequest as { id: string };
    expect(first.outs.keys).toEqual([]);
    expect(first.outs.pendingChangeRequest).toEqual({
      id: pending.id,
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    expect(
      bed.proxy.writes().map((w) => ({ call: `${w.method} ${w.path} ${w.status}`, body: w.body })),
    ).toEqual([
      {
        call: `PUT ${V2}/segments/${gatedId}/${segment}/uploadKeys 403`,
        body: { keys: ["ana", "ben"], title: "t", comment: "c" },
      },
      { call: `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`, body: [] },
      {
        call: `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
        body: {
          segment: { name: segment, keys: ["ana", "ben"] },
          operationType: "UPDATE",
          title: "Beta",
          comment: "two more",
          approvers: ["qa-leads"],
        },
      },
    ]);
    // The change permissions are read with a dry run, which changes nothing.
    expect(bed.proxy.writes()[1]?.query).toEqual({ dry_run: "true" });
    bed.reset();
    const second = await keys.update(made.id, first.outs, news);
    expect(second.outs.pendingChangeRequest).toEqual(first.outs.pendingChangeRequest);
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${V2}/changeRequests/${pending.id}`,
    ]);

    await approver.changeRequests.approve(pending.id, "ok");
    const refreshed = await keys.read(made.id, second.outs);
    expect(refreshed.props?.keys).toEqual(["ana", "ben"]);
    expect(refreshed.props?.pendingChangeRequest).toBeUndefined();
    expect((await keys.diff(made.id, refreshed.props as Props, news)).changes).toBe(false);
  });

  it("submits a removal as ARCHIVE of the keys removed, applied once approved", async () => {
    const { segment, made } = await segmentIn();
    const cr = await bed.admin.changeRequests.create(ws.id, gatedId, {
      segment: { name: segment, keys: ["ana", "ben"] },
      operationType: "UPDATE",
      title: "seed",
      comment: "seed",
    });
    await approver.changeRequests.approve(cr.id, "ok");
    const olds = { ...made.outs, keys: ["ana", "ben"] };
    bed.reset();
    const r = await keys.update(made.id, olds, await checked(keys, program(segment, ["ana"])));
    expect(r.outs.keys).toEqual(["ana", "ben"]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual({
      segment: { name: segment, keys: ["ben"] },
      operationType: "ARCHIVE",
      title: "Beta",
      comment: "two more",
      approvers: ["qa-leads"],
    });
    await approver.changeRequests.approve((r.outs.pendingChangeRequest as { id: string }).id, "ok");
    expect((await keys.read(made.id, r.outs)).props?.keys).toEqual(["ana"]);
  });

  it("after a colleague approves, the next up reads the request's outcome, records the live members and submits nothing", async () => {
    const { segment, made } = await segmentIn();
    const news = await checked(keys, program(segment, ["ana", "ben"]));
    const first = await keys.update(made.id, made.outs, news);
    const pending = first.outs.pendingChangeRequest as { id: string };
    await approver.changeRequests.approve(pending.id, "ok");
    bed.reset();
    const second = await keys.update(made.id, first.outs, news);
    expect(second.outs).toEqual({ ...made.outs, ...news, keys: ["ana", "ben"] });
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${V2}/changeRequests/${pending.id} 200`,
      `GET ${V2}/segments/${gatedId}/${segment}/keys 200`,
    ]);
    // Settled: the next up has nothing to change, and sends nothing.
    expect((await keys.diff(made.id, second.outs, news)).changes).toBe(false);
    let open = 0;
    for await (const cr of bed.admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId })) {
      if ((cr.segment as { name: string } | null)?.name === segment) open += 1;
    }
    expect(open).toBe(0);
  });

  it("after approval, a further change starts from the live members: one request of that change alone", async () => {
    const { segment, made } = await segmentIn();
    const first = await keys.update(
      made.id,
      made.outs,
      await checked(keys, program(segment, ["ana", "ben"])),
    );
    await approver.changeRequests.approve((first.outs.pendingChangeRequest as { id: string }).id, "ok");
    bed.reset();
    const next = await keys.update(
      made.id,
      first.outs,
      await checked(keys, program(segment, ["ana", "ben", "cy"])),
    );
    expect(next.outs.keys).toEqual(["ana", "ben"]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual({
      segment: { name: segment, keys: ["cy"] },
      operationType: "UPDATE",
      title: "Beta",
      comment: "two more",
      approvers: ["qa-leads"],
    });
  });

  it("deletes through an ARCHIVE change request of its members: fails naming it until approved, never submits twice, then deactivates", async () => {
    const { segment, made } = await segmentIn();
    const seed = await bed.admin.changeRequests.create(ws.id, gatedId, {
      segment: { name: segment, keys: ["ana", "ben"] },
      operationType: "UPDATE",
      title: "seed",
      comment: "seed",
    });
    await approver.changeRequests.approve(seed.id, "ok");
    const outs = { ...made.outs, keys: ["ana", "ben"], changeRequest: { title: "Retire", comment: "bye" } };
    bed.reset();
    const failure = await keys.delete(made.id, outs).catch((e: Error) => e);
    const cr = await openSegmentRequest(segment);
    expect((failure as Error).message).toBe(
      `environment "Gated" requires approvals: change request ${cr.id} (changeRequests/${cr.id}) to delete the keys of segment "${segment}" in environment "Gated" ` +
        "is REQUESTED; the members stay, and stay in the state, until it is approved. Run the delete again after approval (the request is not submitted again), or set `waitForApproval`",
    );
    expect(
      bed.proxy.writes().map((w) => ({ call: `${w.method} ${w.path} ${w.status}`, body: w.body })),
    ).toEqual([
      { call: `DELETE ${V2}/segments/${gatedId}/${segment} 403`, body: undefined },
      { call: `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`, body: [] },
      {
        call: `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
        body: {
          segment: { name: segment, keys: ["ana", "ben"] },
          operationType: "ARCHIVE",
          title: "Retire",
          comment: "bye",
          approvers: [],
        },
      },
    ]);
    // The members are live: nothing went behind the gate.
    expect(await membersIn(segment)).toEqual(["ana", "ben"]);
    // Again before approval: found, not submitted twice.
    bed.reset();
    await expect(keys.delete(made.id, outs)).rejects.toThrow(`change request ${cr.id} `);
    expect(bed.proxy.writes().filter((w) => w.method === "POST")).toEqual([]);
    await approver.changeRequests.approve(cr.id, "ok");
    await keys.delete(made.id, outs);
    expect(await bed.admin.segmentKeys.activation(ws.id, gatedId, segment)).toBeUndefined();
    expect(await keys.read(made.id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("a delete with waitForApproval succeeds once a second key approves the ARCHIVE request", async () => {
    const { segment, made } = await segmentIn();
    const seed = await bed.admin.changeRequests.create(ws.id, gatedId, {
      segment: { name: segment, keys: ["ana"] },
      operationType: "UPDATE",
      title: "seed",
      comment: "seed",
    });
    await approver.changeRequests.approve(seed.id, "ok");
    const outs = { ...made.outs, keys: ["ana"], waitForApproval: { timeoutSeconds: 10, pollSeconds: 0.05 } };
    const approving = (async () => {
      const cr = await openSegmentRequest(segment);
      await approver.changeRequests.approve(cr.id, "ok");
      return cr;
    })();
    await keys.delete(made.id, outs);
    expect((await approving).operationType).toBe("ARCHIVE");
    expect(await bed.admin.segmentKeys.activation(ws.id, gatedId, segment)).toBeUndefined();
  });

  it("the Segment's delete (its SegmentKeys deletedWith it) removes no member behind the gate: an ARCHIVE request first, named until approved", async () => {
    const { segment } = await segmentIn();
    const seed = await bed.admin.changeRequests.create(ws.id, gatedId, {
      segment: { name: segment, keys: ["ana", "ben"] },
      operationType: "UPDATE",
      title: "seed",
      comment: "seed",
    });
    await approver.changeRequests.approve(seed.id, "ok");
    const { id, props } = (await segments.read(`Default/${segment}`, {})) as { id: string; props: Props };
    bed.reset();
    const failure = await segments.delete(id, props).catch((e: Error) => e);
    const cr = await openSegmentRequest(segment);
    expect((failure as Error).message).toBe(
      `segment "${segment}" in workspace "Default" is not deleted: deleting it would also delete its members in environments that require approvals, without approval. ` +
        `Environment "Gated": change request ${cr.id} (changeRequests/${cr.id}) to delete the keys of segment "${segment}" in environment "Gated" is REQUESTED. ` +
        "The segment stays, and stays in the state, until each is approved; run the delete again then (the requests are not submitted again)",
    );
    expect(
      bed.proxy
        .writes()
        .filter((w) => w.method !== "PATCH")
        .map((w) => w.body),
    ).toEqual([
      {
        segment: { name: segment, keys: ["ana", "ben"] },
        operationType: "ARCHIVE",
        title: TITLE,
        comment: `remove keys of segment "${segment}" in environment "Gated" by flagstack (Pulumi stack shop/dev)`,
        approvers: [],
      },
    ]);
    expect(await membersIn(segment)).toEqual(["ana", "ben"]);
    bed.reset();
    await expect(segments.delete(id, props)).rejects.toThrow(`change request ${cr.id} `);
    expect(bed.proxy.writes().filter((w) => w.method !== "PATCH")).toEqual([]);
    await approver.changeRequests.approve(cr.id, "ok");
    await segments.delete(id, props);
    expect((await segments.read(id, props)).id).toBeUndefined();
  });

  it("after a rejection, the next apply reports it in the door's words (Terraform) and submits the change anew", async () => {
    const { segment, made } = await segmentIn();
    const news = await checked(keys, program(segment, ["ana", "ben"]));
    const first = await keys.update(made.id, made.outs, news);
    const rejectedId = (first.outs.pendingChangeRequest as { id: string }).id;
    await approver.changeRequests.reject(rejectedId, "ben is not in beta");
    const decided = (await bed.admin.changeRequests.get(rejectedId)).comments.at(-1);
    const at = new Date(decided?.timestamp ?? 0).toISOString();
    progress = [];
    bed.reset();
    useDoor(TERRAFORM_WORDS);
    const second = await keys.update(made.id, first.outs, news).finally(() => useDoor(PULUMI_WORDS));
    const next = (second.outs.pendingChangeRequest as { id: string }).id;
    expect(next).not.toBe(rejectedId);
    expect(second.outs.keys).toEqual([]);
    expect(progress).toEqual([
      `change request ${rejectedId} (changeRequests/${rejectedId}) for the keys of segment "${segment}" in environment "Gated", ` +
        `recorded as pending by an earlier \`terraform apply\`, was REJECTED by approver (APPROVER) at ${at}, commenting "ben is not in beta"; ` +
        "nothing of it was applied, so this `terraform apply` makes the change anew",
      `environment "Gated" requires approvals: submitted change request ${next} for the keys of segment "${segment}" in environment "Gated" (REQUESTED)`,
    ]);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `PUT ${V2}/segments/${gatedId}/${segment}/uploadKeys 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
  });

  it("refuses a change that both adds and removes keys, naming keys", async () => {
    const { segment, made } = await segmentIn();
    const olds = { ...made.outs, keys: ["ana"] };
    const failure = await keys
      .update(made.id, olds, await checked(keys, program(segment, ["ben"])))
      .catch((e: Error) => e);
    expect((failure as Error).message).toBe(
      `keys: environment "Gated" requires approvals, and a change request of segment "${segment}" in environment "Gated" either adds ` +
        "keys or removes them (one open change request per segment): this update adds 1 and removes 1. Apply the additions and the removals in two updates",
    );
  });
});
