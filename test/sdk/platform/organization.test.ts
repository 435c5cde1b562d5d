/** platform.organizations against the emulator: each call one request, exact data, `If-Match`, paging. */
import { describe, expect, it } from "vitest";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();

describe("platform.organizations", () => {
  it("creates an organization with one POST of {organization} and reads it back with its version", async () => {
    const created = await bed.platform.organizations.create({
      identifier: "acme",
      name: "Acme",
      tags: { tier: "gold" },
    });
    expect(created).toEqual({
      organization: { identifier: "acme", name: "Acme", description: "", tags: { tier: "gold" } },
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
      harnessManaged: false,
      version: 0,
    });
    expect(bed.rec.sent.map((s) => JSON.parse(String(s.body)))).toEqual([
      { organization: { identifier: "acme", name: "Acme", description: "", tags: { tier: "gold" } } },
    ]);
    expect(await bed.platform.organizations.get("acme", {})).toEqual(created);
    expect(bed.seen()).toEqual([
      `POST /ng/api/organizations?accountIdentifier=${bed.emu.accountId} 200`,
      `GET /ng/api/organizations/acme?accountIdentifier=${bed.emu.accountId} 200`,
    ]);
  });

  it("updates by PUT /{identifier} with If-Match: the version read goes through, a stale one is refused", async () => {
    await bed.platform.organizations.create({ identifier: "globex", name: "Globex" });
    const { version } = await bed.platform.organizations.get("globex", {});
    const updated = await bed.platform.organizations.update(
      { identifier: "globex", name: "Globex Corp" },
      { ifMatch: version },
    );
    expect(updated.organization.name).toBe("Globex Corp");
    expect(updated.version).toBe(version! + 1);
    await expect(
      bed.platform.organizations.update({ identifier: "globex", name: "Stale" }, { ifMatch: version }),
    ).rejects.toMatchObject({ status: 400, code: "OPTIMISTIC_LOCKING_EXCEPTION" });
    expect((await bed.platform.organizations.get("globex", {})).organization.name).toBe("Globex Corp");
    expect(bed.seen().map((s) => s.replace(/\?.*? /, " "))).toEqual([
      "POST /ng/api/organizations 200",
      "GET /ng/api/organizations/globex 200",
      "PUT /ng/api/organizations/globex 200",
      "PUT /ng/api/organizations/globex 400",
      "GET /ng/api/organizations/globex 200",
    ]);
    expect(bed.ifMatches()).toEqual(["-", "-", String(version), String(version), "-"]);
  });

  it("refuses a body without an identifier before any request", async () => {
    await expect(bed.platform.organizations.create({ name: "No id" } as never)).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "organization.identifier", message: "identifier is required" }],
    });
    expect(bed.seen()).toEqual([]);
  });

  it("lists page by page (pageIndex/pageSize) and deletes; a deleted organization is not found", async () => {
    for (const id of ["org_a", "org_b", "org_c"])
      await bed.platform.organizations.create({ identifier: id, name: id });
    bed.reset();
    const ids = (await collect(bed.platform.organizations.list({ pageSize: 2 }))).map(
      (o) => o.organization.identifier,
    );
    expect(ids.filter((id) => id.startsWith("org_")).sort()).toEqual(["org_a", "org_b", "org_c"]);
    expect(ids).toContain("default");
    expect(bed.seen()).toEqual(
      Array.from(
        { length: Math.ceil(ids.length / 2) },
        (_, i) =>
          `GET /ng/api/organizations?accountIdentifier=${bed.emu.accountId}&pageIndex=${i}&pageSize=2 200`,
      ),
    );
    expect(await bed.platform.organizations.delete("org_a", {})).toBe(true);
    await expect(bed.platform.organizations.get("org_a", {})).rejects.toMatchObject({ kind: "not-found" });
  });
});
