/**
 * Secret: check (field by field, no request), diff (the value against the recorded one, a file by
 * its hash), the lifecycle of text and file secrets against the emulator directly and through the
 * real dynamic-provider gRPC host, and the sentinel rule: the value is in no output but `value`, a
 * file's content in no output at all, neither in any error, any request but the writes that carry
 * them, or anything the host writes.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withSecretInputs } from "../../../provider/core/secret-inputs";
import {
  fileSha256,
  impl,
  Secret,
  SecretInputs,
  secretProviderText,
  secretRef,
  secretReplaceOnChange,
} from "../../../provider/platform/secret";
import { SECRET_TYPE } from "../../../provider/types";
import type { PlatformClient } from "../../../sdk";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, replaces, replacing, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const SENTINEL = "Sentinel-Value-9c41e2";
const valid = { org: "default", identifier: "docker_pw", name: "Docker password", value: SENTINEL };

/** The body of an organization-level text secret written by someone else. */
const byHand = (identifier: string, name: string, value: string) => ({
  type: "SecretText" as const,
  identifier,
  name,
  orgIdentifier: "default",
  spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline" as const, value },
});

let bed: Testbed;
let platform: PlatformClient;
let drivers: Record<Mode, Driver>;

beforeAll(async () => {
  bed = await startTestbed();
  platform = bed.platform;
  drivers = await bed.drivers(impl, secretProviderText);
  await createProject(platform, "payments", "Payments");
});

afterAll(async () => {
  await bed?.stop();
});

describe("Secret check", () => {
  it("applies the defaults: the platform's secret manager, empty description and tags", async () => {
    expect(await impl.check({}, valid)).toEqual({
      inputs: {
        ...valid,
        description: "",
        tags: {},
        secretManager: "harnessSecretManager",
        adopt: false,
      },
    });
  });

  itRefusesWithNoRequest(
    [
      [
        "a missing value",
        { ...valid, value: undefined },
        "value",
        "value must be a string (the secret text)",
      ],
      ["an empty value", { ...valid, value: "" }, "value", "value cannot be empty"],
      ["a value not a string", { ...valid, value: 42 }, "value", "value must be a string (the secret text)"],
      ["a project without org", { ...valid, org: undefined, project: "payments" }, "org", "needs org"],
      ["a hyphenated identifier", { ...valid, identifier: "docker-pw" }, "identifier", "can only contain"],
      ["an empty secret manager", { ...valid, secretManager: "" }, "secretManager", "cannot be empty"],
      ["a misspelt input", { ...valid, secret: SENTINEL }, "secret", 'unknown property "secret"'],
    ],
    () => ({ bed, drivers }),
  );

  it("names fields, never the value, in its failures", async () => {
    const result = await impl.check({}, { ...valid, name: "", secret: SENTINEL });
    expect(JSON.stringify(result.failures)).not.toContain(SENTINEL);
  });
});

describe("Secret diff", () => {
  const news = { ...valid, description: "", tags: {}, secretManager: "harnessSecretManager", adopt: false };
  const olds = { ...news, ref: "org.docker_pw" };

  it("compares the value with the recorded one: same is no change, another is an update in place", async () => {
    expect(await impl.diff("default/docker_pw", olds, news)).toMatchObject({
      changes: false,
    });
    expect(await impl.diff("default/docker_pw", olds, { ...news, value: "other" })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("replaces on scope, identifier and a switch between text and file; updates the rest in place but adopt", async () => {
    const table = await diffOfEachChange(impl, SecretInputs, "default/docker_pw", olds, news, {
      org: { org: "acme" },
      project: { project: "payments" },
      identifier: { identifier: "docker_pw_2" },
      name: { name: "Registry password" },
      description: { description: "the registry's" },
      tags: { tags: { team: "web" } },
      secretManager: { secretManager: "vault" },
      value: { value: "other" },
      file: { value: undefined, file: "content" },
      fileEncoding: { value: undefined, file: "Y29udGVudA==", fileEncoding: "base64" },
      adopt: { adopt: true },
    });
    expect(table).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      secretManager: UPDATE,
      value: UPDATE,
      file: replaces("file"),
      fileEncoding: replaces("file"),
      adopt: NO_CHANGE,
    });
    // The published replace list is the diff's, but the text/file switch: a replace reason (`file`)
    // decided by which of `value` and `file` the program gives.
    expect([...secretReplaceOnChange, "file", "fileEncoding"]).toEqual(replacing(table));
  });

  it("replaces on scope and identifier", async () => {
    expect(await impl.diff("default/docker_pw", olds, { ...news, project: "payments" })).toMatchObject({
      replaces: ["project"],
    });
  });

  it("references account, organization and project secrets as the platform does", () => {
    expect(
      [{}, { org: "default" }, { org: "default", project: "payments" }].map((s) =>
        secretRef({ ...s, identifier: "pw" }),
      ),
    ).toEqual(["account.pw", "org.pw", "pw"]);
  });
});

describe.each(MODES)("Secret lifecycle (%s)", (via) => {
  const fresh = () => unique(`pw_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Props = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...valid, identifier, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates with one POST, reads back with the recorded value and no diff", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...valid, identifier, project: "payments" })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    expect(id).toBe(`default/payments/${identifier}`);
    expect(outs).toEqual({
      ...inputs,
      type: "SecretText",
      ref: identifier,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(bed.sent()).toEqual(["POST /ng/api/v2/secrets"]);
    const live = await platform.secrets.get(identifier, { org: "default", project: "payments" });
    expect(live.secret.spec).toEqual({
      value: null,
      secretManagerIdentifier: "harnessSecretManager",
      valueType: "Inline",
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("updates a new value with one read and one PUT that carries it", async () => {
    const { identifier, id, outs, inputs } = await created();
    bed.reset();
    const next = { ...inputs, value: `${SENTINEL}-2` };
    const updated = (await d.update(id, outs, next)).outs;
    expect(updated.value).toBe(`${SENTINEL}-2`);
    expect(bed.sent()).toEqual([
      `GET /ng/api/v2/secrets/${identifier}`,
      `PUT /ng/api/v2/secrets/${identifier}`,
    ]);
    expect((bed.proxy.writes()[0]!.body as { secret: { spec: unknown } }).secret.spec).toEqual({
      secretManagerIdentifier: "harnessSecretManager",
      valueType: "Inline",
      value: `${SENTINEL}-2`,
    });
  });

  it("refresh shows an out-of-band rename; an update of the renamed field then fails naming it, not the value", async () => {
    const { identifier, id, outs, inputs } = await created();
    await platform.secrets.update(byHand(identifier, "Renamed", "theirs"));
    const read = await d.read(id, outs);
    expect(read.props).toMatchObject({ name: "Renamed", value: SENTINEL });
    const error = await d.update(id, outs, { ...inputs, name: "Ours", value: "new" }).catch((e: Error) => e);
    expect((error as Error).message).toContain(
      `secret "${identifier}" (org.${identifier}) was changed outside Pulumi`,
    );
    expect((error as Error).message).toContain(
      'name: recorded "Docker password", live "Renamed", desired "Ours"',
    );
    expect((error as Error).message).not.toContain(SENTINEL);
  });

  it("refuses a duplicate without adopt, adopts with adopt: true writing the program's value, and deletes twice", async () => {
    const identifier = fresh();
    await platform.secrets.create(byHand(identifier, "By hand", "by-hand"));
    const inputs = (await d.check({}, { ...valid, identifier })).inputs;
    const refused = await d.create(inputs).catch((e: Error) => e);
    expect((refused as Error).message).toContain(`secret "${identifier}" (org.${identifier}) already exists`);
    expect((refused as Error).message).not.toContain(SENTINEL);
    bed.reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(bed.sent()).toEqual([
      `GET /ng/api/v2/secrets/${identifier}`,
      `PUT /ng/api/v2/secrets/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({ name: "Docker password", value: SENTINEL, adopt: true });
    await d.delete(adopted.id, adopted.outs);
    await expect(platform.secrets.get(identifier, { org: "default" })).rejects.toMatchObject({
      kind: "not-found",
    });
    await expect(d.delete(adopted.id, adopted.outs)).resolves.toBeUndefined();
  });

  it("reads by id alone (an import) without a value, so the program's value is then written", async () => {
    const { id, identifier } = await created();
    const read = await d.read(id, {});
    expect(read.props).toMatchObject({ org: "default", identifier, name: "Docker password" });
    expect(read.props).not.toHaveProperty("value");
    expect((await d.diff(id, read.props!, { ...valid, identifier })).changes).toBe(true);
  });

  it("finds its own create after a lost response instead of failing on the duplicate", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...valid, identifier })).inputs;
    bed.reset();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/v2\/secrets$/ }, { lose: true });
    const { id } = await d.create(inputs);
    expect(id).toBe(`default/${identifier}`);
    expect(bed.sent()).toEqual(["POST /ng/api/v2/secrets", `GET /ng/api/v2/secrets/${identifier}`]);
  });
});

describe("the sentinel", () => {
  it("is in no request but the create and update bodies, in no output but value, and nowhere the host wrote", async () => {
    bed.reset();
    for (const mode of MODES) {
      const d = drivers[mode];
      const inputs = (await d.check({}, { ...valid, identifier: unique(`sentinel_${slug(mode)}`, "_") }))
        .inputs;
      const { id, outs } = await d.create(inputs);
      const read = await d.read(id, outs);
      await d.update(id, read.props!, { ...inputs, description: "rotated" });
      await d.delete(id, outs);
      const { value: _v, ...rest } = read.props!;
      expect(JSON.stringify(rest)).not.toContain(SENTINEL);
    }
    const carrying = bed.proxy.requests().filter((r) => JSON.stringify(r).includes(SENTINEL));
    expect(carrying.map((r) => `${r.method} ${r.path.replace(/sentinel_\w+/, "<id>")}`)).toEqual([
      "POST /ng/api/v2/secrets",
      "PUT /ng/api/v2/secrets/<id>",
      "POST /ng/api/v2/secrets",
      "PUT /ng/api/v2/secrets/<id>",
    ]);
    expect(JSON.stringify(bed.emu.requests())).not.toContain(SENTINEL);
    expect(bed.host.stderr()).not.toContain(SENTINEL);
  });
});

describe("the Secret class", () => {
  it("is the Secret kind, wraps the value as a Pulumi secret and stores it as a secret output", async () => {
    expect([Secret.__pulumiType, Secret.name, Secret.secretOutputs]).toEqual([
      SECRET_TYPE,
      "Secret",
      ["value", "fileSha256"],
    ]);
    const seen: [Props, pulumi.CustomResourceOptions | undefined][] = [];
    class Fake {
      static readonly __pulumiType = "t";
      constructor(_name: string, args: Props, opts?: pulumi.CustomResourceOptions) {
        seen.push([args, opts]);
      }
    }
    const Wrapped = withSecretInputs(Fake as never, ["value"]) as unknown as new (
      n: string,
      a: object,
    ) => object;
    new Wrapped("s", { value: SENTINEL, name: "n" });
    const [[args, opts]] = seen as [[Props, pulumi.CustomResourceOptions]];
    expect(opts.additionalSecretOutputs).toEqual(["value"]);
    expect(args.name).toBe("n");
    expect(pulumi.Output.isInstance(args.value)).toBe(true);
    expect(await pulumi.isSecret(args.value as pulumi.Output<string>)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// File secrets

const FILE_SENTINEL = "File-Sentinel-8d2f61";
const PEM = `-----BEGIN PRIVATE KEY-----\n${FILE_SENTINEL}\n-----END PRIVATE KEY-----\n`;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const validFile = { org: "default", identifier: "tls_key", name: "TLS key", file: PEM };

describe("Secret check (file)", () => {
  it("takes file instead of value, with no encoding by default", async () => {
    expect(await impl.check({}, validFile)).toEqual({
      inputs: {
        ...validFile,
        description: "",
        tags: {},
        secretManager: "harnessSecretManager",
        adopt: false,
      },
    });
  });

  itRefusesWithNoRequest(
    [
      ["both value and file", { ...validFile, value: SENTINEL }, "file", "value (a text secret) or file"],
      ["neither value nor file", { ...validFile, file: undefined }, "value", "or give file"],
      ["an empty file", { ...validFile, file: "" }, "file", "file cannot be empty"],
      ["a file not a string", { ...validFile, file: 7 }, "file", "file must be a string"],
      ["an unknown encoding", { ...validFile, fileEncoding: "hex" }, "fileEncoding", '"utf8" or "base64"'],
      ["an encoding without a file", { ...valid, fileEncoding: "utf8" }, "fileEncoding", "applies to file"],
      [
        "a base64 file that is not base64",
        { ...validFile, fileEncoding: "base64" },
        "file",
        'file is not base64 (fileEncoding is "base64")',
      ],
    ],
    () => ({ bed, drivers }),
  );

  it("names fields, never the content, in its failures", async () => {
    const result = await impl.check({}, { ...validFile, fileEncoding: "base64", value: SENTINEL });
    expect(result.failures?.map((f) => f.property)).toEqual(["file", "file"]);
    expect(JSON.stringify(result.failures)).not.toContain(FILE_SENTINEL);
  });
});

describe("Secret diff (file)", () => {
  const news = {
    ...validFile,
    description: "",
    tags: {},
    secretManager: "harnessSecretManager",
    adopt: false,
  };
  const { file: _f, ...withoutFile } = news;
  const olds = { ...withoutFile, type: "SecretFile" as const, fileSha256: sha(PEM), ref: "org.tls_key" };

  it("compares the content with the recorded hash: same is no change, another an update in place", async () => {
    expect(fileSha256({ file: PEM })).toBe(sha(PEM));
    expect(await impl.diff("default/tls_key", olds, news)).toMatchObject({ changes: false });
    expect(await impl.diff("default/tls_key", olds, { ...news, file: `${PEM}x` })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("compares bytes: the same content given as base64 is no change", async () => {
    const b64 = { ...news, file: Buffer.from(PEM).toString("base64"), fileEncoding: "base64" as const };
    expect(await impl.diff("default/tls_key", olds, b64)).toMatchObject({ changes: false });
  });

  it("replaces, deleting first, when a text secret becomes a file secret or back", async () => {
    const text = { ...valid, description: "", tags: {}, secretManager: "harnessSecretManager", adopt: false };
    const textOlds = { ...text, identifier: "tls_key", type: "SecretText" as const, ref: "org.tls_key" };
    expect(await impl.diff("default/tls_key", textOlds, news)).toMatchObject({
      changes: true,
      replaces: ["file"],
      deleteBeforeReplace: true,
    });
    expect(
      await impl.diff("default/tls_key", olds, { ...text, identifier: "tls_key", value: "v" }),
    ).toMatchObject({ changes: true, replaces: ["value"], deleteBeforeReplace: true });
  });
});

describe.each(MODES)("Secret file lifecycle (%s)", (via) => {
  const fresh = () => unique(`file_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Props = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...validFile, identifier, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates with one multipart POST; records the content's hash, not the content; reads back with no diff", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...validFile, identifier, project: "payments" })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    const { file: _f, ...rest } = inputs;
    expect(outs).toEqual({
      ...rest,
      type: "SecretFile",
      fileSha256: sha(PEM),
      ref: identifier,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(bed.sent()).toEqual(["POST /ng/api/v2/secrets/files"]);
    const body = String(bed.proxy.writes()[0]!.body);
    expect(body).toContain('name="spec"');
    expect(body).toContain(`name="file"; filename="${identifier}"`);
    expect(body).toContain(PEM);
    const live = await platform.secrets.get(identifier, { org: "default", project: "payments" });
    expect(live.secret).toMatchObject({
      type: "SecretFile",
      spec: { secretManagerIdentifier: "harnessSecretManager" },
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("a metadata change is one PUT without the file part; a content change one PUT with it", async () => {
    const { identifier, id, outs, inputs } = await created();
    bed.reset();
    const renamed = (await d.update(id, outs, { ...inputs, description: "rotated yearly" })).outs;
    expect(renamed).toMatchObject({ description: "rotated yearly", fileSha256: sha(PEM) });
    const next = `${PEM}# v2\n`;
    const rotated = (await d.update(id, renamed, { ...inputs, description: "rotated yearly", file: next }))
      .outs;
    expect(rotated).toMatchObject({ fileSha256: sha(next) });
    expect(rotated).not.toHaveProperty("file");
    expect(bed.sent()).toEqual([
      `GET /ng/api/v2/secrets/${identifier}`,
      `PUT /ng/api/v2/secrets/files/${identifier}`,
      `GET /ng/api/v2/secrets/${identifier}`,
      `PUT /ng/api/v2/secrets/files/${identifier}`,
    ]);
    const [first, second] = bed.proxy.writes().map((w) => String(w.body));
    expect(first).not.toContain('name="file"');
    expect(second).toContain(next);
  });

  it("writes base64 content decoded", async () => {
    const text = "plain bytes, given as base64";
    const { outs } = await created({ file: Buffer.from(text).toString("base64"), fileEncoding: "base64" });
    expect(outs).toMatchObject({ fileSha256: sha(text), fileEncoding: "base64" });
    expect(String(bed.proxy.writes().at(-1)!.body)).toContain(text);
  });

  it("refuses a duplicate naming the secret, adopts with adopt: true writing the program's content", async () => {
    const identifier = fresh();
    await platform.secrets.createFile(
      {
        identifier,
        name: "By hand",
        orgIdentifier: "default",
        spec: { secretManagerIdentifier: "harnessSecretManager" },
      },
      "by hand",
    );
    const inputs = (await d.check({}, { ...validFile, identifier })).inputs;
    const refused = await d.create(inputs).catch((e: Error) => e);
    expect((refused as Error).message).toContain(`secret "${identifier}" (org.${identifier}) already exists`);
    expect((refused as Error).message).not.toContain(FILE_SENTINEL);
    bed.reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(bed.sent()).toEqual([
      `GET /ng/api/v2/secrets/${identifier}`,
      `PUT /ng/api/v2/secrets/files/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({ name: "TLS key", fileSha256: sha(PEM), adopt: true });
    await d.delete(adopted.id, adopted.outs);
  });

  it("finds its own create after a lost response instead of failing on the duplicate", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...validFile, identifier })).inputs;
    bed.reset();
    bed.proxy.once({ method: "POST", path: /^\/ng\/api\/v2\/secrets\/files$/ }, { lose: true });
    const { id, outs } = await d.create(inputs);
    expect([id, outs.fileSha256]).toEqual([`default/${identifier}`, sha(PEM)]);
    expect(bed.sent()).toEqual(["POST /ng/api/v2/secrets/files", `GET /ng/api/v2/secrets/${identifier}`]);
  });
});

describe("the file sentinel", () => {
  it("is in no output, no request but the content's writes, no error, nothing the emulator logged or the host wrote", async () => {
    bed.reset();
    const errors: string[] = [];
    for (const mode of MODES) {
      const d = drivers[mode];
      const identifier = unique(`fsentinel_${slug(mode)}`, "_");
      const inputs = (await d.check({}, { ...validFile, identifier })).inputs;
      const { id, outs } = await d.create(inputs);
      const dup = await d.create(inputs).catch((e: Error) => e);
      expect((dup as Error).message).toContain("already exists");
      errors.push(String(dup), JSON.stringify(dup), (dup as Error).stack ?? "");
      const read = await d.read(id, outs);
      const updated = (await d.update(id, read.props!, { ...inputs, description: "rotated" })).outs;
      await d.delete(id, updated);
      expect(JSON.stringify([outs, read.props, updated])).not.toContain(FILE_SENTINEL);
    }
    expect(errors.join("\n")).not.toContain(FILE_SENTINEL);
    const carrying = bed.proxy.requests().filter((r) => JSON.stringify(r).includes(FILE_SENTINEL));
    expect(carrying.map((r) => `${r.method} ${r.path.replace(/fsentinel_\w+/, "<id>")}`)).toEqual([
      "POST /ng/api/v2/secrets/files",
      "POST /ng/api/v2/secrets/files",
      "POST /ng/api/v2/secrets/files",
      "POST /ng/api/v2/secrets/files",
    ]);
    expect(JSON.stringify(bed.emu.requests())).not.toContain(FILE_SENTINEL);
    expect(bed.host.stderr()).not.toContain(FILE_SENTINEL);
  });
});
