/**
 * ApiKey lifecycle against the emulator, directly and through the gRPC host: check refusals
 * naming the field (the service's scope rules too) with no request, create (exact POST), the key
 * a secret output found nowhere else in the outputs, read returning the record with no request,
 * every change a replacement, revoke on delete, a lost create answer that fails saying so, and a
 * 500 echoing the key it made (in its message and a JSON `details` string) that fails without it.
 */
import { inspect } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withSecretOutputs } from "../../../provider/core/secret-outputs";
import { ApiKey, apiKeyProviderText, impl } from "../../../provider/flags/api-key";
import { API_KEY_TYPE } from "../../../provider/types";
import type { Environment, Workspace } from "../../../sdk/admin/schemas";
import { type Driver, MODES, type Mode } from "../harness";
import { itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const V2 = "/internal/api/v2";
let bed: Testbed;
let ws: Workspace;
let prod: Environment;
let drivers: Record<Mode, Driver>;
beforeAll(async () => {
  bed = await startTestbed();
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  prod = (await bed.admin.environments.find(ws.id, "Production")) as Environment;
  drivers = await bed.drivers(impl, apiKeyProviderText);
});
afterAll(async () => {
  await bed?.stop();
});

const server = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  apiKeyType: "server_side",
  workspace: "Default",
  environments: ["Production"],
  ...extra,
});

itRefusesWithNoRequest(
  [
    [
      "an unknown key type",
      server("k", { apiKeyType: "root" }),
      "apiKeyType",
      'apiKeyType must be one of "admin", "server_side", "client_side"',
    ],
    ["a long name", server("k".repeat(101)), "name", "name must be at most 100 characters"],
    [
      "an SDK key of no environment",
      server("k", { environments: [] }),
      "environments",
      "a server_side key belongs to exactly one environment; 0 given",
    ],
    [
      "an SDK key of two environments",
      server("k", { apiKeyType: "client_side", environments: ["Production", "Staging"] }),
      "environments",
      "a client_side key belongs to exactly one environment; 2 given",
    ],
    ["roles on an SDK key", server("k", { roles: ["API_ADMIN"] }), "roles", "roles are for admin keys only"],
    [
      "an unknown role",
      server("k", { apiKeyType: "admin", roles: ["ROOT"] }),
      "roles[0]",
      "a role must be one of API_ALL_GRANTED",
    ],
  ],
  () => ({ bed, drivers }),
);

describe.each(MODES)("ApiKey (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`key-${slug(mode)}`);
  beforeAll(() => {
    p = drivers[mode];
  });

  it("creates with one POST; the key is a secret output and nowhere else in the outputs", async () => {
    const name = fresh();
    const inputs = (await p.check({}, server(name))).inputs;
    expect(inputs).toEqual({ ...server(name), roles: [] });
    bed.reset();
    const { id, outs } = await p.create(inputs);
    expect(bed.proxy.writes()).toEqual([
      {
        method: "POST",
        path: `${V2}/apiKeys`,
        query: {},
        body: {
          name,
          apiKeyType: "server_side",
          environments: [{ type: "environment", id: prod.id }],
          workspace: { type: "workspace", id: ws.id },
        },
        status: 200,
      },
    ]);
    const key = outs.key as string;
    expect(key).toMatch(/^sdk-/);
    expect(outs).toEqual({
      ...inputs,
      apiKeyId: id,
      workspaceId: ws.id,
      workspaceName: "Default",
      environmentIds: [prod.id],
      key,
    });
    const { key: _secret, ...plainOutputs } = outs;
    expect(JSON.stringify(plainOutputs)).not.toContain(key);
    expect(JSON.stringify(bed.proxy.requests().map((r) => [r.path, r.query, r.body]))).not.toContain(key);
    expect(ApiKey.secretOutputs).toEqual(["key"]);
  });

  it("creates an admin key with its roles", async () => {
    const name = fresh();
    const inputs = (
      await p.check(
        {},
        server(name, {
          apiKeyType: "admin",
          environments: [],
          roles: ["API_FEATURE_FLAG_EDITOR", "API_ADMIN"],
        }),
      )
    ).inputs;
    bed.reset();
    const { outs } = await p.create(inputs);
    expect(bed.proxy.writes().map((w) => w.body)).toEqual([
      {
        name,
        apiKeyType: "admin",
        roles: ["API_ADMIN", "API_FEATURE_FLAG_EDITOR"],
        environments: [],
        workspace: { type: "workspace", id: ws.id },
      },
    ]);
    expect(outs.key).toMatch(/^adm-/);
  });

  it("reads the recorded outputs back with no request", async () => {
    const { id, outs } = await p.create((await p.check({}, server(fresh()))).inputs);
    bed.reset();
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: {
        name: outs.name,
        apiKeyType: "server_side",
        workspace: "Default",
        environments: ["Production"],
        roles: [],
      },
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("refuses an import (a read with the id alone) with a message saying why, and no request", async () => {
    bed.reset();
    await expect(p.read("key-1", {} as never)).rejects.toThrow(
      'an API key cannot be imported (id "key-1"): the API never shows a key again after it is made. Declare a new ApiKey and revoke the old key.',
    );
    expect(bed.emu.requests()).toEqual([]);
  });

  it("replaces on any change, making the new key before revoking the old", async () => {
    const name = fresh();
    const { id, outs } = await p.create((await p.check({}, server(name))).inputs);
    for (const [changed, field] of [
      [server(`${name}-2`), "name"],
      [server(name, { apiKeyType: "client_side" }), "apiKeyType"],
      [server(name, { environments: ["Staging"] }), "environments"],
    ] as const) {
      expect(await p.diff(id, outs, (await p.check(outs, changed)).inputs)).toEqual({
        changes: true,
        replaces: [field],
        deleteBeforeReplace: false,
      });
    }
    // The same scope by ids is no change.
    const byIds = server(name, { workspace: ws.id, environments: [prod.id] });
    expect(await p.diff(id, outs, (await p.check(outs, byIds)).inputs)).toMatchObject({ changes: false });
  });

  it("revokes on delete; deleting again succeeds", async () => {
    const { id, outs } = await p.create((await p.check({}, server(fresh()))).inputs);
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${V2}/apiKeys/${id}`]);
    await expect(bed.admin.apiKeys.revoke(id)).rejects.toMatchObject({ status: 404 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("fails a create whose answer was lost, saying a key may exist and cannot be looked up", async () => {
    const name = fresh();
    bed.reset();
    bed.proxy.once({ method: "POST", path: /\/apiKeys$/ }, { lose: true });
    await expect(p.create((await p.check({}, server(name))).inputs)).rejects.toThrow(
      `the answer to creating API key "${name}" was lost`,
    );
    expect(bed.proxy.writes().map((w) => w.method)).toEqual(["POST"]);
  });
});

describe("ApiKey: a 500 that echoes the key it made", () => {
  it("fails the create without the key, or any fragment of it, in the error, its cause or their JSON", async () => {
    const p = drivers.direct;
    const name = unique("key-echo");
    const inputs = (await p.check({}, server(name))).inputs;
    bed.reset();
    let made = "";
    let madeId = "";
    // The service made the key, then failed: its 500 names the key in the message and in a JSON
    // `details` string, as the answer it could not send.
    bed.proxy.onWrite(0, {
      respond: (upstream) => {
        const answer = JSON.parse(upstream.text) as { id: string; key: string };
        made = answer.key;
        madeId = answer.id;
        return {
          status: 500,
          text: JSON.stringify({
            code: 500,
            message: `key ${answer.key} was made but not recorded (${answer.key.slice(4, 20)})`,
            details: JSON.stringify({ id: answer.id, name, key: answer.key }),
            transactionId: "tx-echo",
          }),
        };
      },
    });
    const failure = (await p.create(inputs).catch((e: unknown) => e)) as Error & { cause?: unknown };
    expect(made).toMatch(/^sdk-/);
    expect(failure.message).toBe(
      `the answer to creating API key "${name}" was lost (POST ${V2}/apiKeys: 500 key *** was made but not recorded (***) ` +
        `({"id":"${madeId}","name":"${name}","key":"***"}) (transaction tx-echo)); a key may have been made, and the API cannot look keys up: ` +
        `revoke any key named "${name}" in the UI, then run \`pulumi up\` again`,
    );
    const fragments = Array.from({ length: made.length - 11 }, (_, i) => made.slice(i, i + 12));
    const cause = failure.cause as Error;
    for (const text of [
      failure.message,
      String(failure.stack),
      JSON.stringify(failure),
      inspect(failure, { depth: 10, showHidden: true }),
      cause.message,
      JSON.stringify(cause),
      JSON.stringify((cause as unknown as { body: unknown }).body),
      inspect(cause, { depth: 10, showHidden: true }),
    ]) {
      expect(fragments.filter((f) => text.includes(f))).toEqual([]);
    }
  });
});

describe("the ApiKey class", () => {
  it("is the ApiKey kind and asks the engine to store the key as a secret", () => {
    expect(ApiKey.__pulumiType).toBe(API_KEY_TYPE);
    expect(ApiKey.name).toBe("ApiKey");
    const seen: (pulumi.CustomResourceOptions | undefined)[] = [];
    class Fake {
      static readonly __pulumiType = "t";
      constructor(_name: string, _args: object, opts?: pulumi.CustomResourceOptions) {
        seen.push(opts);
      }
    }
    const Secret = withSecretOutputs(Fake as never, ["key"]) as unknown as new (
      n: string,
      a: object,
      o?: pulumi.CustomResourceOptions,
    ) => object;
    new Secret("k", {}, { additionalSecretOutputs: ["other"], protect: true });
    expect(seen).toEqual([{ additionalSecretOutputs: ["other", "key"], protect: true }]);
  });
});
