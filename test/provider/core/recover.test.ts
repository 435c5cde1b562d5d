/**
 * Settling the pending creates of a killed `pulumi up` (provider/core/recover.ts), against the
 * emulator: an object the interrupted run made is adopted into the state with its id and outputs,
 * one it never made is dropped, one someone made before the interrupted update is left alone and
 * reported, and what is not a pending create of a flagstack type passes through untouched. A
 * secret input is checked revealed and written back encrypted; a pending create that a later
 * update recorded is dropped, never a second resource of its URN.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { configureProvider, resetProvider } from "../../../provider/core/config";
import {
  asSecret,
  type Deployment,
  revealSecrets,
  SECRET_SIG,
  SECRET_SIG_KEY,
  settlePendingCreates,
} from "../../../provider/core/recover";
import { type ApiKeyInputs, impl as apiKeyImpl, apiKeyProviderText } from "../../../provider/flags/api-key";
import { environmentProviderText } from "../../../provider/flags/environment";
import { flagProviderText } from "../../../provider/flags/flag";
import { groupProviderText } from "../../../provider/flags/group";
import { KINDS } from "../../../provider/kinds";
import { secretProviderText } from "../../../provider/platform/secret";
import { API_KEY_TYPE, ENVIRONMENT_TYPE, FLAG_TYPE, GROUP_TYPE, SECRET_TYPE } from "../../../provider/types";
import { AdminClient, PlatformClient } from "../../../sdk";

let emu: Emulator;
let admin: AdminClient;
let platform: PlatformClient;
let wsId: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  resetProvider();
  configureProvider({
    get: (k) =>
      ({
        "flagstack:adminApiUrl": emu.url,
        "flagstack:adminApiKey": emu.adminKey,
        "flagstack:platformApiUrl": emu.url,
        "flagstack:platformApiKey": emu.platformKey,
        "flagstack:accountId": emu.accountId,
        "flagstack:requestsPerSecond": "1000",
      })[k],
  });
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
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
      recorded: [],
      kept: [
        {
          urn: urn(FLAG_TYPE, "recover-older"),
          reason: `an object with its name exists, created ${new Date(older.creationTime).toISOString()}, before the interrupted update; set \`adopt: true\` to take it over`,
        },
      ],
      unknown: [],
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
      report: { recovered: [], cleared: [], recorded: [], kept: [], unknown: [] },
    });
  });
});

/** A pending create of `type` with the inputs the engine recorded. */
const pendingOf = (type: string, name: string, inputs: Record<string, unknown>) => ({
  type: "creating",
  resource: { urn: urn(type, name), custom: true, type, inputs, parent: STACK, provider: PROVIDER },
});

describe("what recover cannot know (issue 23)", () => {
  const keyInputs = (name: string) => ({
    name,
    apiKeyType: "admin",
    workspace: "Default",
    environments: [],
    roles: ["API_ALL_GRANTED"],
    __provider: apiKeyProviderText,
  });

  it("an ApiKey whose create's answer never reached the provider: unknown, naming the key to revoke; dropped from the pending operations", async () => {
    // The interrupted run's key: made on the service, its answer never seen by a provider process.
    await admin.apiKeys.create({
      name: "recover-unseen-key",
      apiKeyType: "admin",
      roles: ["API_ALL_GRANTED"],
      environments: [],
      workspace: { type: "workspace", id: wsId },
    });
    const deployment: Deployment = {
      resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }],
      pending_operations: [pendingOf(API_KEY_TYPE, "k", keyInputs("recover-unseen-key"))],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report).toEqual({
      recovered: [],
      cleared: [],
      recorded: [],
      kept: [],
      unknown: [
        {
          urn: urn(API_KEY_TYPE, "k"),
          reason:
            'the create of ApiKey named "recover-unseen-key" may have made a key that nothing manages: revoke any key named "recover-unseen-key" in the admin settings; the next `pulumi up` creates a new one',
        },
      ],
    });
    expect(next).toEqual({ resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }] });
  });

  it("an ApiKey whose create the provider saw (its note): adopted by id without its key, which the next up replaces", async () => {
    const checkedKey = (await apiKeyImpl.check({}, keyInputs("recover-noted-key"))).inputs as ApiKeyInputs;
    // The interrupted run's create: the provider process saw the answer, the engine never recorded it.
    const made = await apiKeyImpl.create(checkedKey);
    const deployment: Deployment = {
      resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }],
      pending_operations: [pendingOf(API_KEY_TYPE, "k", keyInputs("recover-noted-key"))],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
      now: () => new Date("2026-11-23T10:00:00Z"),
    });
    expect(report).toEqual({
      recovered: [{ urn: urn(API_KEY_TYPE, "k"), id: made.id }],
      cleared: [],
      recorded: [],
      kept: [],
      unknown: [
        {
          urn: urn(API_KEY_TYPE, "k"),
          reason: `adopted API key "recover-noted-key" (id ${made.id}); its key was shown only in the create's answer, which was lost: the next \`pulumi up\` replaces it (a new key, then this one revoked)`,
        },
      ],
    });
    const { key: _key, ...withoutKey } = made.outs as Record<string, unknown>;
    const recorded = next.resources?.[1];
    expect(recorded?.outputs).toEqual({ ...withoutKey, adopt: undefined, __provider: apiKeyProviderText });
    // The refresh keeps it as recorded; the next up replaces it (a new key before the old is revoked).
    const outs = recorded?.outputs as Parameters<typeof apiKeyImpl.read>[1];
    expect((await apiKeyImpl.read(made.id, outs)).props).toEqual(outs);
    expect(await apiKeyImpl.diff(made.id, outs, checkedKey)).toEqual({
      changes: true,
      replaces: ["key"],
      stables: ["name", "apiKeyType", "workspace", "environments", "roles"],
      deleteBeforeReplace: false,
    });
    await apiKeyImpl.delete(made.id, outs);
  });

  it("an ApiKey a retried up recorded: dropped as recorded, and unknown: the interrupted create may have made another key", async () => {
    const recorded = {
      urn: urn(API_KEY_TYPE, "k"),
      custom: true,
      type: API_KEY_TYPE,
      id: "key-of-the-retry",
      inputs: keyInputs("recover-retried-key"),
      outputs: { ...keyInputs("recover-retried-key"), apiKeyId: "key-of-the-retry" },
      parent: STACK,
    };
    const deployment: Deployment = {
      resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }, recorded],
      pending_operations: [pendingOf(API_KEY_TYPE, "k", keyInputs("recover-retried-key"))],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report).toEqual({
      recovered: [],
      cleared: [],
      recorded: [urn(API_KEY_TYPE, "k")],
      kept: [],
      unknown: [
        {
          urn: urn(API_KEY_TYPE, "k"),
          reason:
            'the create of ApiKey named "recover-retried-key" may have made a key that nothing manages: revoke any key named "recover-retried-key" in the admin settings but the one the state records (id key-of-the-retry)',
        },
      ],
    });
    expect(next).toEqual({ resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }, recorded] });
  });

  it("an Environment whose create's answer was lost: adopted without SDK keys, and reported as unknown keys to revoke before destroy", async () => {
    const env = await admin.environments.create(wsId, { name: "recover-keyless-env", production: false });
    const deployment: Deployment = {
      resources: [{ urn: STACK, type: "pulumi:pulumi:Stack" }],
      pending_operations: [
        pendingOf(ENVIRONMENT_TYPE, "e", {
          workspace: "Default",
          name: "recover-keyless-env",
          production: false,
          adopt: false,
          __provider: environmentProviderText,
        }),
      ],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report).toEqual({
      recovered: [{ urn: urn(ENVIRONMENT_TYPE, "e"), id: env.id }],
      cleared: [],
      recorded: [],
      kept: [],
      unknown: [
        {
          urn: urn(ENVIRONMENT_TYPE, "e"),
          reason:
            'adopted environment "recover-keyless-env" in workspace "Default"; its SDK keys are unknown (the create\'s answer was lost): revoke them in the admin settings before `pulumi destroy`',
        },
      ],
    });
    expect(next.resources?.[1]?.outputs?.apiTokens).toEqual([]);
  });
});

/** A secret as `pulumi stack export` shows it. */
const encrypted = (n: number) => ({ [SECRET_SIG_KEY]: SECRET_SIG, ciphertext: `v1:opaque${n}` });

const secretInputs = (identifier: string, value: unknown) => ({
  __provider: secretProviderText,
  adopt: false,
  description: "",
  identifier,
  name: "Recovered",
  org: "default",
  secretManager: "harnessSecretManager",
  tags: {},
  value,
});

const pendingSecret = (identifier: string, value: unknown) => ({
  type: "creating",
  resource: {
    urn: urn(SECRET_TYPE, identifier),
    custom: true,
    type: SECRET_TYPE,
    inputs: secretInputs(identifier, value),
    parent: STACK,
    additionalSecretOutputs: ["value", "fileSha256"],
  },
});

describe("secrets in the state", () => {
  it("revealSecrets: plaintext secrets become their values, at any depth; ciphertext stays and is listed", () => {
    expect(
      revealSecrets({
        value: asSecret("s3cret"),
        nested: { list: [asSecret({ a: 1 }), 2], hidden: encrypted(1) },
      }),
    ).toEqual({
      value: { value: "s3cret", nested: { list: [{ a: 1 }, 2], hidden: encrypted(1) } },
      encrypted: ["nested.hidden"],
    });
    expect(asSecret("s3cret")).toEqual({ [SECRET_SIG_KEY]: SECRET_SIG, plaintext: '"s3cret"' });
  });

  it("a pending Secret create: checked with its value revealed, adopted, written back with the value a secret", async () => {
    const stackResource = { urn: STACK, type: "pulumi:pulumi:Stack", custom: false };
    // The interrupted run's create reached the service.
    await platform.secrets.create({
      type: "SecretText",
      identifier: "recover_pw",
      name: "Recovered",
      orgIdentifier: "default",
      spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline", value: "s3cret" },
    });
    const deployment: Deployment = {
      resources: [stackResource],
      pending_operations: [pendingSecret("recover_pw", encrypted(1))],
    };
    const revealed: Deployment = {
      resources: [stackResource],
      pending_operations: [pendingSecret("recover_pw", asSecret("s3cret"))],
    };
    const now = () => new Date("2026-11-23T12:00:00.000Z");

    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
      revealed,
      now,
    });

    expect(report).toEqual({
      recovered: [{ urn: urn(SECRET_TYPE, "recover_pw"), id: "default/recover_pw" }],
      cleared: [],
      recorded: [],
      kept: [],
      unknown: [],
    });
    const live = await platform.secrets.get("recover_pw", { org: "default" });
    expect(next).toEqual({
      resources: [
        stackResource,
        {
          ...pendingSecret("recover_pw", encrypted(1)).resource,
          id: "default/recover_pw",
          outputs: {
            org: "default",
            identifier: "recover_pw",
            name: "Recovered",
            description: "",
            tags: {},
            secretManager: "harnessSecretManager",
            value: { [SECRET_SIG_KEY]: SECRET_SIG, plaintext: '"s3cret"' },
            adopt: false,
            type: "SecretText",
            ref: "org.recover_pw",
            createdAt: live.createdAt,
            updatedAt: live.updatedAt,
            __provider: secretProviderText,
          },
          created: "2026-11-23T12:00:00.000Z",
          modified: "2026-11-23T12:00:00.000Z",
        },
      ],
    });
    // The value is in the written state once, as the secret object `pulumi stack import` encrypts.
    expect(JSON.stringify(next).split("s3cret").length - 1).toBe(1);
  });

  it("without the revealed state, a pending create whose inputs hold an encrypted secret is kept, saying why", async () => {
    const deployment: Deployment = { pending_operations: [pendingSecret("recover_enc", encrypted(2))] };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report.kept).toEqual([
      {
        urn: urn(SECRET_TYPE, "recover_enc"),
        reason:
          "its recorded inputs hold encrypted secrets (value): read the state with `pulumi stack export --show-secrets` (the stack's passphrase or secrets provider)",
      },
    ]);
    expect(next.pending_operations).toEqual(deployment.pending_operations);
  });
});

describe("a pending create that a later update settled", () => {
  const stackResource = { urn: STACK, type: "pulumi:pulumi:Stack", custom: false };

  it("already in the state's resources (an up retried before recover created it): dropped, never added twice", async () => {
    const group = await admin.groups.create({ name: "recover-retried", description: "" });
    const inputs = { name: "recover-retried", description: "", adopt: false, __provider: groupProviderText };
    const recorded = {
      urn: urn(GROUP_TYPE, "retried"),
      custom: true,
      type: GROUP_TYPE,
      id: group.id,
      inputs,
      outputs: { ...inputs, groupId: group.id },
      parent: STACK,
    };
    const pendingGroup = {
      type: "creating",
      resource: { urn: urn(GROUP_TYPE, "retried"), custom: true, type: GROUP_TYPE, inputs, parent: STACK },
    };
    const deployment: Deployment = {
      resources: [stackResource, recorded],
      // The killed run's pending create, and the same one again (a second killed run).
      pending_operations: [pendingGroup, pendingGroup, pendingFlag("recover-retried-never")],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report).toEqual({
      recovered: [],
      cleared: [urn(FLAG_TYPE, "recover-retried-never")],
      recorded: [urn(GROUP_TYPE, "retried")],
      kept: [],
      unknown: [],
    });
    expect(next).toEqual({ resources: [stackResource, recorded] });
  });

  it("recorded by a later update from a changed program (no input that replaces differs): dropped, the object not written", async () => {
    const group = await admin.groups.create({ name: "recover-changed", description: "new" });
    const recordedInputs = {
      name: "recover-changed",
      description: "new",
      adopt: false,
      __provider: groupProviderText,
    };
    const recorded = {
      urn: urn(GROUP_TYPE, "changed"),
      custom: true,
      type: GROUP_TYPE,
      id: group.id,
      inputs: recordedInputs,
      outputs: { ...recordedInputs, groupId: group.id },
      parent: STACK,
    };
    const pendingGroup = {
      type: "creating",
      resource: {
        ...recorded,
        id: undefined,
        outputs: undefined,
        inputs: { ...recordedInputs, description: "old" },
      },
    };
    const deployment: Deployment = {
      resources: [stackResource, recorded],
      pending_operations: [pendingGroup],
    };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report).toEqual({
      recovered: [],
      cleared: [],
      recorded: [urn(GROUP_TYPE, "changed")],
      kept: [],
      unknown: [],
    });
    expect(next).toEqual({ resources: [stackResource, recorded] });
    expect((await admin.groups.get(group.id)).description).toBe("new");
  });

  it("the interrupted run is told per pending create: one made before its own run's start is kept, one after is adopted", async () => {
    const first = await admin.flags.create(wsId, "user", { name: "recover-run-a", description: "" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await admin.flags.create(wsId, "user", { name: "recover-run-b", description: "" });
    const deployment: Deployment = {
      resources: [stackResource],
      pending_operations: [pendingFlag("recover-run-a"), pendingFlag("recover-run-b")],
    };
    // recover-run-b's create was recorded by a run that began after recover-run-a was made.
    const starts: Record<string, number> = {
      [urn(FLAG_TYPE, "recover-run-a")]: first.creationTime + 1,
      [urn(FLAG_TYPE, "recover-run-b")]: first.creationTime + 1,
    };
    const { report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: (u) => starts[u] as number,
    });
    expect(report.recovered).toEqual([{ urn: urn(FLAG_TYPE, "recover-run-b"), id: second.id }]);
    expect(report.kept.map((k) => k.urn)).toEqual([urn(FLAG_TYPE, "recover-run-a")]);
  });

  it("a create-before-delete replacement cut at its create: the new object is adopted and the old marked for deletion", async () => {
    const old = await admin.flags.create(wsId, "user", { name: "recover-old-name", description: "" });
    const made = await admin.flags.create(wsId, "user", { name: "recover-new-name", description: "" });
    const oldResource = {
      ...pendingFlag("recover-old-name").resource,
      urn: urn(FLAG_TYPE, "renamed"),
      id: old.id,
      outputs: { name: "recover-old-name" },
    };
    const pending = {
      ...pendingFlag("recover-new-name"),
      resource: { ...pendingFlag("recover-new-name").resource, urn: urn(FLAG_TYPE, "renamed") },
    };
    const deployment: Deployment = { resources: [stackResource, oldResource], pending_operations: [pending] };
    const { deployment: next, report } = await settlePendingCreates(deployment, {
      kinds: KINDS,
      notBefore: 0,
    });
    expect(report.recovered).toEqual([{ urn: urn(FLAG_TYPE, "renamed"), id: made.id }]);
    expect(next.resources?.map((r) => [r.urn, r.id, r.delete])).toEqual([
      [STACK, undefined, undefined],
      [urn(FLAG_TYPE, "renamed"), old.id, true],
      [urn(FLAG_TYPE, "renamed"), made.id, undefined],
    ]);
    expect(next.pending_operations).toBeUndefined();
  });
});
