/**
 * Settling the pending creates of a killed `pulumi up` (provider/core/recover.ts), against the
 * emulator: an object the interrupted run made is adopted into the state with its id and outputs,
 * one it never made is dropped, one someone made before the interrupted update is left alone and
 * reported, and what is not a pending create of a flagstack type passes through untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { configureProvider, resetProvider } from "../../../provider/core/config";
import { type Deployment, settlePendingCreates } from "../../../provider/core/recover";
import { flagProviderText } from "../../../provider/flag";
import { groupProviderText } from "../../../provider/group";
import { KINDS } from "../../../provider/kinds";
import { FLAG_TYPE, GROUP_TYPE } from "../../../provider/types";
import { AdminClient } from "../../../sdk";

let emu: Emulator;
let admin: AdminClient;
let wsId: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  resetProvider();
  configureProvider({
    get: (k) =>
      ({
        "flagstack:adminApiUrl": emu.url,
        "flagstack:adminApiKey": emu.adminKey,
        "flagstack:requestsPerSecond": "1000",
      })[k],
  });
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  wsId = (await admin.workspaces.getByName("Default"))?.id as string;
});
afterAll(async () => {
  resetProvider();
  await emu?.stop();
});

const STACK = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
const PROVIDER = "urn:pulumi:dev::shop::pulumi:providers:pulumi-nodejs::default::0b1a";
const urn = (type: string, name: string) => `urn:pulumi:dev::shop::${type}::${name}`;

const pendingFlag = (name: string, tags: string[] = []) => ({
  type: "creating",
  resource: {
    urn: urn(FLAG_TYPE, name),
    custom: true,
    type: FLAG_TYPE,
    inputs: {
      workspace: "Default",
      trafficType: "user",
      name,
      description: "",
      tags,
      adopt: false,
      __provider: flagProviderText,
    },
    parent: STACK,
    provider: PROVIDER,
  },
});

describe("settlePendingCreates", () => {
  it("adopts what the interrupted run made (finishing its tags), drops what it never made, keeps what is older, passes the rest", async () => {
    const stackResource = { urn: STACK, type: "pulumi:pulumi:Stack", custom: false };
    const older = await admin.flags.create(wsId, "user", { name: "recover-older", description: "" });
    const notBefore = older.creationTime + 1;
    // The interrupted run's create reached the service; its tag PATCH did not.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const made = await admin.flags.create(wsId, "user", { name: "recover-made", description: "" });
    const group = await admin.groups.create({ name: "recover-group", description: "" });
    const updating = { type: "updating", resource: { urn: urn(GROUP_TYPE, "other"), type: GROUP_TYPE } };
    const foreign = {
      type: "creating",
      resource: { urn: urn("aws:s3/bucket:Bucket", "b"), type: "aws:s3/bucket:Bucket" },
    };
    const deployment: Deployment = {
      manifest: { time: "t" },
      resources: [stackResource],
      pending_operations: [
        pendingFlag("recover-made", ["team"]),
        pendingFlag("recover-never"),
        pendingFlag("recover-older"),
        {
          type: "creating",
          resource: {
            urn: urn(GROUP_TYPE, "g"),
            custom: true,
            type: GROUP_TYPE,
            inputs: { name: "recover-group", description: "", adopt: false, __provider: groupProviderText },
            parent: STACK,
          },
        },
        updating,
        foreign,
      ],
    };
    const frozen = JSON.stringify(deployment);
    const now = () => new Date("2026-11-23T12:00:00.000Z");

    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore,
      now,
    });

    expect(JSON.stringify(deployment)).toBe(frozen);
    expect(report).toEqual({
      recovered: [
        { urn: urn(FLAG_TYPE, "recover-made"), id: made.id },
        { urn: urn(GROUP_TYPE, "g"), id: group.id },
      ],
      cleared: [urn(FLAG_TYPE, "recover-never")],
      kept: [
        {
          urn: urn(FLAG_TYPE, "recover-older"),
          reason: `an object with its name exists, created ${new Date(older.creationTime).toISOString()}, before the interrupted update; set \`adopt: true\` to take it over`,
        },
      ],
    });
    expect(next.pending_operations).toEqual([pendingFlag("recover-older"), updating, foreign]);
    const flag = next.resources?.find((r) => r.urn === urn(FLAG_TYPE, "recover-made"));
    expect(flag).toEqual({
      ...pendingFlag("recover-made", ["team"]).resource,
      id: made.id,
      outputs: {
        workspace: "Default",
        trafficType: "user",
        name: "recover-made",
        description: "",
        tags: ["team"],
        rolloutStatus: "Pre-Production",
        owners: [],
        adopt: false,
        flagId: made.id,
        creationTime: made.creationTime,
        rolloutStatusId: made.rolloutStatus.id,
        rolloutStatusTimestamp: made.rolloutStatusTimestamp,
        workspaceId: wsId,
        workspaceName: "Default",
        trafficTypeId: made.trafficType.id,
        __provider: flagProviderText,
      },
      created: "2026-11-23T12:00:00.000Z",
      modified: "2026-11-23T12:00:00.000Z",
    });
    // Adopting finished the interrupted create: the tag is on the service now.
    expect((await admin.flags.get(wsId, "recover-made")).tags).toEqual([{ name: "team" }]);
    // The object someone else made was not touched, and nothing was created for the dropped one.
    expect((await admin.flags.get(wsId, "recover-older")).tags ?? []).toEqual([]);
    const names: string[] = [];
    for await (const f of admin.flags.list(wsId)) names.push(f.name);
    expect(names.sort()).toEqual(["recover-made", "recover-older"]);
    expect(next.resources?.map((r) => r.urn)).toEqual([
      STACK,
      urn(FLAG_TYPE, "recover-made"),
      urn(GROUP_TYPE, "g"),
    ]);
  });

  it("a state with no pending operation is returned as it was", async () => {
    const deployment: Deployment = { resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }] };
    expect(await settlePendingCreates(deployment, { kinds: KINDS, notBefore: 0 })).toEqual({
      deployment,
      report: { recovered: [], cleared: [], kept: [] },
    });
  });
});
