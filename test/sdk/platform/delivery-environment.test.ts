/** platform.environments against the emulator: exact data with the body's version, `If-Match`, delete. */
import { describe, expect, it } from "vitest";
import { usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments" };
const prod = (name: string) => ({
  identifier: "prod",
  orgIdentifier: "default",
  projectIdentifier: "payments",
  name,
  type: "Production" as const,
});

describe("platform.environments", () => {
  it("creates, updates with the version read, refuses a stale one, and deletes", async () => {
    const created = await bed.platform.environments.create(prod("Production"));
    expect(created.environment).toMatchObject({
      identifier: "prod",
      name: "Production",
      type: "Production",
      color: "#0063F7",
      version: 0,
    });
    expect(created.version).toBe(0);
    const updated = await bed.platform.environments.update(prod("Prod"), { ifMatch: 0 });
    expect([updated.environment.name, updated.version]).toEqual(["Prod", 1]);
    await expect(bed.platform.environments.update(prod("Stale"), { ifMatch: 0 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("couldn't be updated or doesn't exist."),
    });
    expect((await bed.platform.environments.get("prod", at)).environment.name).toBe("Prod");
    await expect(bed.platform.environments.delete("prod", at, { ifMatch: 0 })).rejects.toMatchObject({
      message: expect.stringContaining("couldn't be deleted."),
    });
    expect(await bed.platform.environments.delete("prod", at, { ifMatch: 1 })).toBe(true);
    expect(bed.seen().map((s) => s.split("?")[0])).toEqual([
      "POST /ng/api/environmentsV2",
      "PUT /ng/api/environmentsV2",
      "PUT /ng/api/environmentsV2",
      "GET /ng/api/environmentsV2/prod",
      "DELETE /ng/api/environmentsV2/prod",
      "DELETE /ng/api/environmentsV2/prod",
    ]);
    expect(bed.ifMatches()).toEqual(["-", "0", "0", "-", "0", "1"]);
  });
});
