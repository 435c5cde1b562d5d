/** Triggers of a pipeline (`emulator/platform/trigger.ts`): webhook and cron, version, If-Match. */
import { describe, expect, it } from "vitest";
import { answers, pipelineQuery, triggerYaml, useProjectPlatform } from "./entity-fixtures";
import { errorBody, successBody, validationBody } from "./harness";

const p = useProjectPlatform();

const TRIGGERS = "/pipeline/api/triggers";
const query = pipelineQuery("targetIdentifier");

describe("triggers", () => {
  it.each([
    ["push", "webhook", "Webhook"],
    ["nightly", "cron", "Scheduled"],
  ] as const)("creates the %s trigger (%s) and reads it back", async (id, kind, type) => {
    const created = await p().call("POST", TRIGGERS, { query, yaml: triggerYaml(id, kind) });
    expect([created.status, created.headers.get("etag")]).toEqual([200, "W/0"]);
    const data = {
      name: id,
      identifier: id,
      description: "",
      type,
      accountIdentifier: "acc_test",
      orgIdentifier: "default",
      projectIdentifier: "proj",
      targetIdentifier: "pipe",
      yaml: triggerYaml(id, kind),
      version: 0,
      enabled: true,
    };
    expect(created.body).toEqual(successBody(data));
    expect((await p().call("GET", `${TRIGGERS}/${id}`, { query })).body).toEqual(successBody(data));
  });

  it("updates under If-Match, refuses a stale version, lists and deletes", async () => {
    const off = triggerYaml("nightly", "cron").replace("enabled: true", "enabled: false");
    const updated = await p().call("PUT", `${TRIGGERS}/nightly`, {
      query,
      yaml: off,
      headers: { "if-match": "W/0" },
    });
    expect([updated.status, updated.headers.get("etag"), updated.body.data.enabled]).toEqual([
      200,
      "W/1",
      false,
    ]);
    const stale = await p().call("DELETE", `${TRIGGERS}/nightly`, { query, headers: { "if-match": "0" } });
    expect([stale.status, stale.body.code]).toEqual([400, "OPTIMISTIC_LOCKING_EXCEPTION"]);
    const list = await p().call("GET", TRIGGERS, { query: { ...query, page: "0", size: "1" } });
    expect([list.body.data.totalItems, list.body.data.totalPages, list.body.data.content.length]).toEqual([
      2, 2, 1,
    ]);
    expect((await p().call("DELETE", `${TRIGGERS}/nightly`, { query })).body).toEqual(successBody(true));
    const gone = await p().call("DELETE", `${TRIGGERS}/nightly`, { query });
    answers(gone, 404, errorBody("ENTITY_NOT_FOUND", "Trigger nightly does not exist"));
  });

  it("refuses a cron trigger without an expression and a trigger whose YAML names another project", async () => {
    const noCron = await p().call("POST", TRIGGERS, {
      query,
      yaml: triggerYaml("c2", "cron").replace("expression: 0 4 * * *", "expression: ''"),
    });
    answers(
      noCron,
      400,
      validationBody([["yaml.trigger.source.spec.spec.expression", "expression is required"]]),
    );
    const elsewhere = await p().call("POST", TRIGGERS, {
      query,
      yaml: triggerYaml("c3", "webhook").replace("projectIdentifier: proj", "projectIdentifier: other"),
    });
    expect(elsewhere.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        "Expected Trigger projectIdentifier in YAML to be [proj], but was [other]",
      ),
    );
  });
});
