/**
 * platform.secrets against the emulator: the value goes out in the create and update bodies only,
 * never comes back, and is in no error; scope in the query; paging by `pageIndex`/`pageSize`; file
 * secrets as multipart (`createFile`, `updateFile`): the exact parts sent, the content nowhere else.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../sdk/core/errors";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const SENTINEL = "s3ntinel-VALUE-7f3a";
const at = { org: "default" };
const text = (identifier: string, value: string) => ({
  type: "SecretText" as const,
  identifier,
  name: identifier,
  orgIdentifier: "default",
  spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline" as const, value },
});

describe("platform.secrets", () => {
  it("creates a text secret whose value is sent once and read back as null", async () => {
    const created = await bed.platform.secrets.create(text("docker_pw", SENTINEL));
    expect(created).toEqual({
      secret: {
        type: "SecretText",
        name: "docker_pw",
        identifier: "docker_pw",
        orgIdentifier: "default",
        projectIdentifier: null,
        tags: {},
        description: "",
        spec: { value: null, secretManagerIdentifier: "harnessSecretManager", valueType: "Inline" },
      },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      draft: false,
    });
    expect(await bed.platform.secrets.get("docker_pw", at)).toEqual(created);
    expect(bed.seen()).toEqual([
      `POST /ng/api/v2/secrets?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default 200`,
      `GET /ng/api/v2/secrets/docker_pw?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default 200`,
    ]);
    expect(bed.rec.sent.map((s) => (s.body ?? "").includes(SENTINEL))).toEqual([true, false]);
  });

  it("updates by PUT /{identifier}; a duplicate, a missing one and an If-Match are refused without the value", async () => {
    await bed.platform.secrets.create(text("api_token", "first"));
    const updated = await bed.platform.secrets.update({ ...text("api_token", SENTINEL), name: "API token" });
    expect(updated.secret).toMatchObject({ name: "API token", spec: { value: null } });
    const errors = await Promise.all([
      bed.platform.secrets.create(text("api_token", SENTINEL)).catch((e: unknown) => e),
      bed.platform.secrets.update(text("nowhere", SENTINEL)).catch((e: unknown) => e),
      bed.platform.secrets.update(text("api_token", SENTINEL), { ifMatch: 1 }).catch((e: unknown) => e),
    ]);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual([
      "DUPLICATE_FIELD",
      "ENTITY_NOT_FOUND",
      undefined,
    ]);
    for (const e of errors) expect(JSON.stringify(e) + String(e)).not.toContain(SENTINEL);
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "POST /ng/api/v2/secrets",
      "PUT /ng/api/v2/secrets/api_token",
      "POST /ng/api/v2/secrets",
      "PUT /ng/api/v2/secrets/nowhere",
    ]);
  });

  it("lists a scope page by page, filtered by type, and deletes", async () => {
    for (const id of ["page_a", "page_b", "page_c"]) {
      await bed.platform.secrets.create({ ...text(id, "v"), orgIdentifier: undefined });
    }
    bed.reset();
    const ids = (await collect(bed.platform.secrets.list({ type: "SecretText", pageSize: 2 }))).map(
      (s) => s.secret.identifier,
    );
    // Newest first, as the emulator lists.
    expect(ids).toEqual(["page_c", "page_b", "page_a"]);
    expect(bed.seen().map((s) => s.replace(/^GET \S+\?accountIdentifier=\w+&/, ""))).toEqual([
      "type=SecretText&pageIndex=0&pageSize=2 200",
      "type=SecretText&pageIndex=1&pageSize=2 200",
    ]);
    expect(await bed.platform.secrets.delete("page_a", {})).toBe(true);
    await expect(bed.platform.secrets.get("page_a", {})).rejects.toMatchObject({ kind: "not-found" });
  });
});

const FILE = "-----BEGIN CERTIFICATE-----\nFile-Sentinel-2c7e90\n-----END CERTIFICATE-----\n";
const fileMeta = (identifier: string, extra: Record<string, unknown> = {}) => ({
  identifier,
  name: identifier,
  orgIdentifier: "default",
  spec: { secretManagerIdentifier: "harnessSecretManager" },
  ...extra,
});

/** The `name` of each part of a recorded multipart body, with its content. */
function formParts(body: string | undefined): [string, string][] {
  const boundary = /^--(\S+)\r\n/.exec(body ?? "")?.[1];
  if (boundary === undefined) throw new Error("not a multipart body");
  return body!
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => {
      const [head, ...rest] = chunk.slice(2, -2).split("\r\n\r\n");
      return [/name="([^"]+)"/.exec(head!)![1]!, rest.join("\r\n\r\n")];
    });
}

describe("platform.secrets file secrets", () => {
  it("creates a file secret with one multipart POST: the spec part, then the file part; the content never comes back", async () => {
    bed.reset();
    const created = await bed.platform.secrets.createFile(
      fileMeta("tls_cert", { tags: { team: "web" } }),
      FILE,
    );
    expect(created).toEqual({
      secret: {
        type: "SecretFile",
        name: "tls_cert",
        identifier: "tls_cert",
        orgIdentifier: "default",
        projectIdentifier: null,
        tags: { team: "web" },
        description: "",
        spec: { secretManagerIdentifier: "harnessSecretManager" },
      },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      draft: false,
    });
    expect(await bed.platform.secrets.get("tls_cert", at)).toEqual(created);
    expect(bed.seen()).toEqual([
      `POST /ng/api/v2/secrets/files?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default 200`,
      `GET /ng/api/v2/secrets/tls_cert?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default 200`,
    ]);
    const sent = bed.rec.sent[0]!;
    expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(formParts(sent.body)).toEqual([
      [
        "spec",
        JSON.stringify({
          secret: {
            type: "SecretFile",
            name: "tls_cert",
            identifier: "tls_cert",
            orgIdentifier: "default",
            description: "",
            tags: { team: "web" },
            spec: { secretManagerIdentifier: "harnessSecretManager" },
          },
        }),
      ],
      ["file", FILE],
    ]);
    expect(bed.rec.sent.map((s) => (s.body ?? "").includes("File-Sentinel"))).toEqual([true, false]);
  });

  it("updates by PUT /files/{identifier}: with content sends both parts, without it only the spec", async () => {
    await bed.platform.secrets.createFile(fileMeta("kubeconfig"), new TextEncoder().encode("first"));
    bed.reset();
    const updated = await bed.platform.secrets.updateFile(fileMeta("kubeconfig", { name: "Kube" }), FILE);
    expect(updated.secret).toMatchObject({ type: "SecretFile", name: "Kube" });
    await bed.platform.secrets.updateFile(fileMeta("kubeconfig", { description: "renamed" }));
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "PUT /ng/api/v2/secrets/files/kubeconfig",
      "PUT /ng/api/v2/secrets/files/kubeconfig",
    ]);
    expect(bed.rec.sent.map((s) => formParts(s.body).map(([name]) => name))).toEqual([
      ["spec", "file"],
      ["spec"],
    ]);
    expect((await bed.platform.secrets.get("kubeconfig", at)).secret).toMatchObject({
      name: "kubeconfig",
      description: "renamed",
    });
  });

  it("refuses bad metadata and missing content naming the field, with no request", async () => {
    bed.reset();
    const errors = await Promise.all([
      bed.platform.secrets.createFile(fileMeta("bad-id"), FILE).catch((e: unknown) => e),
      bed.platform.secrets.createFile(fileMeta("no_file"), undefined as never).catch((e: unknown) => e),
      bed.platform.secrets
        .updateFile({ ...fileMeta("wrong_type"), type: "SecretText" } as never, FILE)
        .catch((e: unknown) => e),
    ]);
    for (const e of errors) expect(e).toBeInstanceOf(ValidationError);
    expect(errors.map((e) => (e as ValidationError).fieldErrors.map((f) => f.field))).toEqual([
      ["secret.identifier"],
      ["file"],
      ["secret.type"],
    ]);
    expect(bed.seen()).toEqual([]);
  });

  it("answers a duplicate and a missing one with the service's errors, which never hold the content", async () => {
    await bed.platform.secrets.createFile(fileMeta("dup_file"), FILE);
    const errors = await Promise.all([
      bed.platform.secrets.createFile(fileMeta("dup_file"), FILE).catch((e: unknown) => e),
      bed.platform.secrets.updateFile(fileMeta("nowhere_file"), FILE).catch((e: unknown) => e),
    ]);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(["DUPLICATE_FIELD", "ENTITY_NOT_FOUND"]);
    for (const e of errors) expect(JSON.stringify(e) + String(e)).not.toContain("File-Sentinel");
  });
});
