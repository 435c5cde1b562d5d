/** platform.services against the emulator: each call one request, exact data, `If-Match`, paging. */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { collect, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments" };
const yamlOf = (identifier: string, name: string) =>
  stringify({
    service: {
      name,
      identifier,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      serviceDefinition: { type: "Kubernetes", spec: { manifests: [] } },
    },
  });
const request = (identifier: string, name: string) => ({
  identifier,
  orgIdentifier: "default",
  projectIdentifier: "payments",
  name,
  yaml: yamlOf(identifier, name),
});

describe("platform.services", () => {
  it("creates a service with one POST and reads it back with its version", async () => {
    const created = await bed.platform.services.create(request("checkout", "Checkout"));
    expect(created).toEqual({
      service: {
        accountId: bed.emu.accountId,
        identifier: "checkout",
        orgIdentifier: "default",
        projectIdentifier: "payments",
        name: "Checkout",
        description: "",
        tags: {},
        deleted: false,
        yaml: yamlOf("checkout", "Checkout"),
      },
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
      version: 0,
    });
    const got = await bed.platform.services.get("checkout", at);
    expect(got).toEqual(created);
    expect(bed.seen()).toEqual([
      `POST /ng/api/servicesV2?accountIdentifier=${bed.emu.accountId} 200`,
      `GET /ng/api/servicesV2/checkout?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default&projectIdentifier=payments 200`,
    ]);
  });

  it("updates with If-Match: the version read goes through, a stale one is refused and changes nothing", async () => {
    await bed.platform.services.create(request("cart", "Cart"));
    const { version } = await bed.platform.services.get("cart", at);
    const updated = await bed.platform.services.update(request("cart", "Cart v2"), { ifMatch: version });
    expect(updated.service.name).toBe("Cart v2");
    expect(updated.version).toBe(version! + 1);
    await expect(
      bed.platform.services.update(request("cart", "Cart v3"), { ifMatch: version }),
    ).rejects.toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
      message: expect.stringContaining(
        "Service [cart] under Project[payments], Organization [default] couldn't be updated or doesn't exist.",
      ),
    });
    expect((await bed.platform.services.get("cart", at)).service.name).toBe("Cart v2");
    expect(bed.ifMatches()).toEqual(["-", "-", String(version), String(version), "-"]);
  });

  it("refuses a body without an identifier before any request", async () => {
    await expect(bed.platform.services.create({ name: "No id" } as never)).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "service.identifier", message: "identifier is required" }],
    });
    expect(bed.seen()).toEqual([]);
  });

  it("lists page by page and deletes; a deleted service is not found", async () => {
    for (const id of ["list_a", "list_b", "list_c"]) await bed.platform.services.create(request(id, id));
    bed.reset();
    const ids = (await collect(bed.platform.services.list({ ...at, pageSize: 2 }))).map(
      (s) => s.service.identifier,
    );
    expect(ids.filter((id) => id.startsWith("list_")).sort()).toEqual(["list_a", "list_b", "list_c"]);
    expect(bed.seen().map((s) => s.replace(/\?.*&page=/, "?page="))).toEqual(
      Array.from(
        { length: Math.ceil(ids.length / 2) },
        (_, i) => `GET /ng/api/servicesV2?page=${i}&size=2 200`,
      ),
    );
    expect(await bed.platform.services.delete("list_a", at)).toBe(true);
    await expect(bed.platform.services.get("list_a", at)).rejects.toMatchObject({ kind: "not-found" });
  });
});
