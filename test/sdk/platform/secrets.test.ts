/**
 * platform.secrets against the emulator: the value goes out in the create and update bodies only,
 * never comes back, and is in no error; scope in the query; paging by `pageIndex`/`pageSize`.
 */
import { describe, expect, it } from "vitest";
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
