/** platform.triggers against the emulator: the pipeline as `targetIdentifier`, `If-Match`, `page`/`size`. */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { collect, createPipeline, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments", pipeline: "deploy" };
const cron = (expression: string) => ({
  trigger: {
    name: "Nightly",
    identifier: "nightly",
    orgIdentifier: "default",
    projectIdentifier: "payments",
    pipelineIdentifier: "deploy",
    source: { type: "Scheduled", spec: { type: "Cron", spec: { expression } } },
  },
});

describe("platform.triggers", () => {
  it("creates a cron trigger, updates it guarded by its version, lists and deletes it", async () => {
    await createPipeline(bed.platform, "deploy");
    const created = await bed.platform.triggers.create(cron("0 2 * * *"));
    expect(created).toEqual({
      name: "Nightly",
      identifier: "nightly",
      description: "",
      type: "Scheduled",
      accountIdentifier: bed.emu.accountId,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      targetIdentifier: "deploy",
      yaml: stringify(cron("0 2 * * *")),
      version: 0,
      enabled: true,
    });
    const updated = await bed.platform.triggers.update(cron("0 3 * * *"), { ifMatch: created.version });
    expect([updated.yaml, updated.version]).toEqual([stringify(cron("0 3 * * *")), 1]);
    await expect(bed.platform.triggers.update(cron("0 4 * * *"), { ifMatch: 0 })).rejects.toMatchObject({
      code: "OPTIMISTIC_LOCKING_EXCEPTION",
    });
    expect((await bed.platform.triggers.get("nightly", at)).yaml).toBe(stringify(cron("0 3 * * *")));
    expect(await collect(bed.platform.triggers.list(at))).toEqual([
      {
        name: "Nightly",
        identifier: "nightly",
        description: "",
        type: "Scheduled",
        tags: {},
        yaml: stringify(cron("0 3 * * *")),
        enabled: true,
      },
    ]);
    expect(await bed.platform.triggers.delete("nightly", at)).toBe(true);
    await expect(bed.platform.triggers.get("nightly", at)).rejects.toMatchObject({
      kind: "not-found",
      code: "ENTITY_NOT_FOUND",
    });
    expect(bed.seen().find((s) => s.startsWith("GET /pipeline/api/triggers?"))).toBe(
      `GET /pipeline/api/triggers?accountIdentifier=${bed.emu.accountId}&orgIdentifier=default&projectIdentifier=payments&targetIdentifier=deploy&page=0&size=100 200`,
    );
  });
});
