/**
 * RuleBasedSegmentDefinition lifecycle against the emulator, directly and through the gRPC host:
 * check (failures naming the field, matcher rules of a definition's rules, no request), create
 * (activation POST, then one PUT of the exact body), read, no-op diff (same meaning), one field
 * changed = one PUT (the other fields as live), refresh after an out-of-band change, the update
 * guard, delete, delete again, gone, adopt, a lost activation answer, import. In an environment
 * that requires approvals (as test/provider/core/change-request.test.ts for FlagDefinition and
 * SegmentKeys): the refused PUT becomes a change request with the exact body, the state records
 * what is live plus `pendingChangeRequest`, a second `up` submits nothing, a second admin key
 * approves through the SDK and the next refresh shows no diff; `waitForApproval` reads the
 * applied definition back, and its timeout leaves the open request to the next `up`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setProgressSink } from "../../../provider/core/change-request";
import { settlePendingCreates } from "../../../provider/core/recover";
import { impl as rbs, ruleBasedSegmentProviderText } from "../../../provider/flags/rule-based-segment";
import {
  impl,
  ruleBasedSegmentDefinitionProviderText,
} from "../../../provider/flags/rule-based-segment-definition";
import { KINDS } from "../../../provider/kinds";
import { RULE_BASED_SEGMENT_DEFINITION_TYPE } from "../../../provider/types";
import { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { createGatedEnvironment, slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let ws: Workspace;
let prodId: string;
const V2 = "/internal/api/v2";

beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prodId = (await bed.admin.environments.find(ws.id, "Production"))?.id as string;
});
afterAll(async () => {
  await bed?.stop();
});

const proRule = {
  condition: {
    combiner: "AND" as const,
    matchers: [{ type: "EQUAL_SET" as const, attribute: "plan", strings: ["pro"] }],
  },
};
const teamRule = {
  condition: {
    combiner: "AND",
    matchers: [{ type: "MATCHES_STRING", attribute: "email", string: "@team\\.io$" }],
  },
};
const note = { title: "Pro users", comment: "managed by Pulumi" };
/** The paths of the members holding `undefined`, which the engine's protobuf Struct refuses ("Unexpected struct type."). */
const undefinedMembers = (value: unknown, path = ""): string[] => {
  if (value === undefined) return [path];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => undefinedMembers(v, path === "" ? k : `${path}.${k}`));
};

describe.each(MODES)("RuleBasedSegmentDefinition (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`rbsdef_${slug(mode)}`, "_");
  const programFor = (segment: string, change: Record<string, unknown> = {}) => ({
    workspace: "Default",
    environment: "Production",
    segment,
    rules: [proRule],
    excludedKeys: ["qa-bot"],
    ...note,
    ...change,
  });
  const declared = (segment: string, change: Record<string, unknown> = {}) => ({
    workspace: "Default",
    environment: "Production",
    segment,
    rules: [proRule],
    excludedKeys: ["qa-bot"],
    excludedSegments: [],
    ...note,
    adopt: false,
    ...change,
  });
  /** A rule-based segment of the test's own (workspace level), not active anywhere. */
  const segmentOfOwn = async () => {
    const name = fresh();
    await bed.admin.ruleBasedSegments.create(ws.id, "user", { name });
    return name;
  };
  const createdDefinition = async (change: Record<string, unknown> = {}) => {
    const segment = await segmentOfOwn();
    const { id, outs } = await p.create((await p.check({}, programFor(segment, change))).inputs);
    return { segment, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, ruleBasedSegmentDefinitionProviderText);
  });

  it("checks: defaults applied, excluded keys and segments sorted sets", async () => {
    const checked = await p.check(
      {},
      programFor("pro_users", {
        rules: [{ condition: { matchers: proRule.condition.matchers } }],
        excludedKeys: ["zed", "qa-bot", "zed"],
        excludedSegments: [
          { name: "staff", type: "standard" },
          { name: "bots", type: "large" },
          { name: "staff", type: "standard" },
        ],
      }),
    );
    expect(checked).toEqual({
      inputs: declared("pro_users", {
        excludedKeys: ["qa-bot", "zed"],
        excludedSegments: [
          { name: "bots", type: "large" },
          { name: "staff", type: "standard" },
        ],
      }),
      failures: [],
    });
  });

  it("refuses bad input naming each field, by the rules of a definition's rules, with no request", async () => {
    bed.reset();
    const fieldFailures = await p.check(
      {},
      {
        workspace: "Default",
        environment: "",
        segment: "pro users",
        rules: [{ condition: { matchers: [{ type: "IN_LIST" }] } }],
        excludedKeys: [""],
        excludedSegments: [{ name: "staff" }],
      },
    );
    expect(fieldFailures.failures).toEqual([
      { property: "environment", reason: "environment must not be empty" },
      {
        property: "segment",
        reason: "name must start with a letter and use only letters, digits, '-' and '_'",
      },
      {
        property: "rules[0].condition.matchers[0].type",
        reason: expect.stringContaining("Invalid option"),
      },
      { property: "excludedKeys[0]", reason: "an excluded key must not be empty" },
      { property: "excludedSegments[0].type", reason: expect.any(String) },
    ]);
    const documentFailures = await p.check(
      {},
      programFor("pro_users", {
        rules: [
          { condition: { matchers: [{ type: "EQUAL_SET", attribute: "plan" }] } },
          { condition: { matchers: [] } },
        ],
      }),
    );
    expect(documentFailures.failures).toEqual([
      { property: "rules[1].condition.matchers", reason: "a condition needs at least one matcher" },
    ]);
    const matcherFailures = await p.check(
      {},
      programFor("pro_users", {
        rules: [{ condition: { matchers: [{ type: "EQUAL_SET", attribute: "plan" }] } }],
      }),
    );
    expect(matcherFailures.failures).toEqual([
      {
        property: "rules[0].condition.matchers[0].strings",
        reason: "strings is required for a EQUAL_SET matcher",
      },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with the activation POST, then one PUT of the exact body; the id is the natural key", async () => {
    const segment = await segmentOfOwn();
    const inputs = (await p.check({}, programFor(segment))).inputs;
    bed.reset();
    const created = await p.create(inputs);
    expect(created).toEqual({
      id: `${prodId}/${segment}`,
      outs: {
        ...inputs,
        workspaceId: ws.id,
        workspaceName: "Default",
        environmentId: prodId,
        environmentName: "Production",
        trafficType: "user",
        creationTime: expect.any(Number),
      },
    });
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/rule-based-segments/${prodId}/${segment}`,
        query: {},
        body: undefined,
        status: 200,
      },
      {
        method: "PUT",
        path: `${V2}/rule-based-segments/ws/${ws.id}/${segment}/environments/${prodId}`,
        query: {},
        body: { rules: [proRule], excludedKeys: ["qa-bot"], excludedSegments: [], ...note },
        status: 200,
      },
    ]);
  });

  it("an empty definition is the activation alone", async () => {
    const segment = await segmentOfOwn();
    bed.reset();
    const created = await p.create(
      (await p.check({}, { workspace: "Default", environment: "Production", segment })).inputs,
    );
    expect(created.outs).toMatchObject({ rules: [], excludedKeys: [], excludedSegments: [] });
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
  });

  it("reads what it created", async () => {
    const { segment, id, outs } = await createdDefinition();
    expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs: declared(segment) });
  });

  it("reports no change for the same meaning, with no request", async () => {
    const { segment, id, outs } = await createdDefinition({ excludedKeys: ["qa-bot", "ann"] });
    bed.reset();
    const news = (
      await p.check(
        outs,
        programFor(segment, {
          workspace: ws.id,
          environment: prodId,
          rules: [
            {
              condition: {
                matchers: [{ type: "EQUAL_SET", attribute: "plan", strings: ["pro", "pro"], negate: false }],
              },
            },
          ],
          excludedKeys: ["ann", "qa-bot", "ann"],
          title: "another note",
        }),
      )
    ).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("one field changed is one PUT: that field desired, the others as live", async () => {
    const { segment, id, outs } = await createdDefinition();
    const news = (await p.check(outs, programFor(segment, { rules: [proRule, teamRule] }))).inputs;
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.reset();
    const updated = (await p.update(id, outs, news)).outs;
    expect(bed.proxy.writes()).toEqual([
      {
        method: "PUT",
        path: `${V2}/rule-based-segments/ws/${ws.id}/${segment}/environments/${prodId}`,
        query: {},
        body: { rules: [proRule, teamRule], excludedKeys: ["qa-bot"], excludedSegments: [], ...note },
        status: 200,
      },
    ]);
    expect(updated).toEqual({ ...outs, rules: [proRule, teamRule] });
    expect(await p.diff(id, updated, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("a colleague's edit equal to the program's change: nothing written, plain outputs carrying the program's note", async () => {
    const { title: _t, comment: _c, ...bare } = programFor("");
    const segment = await segmentOfOwn();
    const made = await p.create((await p.check({}, { ...bare, segment })).inputs);
    // No title, comment, changeRequest or waitForApproval: the members the engine cannot carry as undefined.
    const news = (await p.check(made.outs, { ...bare, segment, rules: [proRule, teamRule] })).inputs;
    await bed.admin.ruleBasedSegments.put(ws.id, segment, prodId, {
      rules: [proRule, teamRule as never],
      excludedKeys: ["qa-bot"],
      excludedSegments: [],
    });
    bed.reset();
    const updated = (await p.update(made.id, made.outs, news)).outs;
    expect(bed.proxy.writes()).toEqual([]);
    expect(updated).toEqual({ ...made.outs, rules: [proRule, teamRule] });
    // A new note is recorded as the program gives it, with nothing written either.
    const noted = (await p.check(updated, { ...bare, segment, rules: [proRule, teamRule], title: "later" }))
      .inputs;
    await bed.admin.ruleBasedSegments.put(ws.id, segment, prodId, {
      rules: [proRule],
      excludedKeys: ["qa-bot"],
      excludedSegments: [],
    });
    const again = (await p.update(made.id, updated, { ...noted, rules: [proRule] })).outs;
    expect(again).toEqual({ ...made.outs, title: "later" });
    if (mode === "direct") {
      const raw = await impl.update(made.id, again as never, { ...news, rules: [proRule] } as never);
      expect(undefinedMembers(raw.outs)).toEqual([]);
    }
  });

  it("a new segment or environment replaces, deleting first", async () => {
    const { id, outs } = await createdDefinition();
    const news = (await p.check(outs, programFor("other_segment"))).inputs;
    expect(await p.diff(id, outs, news)).toEqual({
      changes: true,
      replaces: ["segment"],
      deleteBeforeReplace: true,
    });
  });

  it("refresh shows an out-of-band change; an update of another field keeps it, one of that field is refused", async () => {
    const { segment, id, outs } = await createdDefinition();
    await bed.admin.ruleBasedSegments.put(ws.id, segment, prodId, {
      rules: [proRule],
      excludedKeys: ["qa-bot", "intruder"],
      excludedSegments: [],
    });
    const read = await p.read(id, outs);
    expect(read.props).toEqual({ ...outs, excludedKeys: ["intruder", "qa-bot"] });
    expect(read.inputs).toMatchObject({ excludedKeys: ["intruder", "qa-bot"] });
    // The recorded state is stale: a change of the rules keeps the colleague's excluded key.
    const rulesOnly = (await p.check(outs, programFor(segment, { rules: [teamRule] }))).inputs;
    bed.reset();
    const updated = (await p.update(id, outs, rulesOnly)).outs;
    expect(bed.proxy.writes().map((w) => w.body)).toEqual([
      { rules: [teamRule], excludedKeys: ["intruder", "qa-bot"], excludedSegments: [], ...note },
    ]);
    expect(updated).toMatchObject({ rules: [teamRule], excludedKeys: ["intruder", "qa-bot"] });
    // A change of the field the colleague changed is refused, naming it, with nothing written.
    const keys = (await p.check(outs, programFor(segment, { excludedKeys: ["qa-bot", "other"] }))).inputs;
    bed.reset();
    await expect(p.update(id, outs, keys)).rejects.toThrow("excludedKeys: recorded");
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("deletes with one DELETE, deleting again succeeds, and a gone definition reads as gone", async () => {
    const { segment, id, outs } = await createdDefinition();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/rule-based-segments/${prodId}/${segment}`]);
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
    expect(await p.read(id, outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("refuses a segment already active unless adopt is set, then PUTs only when the definition differs", async () => {
    const segment = await segmentOfOwn();
    await bed.admin.ruleBasedSegments.activate(prodId, segment);
    await expect(p.create((await p.check({}, programFor(segment))).inputs)).rejects.toThrow(
      `rule-based segment "${segment}" active in environment "Production" of workspace "Default" already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, programFor(segment, { adopt: true }))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["PUT"]);
    expect(adopted.outs).toMatchObject({ rules: [proRule], adopt: true });
    bed.reset();
    await p.create((await p.check({}, programFor(segment, { adopt: true }))).inputs);
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("recovers an activation whose response was lost without activating twice", async () => {
    const segment = await segmentOfOwn();
    bed.reset();
    bed.proxy.once(
      { method: "POST", path: new RegExp(`/rule-based-segments/${prodId}/${segment}$`) },
      { lose: true },
    );
    const created = await p.create((await p.check({}, programFor(segment))).inputs);
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST", "PUT"]);
    expect(created.outs).toMatchObject({ segment, rules: [proRule] });
  });

  it("`flagstack recover` settles a killed create: activated by it = adopted and finished, never activated = dropped", async () => {
    if (mode !== "direct") return; // settling a state runs in the CLI's process
    const made = await segmentOfOwn();
    const never = await segmentOfOwn();
    await bed.admin.ruleBasedSegments.activate(prodId, made);
    const T = RULE_BASED_SEGMENT_DEFINITION_TYPE;
    const pending = (segment: string) => ({
      type: "creating",
      resource: {
        urn: `urn:pulumi:dev::shop::${T}::${segment}`,
        custom: true,
        type: T,
        inputs: { ...declared(segment), __provider: ruleBasedSegmentDefinitionProviderText },
      },
    });
    const { deployment, report } = await settlePendingCreates(
      { resources: [], pending_operations: [pending(made), pending(never)] },
      { kinds: KINDS, notBefore: 0 },
    );
    expect(report).toEqual({
      recovered: [{ urn: `urn:pulumi:dev::shop::${T}::${made}`, id: `${prodId}/${made}` }],
      cleared: [`urn:pulumi:dev::shop::${T}::${never}`],
      kept: [],
      recorded: [],
      unknown: [],
    });
    expect(deployment.resources?.[0]?.outputs).toMatchObject({ segment: made, rules: [proRule] });
    // Adopting finished the interrupted create: the rules are on the service now.
    expect((await bed.admin.ruleBasedSegments.definition(ws.id, prodId, made))?.rules).toEqual([proRule]);
    expect(await bed.admin.ruleBasedSegments.definition(ws.id, prodId, never)).toBeUndefined();
  });

  it("imports by <workspace>/<environment>/<segment>", async () => {
    const { segment, outs } = await createdDefinition();
    if (mode !== "direct") return; // the import read has no state: the native provider's path
    const read = await impl.read(`Default/Production/${segment}`, {} as never);
    expect(read).toEqual({
      id: `${prodId}/${segment}`,
      props: { ...outs, title: undefined, comment: undefined, adopt: false },
      inputs: expect.objectContaining({ rules: [proRule], excludedKeys: ["qa-bot"] }),
    });
  });
});

describe("RuleBasedSegmentDefinition in an environment that requires approvals", () => {
  let gatedId: string;
  let approver: AdminClient;
  let p: Driver;
  let host: Driver;
  let progress: string[] = [];
  let previousSink: ((m: string) => void) | undefined;
  const crNote = { title: "Pro users", comment: "gate it", approvers: ["lead@example.com"] };
  const gatedProgram = (segment: string, change: Record<string, unknown> = {}) => ({
    workspace: "Default",
    environment: "Gated",
    segment,
    rules: [proRule],
    excludedKeys: ["qa-bot"],
    changeRequest: crNote,
    ...change,
  });
  const checkedIn = async (d: Driver, program: Record<string, unknown>) => {
    const r = await d.check({}, program);
    expect(r.failures).toEqual([]);
    return r.inputs;
  };
  /** A rule-based segment active in Gated with an empty definition, recorded by a create (no PUT). */
  const activeInGated = async (d: Driver) => {
    const segment = unique("rbs_gated", "_");
    await bed.admin.ruleBasedSegments.create(ws.id, "user", { name: segment });
    const { id, outs } = await d.create(
      await checkedIn(d, gatedProgram(segment, { rules: [], excludedKeys: [] })),
    );
    return { segment, id, outs };
  };
  const requestLines = () => bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`);
  const crBody = (segment: string, over: Record<string, unknown> = {}) => ({
    ruleBasedSegment: { name: segment, rules: [proRule], excludedKeys: ["qa-bot"], excludedSegments: [] },
    operationType: "UPDATE",
    ...crNote,
    ...over,
  });
  const openRequestOf = async (name: string) => {
    for (let i = 0; i < 200; i++) {
      for await (const cr of bed.admin.changeRequests.list({ status: "REQUESTED", environmentId: gatedId })) {
        if ((cr.ruleBasedSegment as { name: string } | null)?.name === name) return cr;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no open change request of ${name}`);
  };

  beforeAll(async () => {
    gatedId = await createGatedEnvironment(bed.admin, ws.id);
    const key = await bed.admin.apiKeys.create({
      name: "rbs-approver",
      apiKeyType: "admin",
      roles: ["API_ALL_GRANTED"],
      workspace: { type: "workspace", id: ws.id },
    });
    approver = new AdminClient({ baseUrl: bed.emu.url, apiKey: key.key, requestsPerSecond: 1000 });
    p = await bed.driver("direct", impl, ruleBasedSegmentDefinitionProviderText);
    host = await bed.driver("gRPC host", impl, ruleBasedSegmentDefinitionProviderText);
    previousSink = setProgressSink((m) => progress.push(m));
  });
  afterAll(() => {
    if (previousSink) setProgressSink(previousSink);
  });
  afterEach(() => {
    progress = [];
  });

  it("submits an update as a change request, records what is live, never submits it twice, and is applied once approved", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const news = await checkedIn(p, gatedProgram(segment));
    bed.reset();
    const first = await p.update(id, outs, news);
    const pending = first.outs.pendingChangeRequest as { id: string };
    expect(first.outs.pendingChangeRequest).toEqual({
      id: pending.id,
      status: "REQUESTED",
      reference: `changeRequests/${pending.id}`,
    });
    // What is live, not the requested change.
    expect(first.outs).toMatchObject({ rules: [], excludedKeys: [], excludedSegments: [] });
    expect(requestLines()).toEqual([
      `GET ${V2}/rule-based-segments/ws/${ws.id}/environments/${gatedId} 200`,
      `PUT ${V2}/rule-based-segments/ws/${ws.id}/${segment}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `GET ${V2}/changeRequests 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual(crBody(segment));
    expect(progress).toEqual([
      `environment "Gated" requires approvals: submitted change request ${pending.id} for the definition of rule-based segment "${segment}" in environment "Gated" (REQUESTED)`,
    ]);

    // The next `up` sees the difference again, reads the recorded request, and submits nothing.
    expect((await p.diff(id, first.outs, news)).changes).toBe(true);
    bed.reset();
    const second = await p.update(id, first.outs, news);
    expect(second.outs.pendingChangeRequest).toEqual(first.outs.pendingChangeRequest);
    expect(second.outs.rules).toEqual([]);
    expect(requestLines()).toEqual([
      `GET ${V2}/rule-based-segments/ws/${ws.id}/environments/${gatedId} 200`,
      `GET ${V2}/changeRequests/${pending.id} 200`,
    ]);
    expect(bed.proxy.writes()).toEqual([]);

    // A second admin key approves through the SDK: refresh shows the program's definition, no diff.
    await approver.changeRequests.approve(pending.id, "ship it");
    expect((await bed.admin.ruleBasedSegments.definition(ws.id, gatedId, segment))?.rules).toEqual([proRule]);
    const refreshed = await p.read(id, second.outs);
    expect(refreshed.props?.pendingChangeRequest).toBeUndefined();
    expect(refreshed.props).toMatchObject({ rules: [proRule], excludedKeys: ["qa-bot"] });
    expect((await p.diff(id, refreshed.props as Record<string, unknown>, news)).changes).toBe(false);
  });

  it("creates through a change request: the activation, then the live (empty) definition recorded as pending", async () => {
    const segment = unique("rbs_gated", "_");
    await bed.admin.ruleBasedSegments.create(ws.id, "user", { name: segment });
    const inputs = await checkedIn(p, gatedProgram(segment));
    bed.reset();
    const created = await p.create(inputs);
    const pending = created.outs.pendingChangeRequest as { id: string };
    expect(created).toEqual({
      id: `${gatedId}/${segment}`,
      outs: {
        ...inputs,
        rules: [],
        excludedKeys: [],
        excludedSegments: [],
        workspaceId: ws.id,
        workspaceName: "Default",
        environmentId: gatedId,
        environmentName: "Gated",
        trafficType: "user",
        creationTime: expect.any(Number),
        pendingChangeRequest: {
          id: pending.id,
          status: "REQUESTED",
          reference: `changeRequests/${pending.id}`,
        },
      },
    });
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `POST ${V2}/rule-based-segments/${gatedId}/${segment} 200`,
      `PUT ${V2}/rule-based-segments/ws/${ws.id}/${segment}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual(crBody(segment));
    // Read while open: still pending, the live definition.
    const read = await p.read(created.id, created.outs);
    expect(read.props).toEqual(created.outs);
    expect(read.inputs).not.toHaveProperty("pendingChangeRequest");
  });

  it("refuses a different change while the recorded request is open, naming it", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const first = await p.update(id, outs, await checkedIn(p, gatedProgram(segment)));
    const pending = first.outs.pendingChangeRequest as { id: string };
    const other = await checkedIn(p, gatedProgram(segment, { excludedKeys: ["qa-bot", "zed"] }));
    bed.reset();
    await expect(p.update(id, first.outs, other)).rejects.toThrow(
      `change request ${pending.id} (changeRequests/${pending.id}) for the definition of rule-based segment "${segment}" in environment "Gated" is open (REQUESTED) with a different change, ` +
        "and the service takes one open change request per object: approve, reject or withdraw it, then run `pulumi up` again",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("waitForApproval: polls with a progress line until a second key approves, then records the applied definition", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const news = await checkedIn(
      p,
      gatedProgram(segment, { waitForApproval: { timeoutSeconds: 10, pollSeconds: 0.05 } }),
    );
    const approving = (async () => {
      const cr = await openRequestOf(segment);
      await approver.changeRequests.approve(cr.id, "ok");
      return cr.id;
    })();
    const r = await p.update(id, outs, news);
    const crId = await approving;
    expect(r.outs.pendingChangeRequest).toBeUndefined();
    expect(r.outs).toMatchObject({ rules: [proRule], excludedKeys: ["qa-bot"], excludedSegments: [] });
    expect(progress[0]).toBe(
      `environment "Gated" requires approvals: submitted change request ${crId} for the definition of rule-based segment "${segment}" in environment "Gated" (REQUESTED)`,
    );
    expect(
      progress.slice(1).every((m) => m.startsWith(`waiting for change request ${crId} (REQUESTED, `)),
    ).toBe(true);
    expect((await p.diff(id, r.outs, news)).changes).toBe(false);
  });

  it("waitForApproval fails on the timeout, and the next up finds the open request instead of submitting another", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const news = await checkedIn(
      p,
      gatedProgram(segment, { waitForApproval: { timeoutSeconds: 0.1, pollSeconds: 0.05 } }),
    );
    await expect(p.update(id, outs, news)).rejects.toThrow(/is still REQUESTED after 0.1s/);
    const open = await openRequestOf(segment);
    bed.reset();
    const next = await p.update(id, outs, await checkedIn(p, gatedProgram(segment)));
    expect(next.outs.pendingChangeRequest).toEqual({
      id: open.id,
      status: "REQUESTED",
      reference: `changeRequests/${open.id}`,
    });
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `PUT ${V2}/rule-based-segments/ws/${ws.id}/${segment}/environments/${gatedId} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
    ]);
    expect(progress.at(-1)).toBe(
      `change request ${open.id} for the definition of rule-based segment "${segment}" in environment "Gated" is already open (REQUESTED): not submitted again`,
    );
  });

  it("after approval, the next up writes nothing and records the applied definition (gRPC host and direct: plain outputs)", async () => {
    for (const d of [host, p]) {
      const { segment, id, outs } = await activeInGated(d);
      // The program gives no title or comment: nothing the engine cannot carry may stand for them.
      const news = await checkedIn(d, gatedProgram(segment));
      const first = await d.update(id, outs, news);
      const pending = first.outs.pendingChangeRequest as { id: string };
      await approver.changeRequests.approve(pending.id, "ok");
      bed.reset();
      const next = await d.update(id, first.outs, news);
      expect(next.outs).toEqual({
        ...outs,
        rules: [proRule],
        excludedKeys: ["qa-bot"],
        changeRequest: crNote,
      });
      expect(bed.proxy.writes()).toEqual([]);
      expect(requestLines()).toEqual([
        `GET ${V2}/rule-based-segments/ws/${ws.id}/environments/${gatedId} 200`,
        `GET ${V2}/changeRequests/${pending.id} 200`,
      ]);
      expect((await d.diff(id, next.outs, news)).changes).toBe(false);
      if (d === p) {
        const raw = await impl.update(id, first.outs as never, news as never);
        expect(undefinedMembers(raw.outs)).toEqual([]);
      }
    }
  });

  it("after approval, a further change starts from the live definition: one request of it, not a refusal", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const first = await p.update(id, outs, await checkedIn(p, gatedProgram(segment)));
    await approver.changeRequests.approve((first.outs.pendingChangeRequest as { id: string }).id, "ok");
    bed.reset();
    const next = await p.update(
      id,
      first.outs,
      await checkedIn(p, gatedProgram(segment, { excludedKeys: [] })),
    );
    expect(next.outs).toMatchObject({ rules: [proRule], excludedKeys: ["qa-bot"] });
    expect(bed.proxy.writes().at(-1)?.body).toEqual(
      crBody(segment, {
        ruleBasedSegment: { name: segment, rules: [proRule], excludedKeys: [], excludedSegments: [] },
      }),
    );
  });

  it("deletes through an ARCHIVE change request: fails naming it until approved, never submits twice, and the definition stays live", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const first = await p.update(id, outs, await checkedIn(p, gatedProgram(segment)));
    await approver.changeRequests.approve((first.outs.pendingChangeRequest as { id: string }).id, "ok");
    const live = (await p.read(id, first.outs)).props as Record<string, unknown>;
    bed.reset();
    const failure = await p.delete(id, live).catch((e: Error) => e);
    const cr = await openRequestOf(segment);
    expect((failure as Error).message).toBe(
      `environment "Gated" requires approvals: change request ${cr.id} (changeRequests/${cr.id}) to delete the definition of rule-based segment "${segment}" in environment "Gated" ` +
        "is REQUESTED; the definition stays, and stays in the state, until it is approved. Run the delete again after approval (the request is not submitted again), or set `waitForApproval`",
    );
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      `DELETE ${V2}/rule-based-segments/${gatedId}/${segment} 403`,
      `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} 200`,
      `POST ${V2}/changeRequests/ws/${ws.id}/environments/${gatedId} 200`,
    ]);
    expect(bed.proxy.writes().at(-1)?.body).toEqual(crBody(segment, { operationType: "ARCHIVE" }));
    expect((await bed.admin.ruleBasedSegments.definition(ws.id, gatedId, segment))?.rules).toEqual([proRule]);
    bed.reset();
    await expect(p.delete(id, live)).rejects.toThrow(`change request ${cr.id} `);
    expect(bed.proxy.writes().filter((w) => w.method === "POST")).toEqual([]);
    await approver.changeRequests.approve(cr.id, "ok");
    await p.delete(id, live);
    expect(await bed.admin.ruleBasedSegments.definition(ws.id, gatedId, segment)).toBeUndefined();
    expect(await p.read(id, live)).toEqual({ id: undefined, props: undefined, inputs: undefined });
  });

  it("the RuleBasedSegment's delete (its definitions deletedWith it) takes no definition out behind the gate: an ARCHIVE request first, named until approved", async () => {
    const { segment, id, outs } = await activeInGated(p);
    const first = await p.update(id, outs, await checkedIn(p, gatedProgram(segment)));
    await approver.changeRequests.approve((first.outs.pendingChangeRequest as { id: string }).id, "ok");
    const owner = await bed.driver("direct", rbs, ruleBasedSegmentProviderText);
    const { id: ownerId, props } = (await owner.read(`Default/${segment}`, {})) as {
      id: string;
      props: Record<string, unknown>;
    };
    bed.reset();
    const failure = await owner.delete(ownerId, props).catch((e: Error) => e);
    const cr = await openRequestOf(segment);
    expect((failure as Error).message).toBe(
      `rule-based segment "${segment}" in workspace "Default" is not deleted: deleting it would also delete its definitions in environments that require approvals, without approval. ` +
        `Environment "Gated": change request ${cr.id} (changeRequests/${cr.id}) to delete the definition of rule-based segment "${segment}" in environment "Gated" is REQUESTED. ` +
        "The rule-based segment stays, and stays in the state, until each is approved; run the delete again then (the requests are not submitted again)",
    );
    expect(
      bed.proxy
        .writes()
        .filter((w) => w.method !== "PATCH")
        .map((w) => w.body),
    ).toEqual([
      {
        ...crBody(segment, { operationType: "ARCHIVE" }),
        title: "pulumi up: shop/dev",
        comment: `delete of rule-based segment "${segment}" in environment "Gated" by flagstack (Pulumi stack shop/dev)`,
        approvers: [],
      },
    ]);
    expect((await bed.admin.ruleBasedSegments.definition(ws.id, gatedId, segment))?.rules).toEqual([proRule]);
    await approver.changeRequests.approve(cr.id, "ok");
    await owner.delete(ownerId, props);
    expect((await owner.read(ownerId, props)).id).toBeUndefined();
  });

  it("through the gRPC host: submits once, reports it on the next up, and records the applied definition after approval", async () => {
    const { segment, id, outs } = await activeInGated(host);
    const news = await checkedIn(host, gatedProgram(segment));
    const first = await host.update(id, outs, news);
    const pending = first.outs.pendingChangeRequest as { id: string; status: string };
    expect(pending.status).toBe("REQUESTED");
    bed.reset();
    const second = await host.update(id, first.outs, news);
    expect(second.outs.pendingChangeRequest).toEqual(first.outs.pendingChangeRequest);
    expect(bed.proxy.writes()).toEqual([]);
    await approver.changeRequests.approve(pending.id, "ok");
    const refreshed = await host.read(id, second.outs);
    expect(refreshed.props?.pendingChangeRequest).toBeUndefined();
    expect(refreshed.props?.rules).toEqual([proRule]);
  });
});
