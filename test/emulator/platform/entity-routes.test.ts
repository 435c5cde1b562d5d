/**
 * What the six v2 entities share (`emulator/platform/entity-routes.ts`, the store's
 * `platform-entities.ts`): cascades with pipelines, projects and organizations, the state file,
 * and the refusals of the route shape itself.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  answersNotFound,
  environmentBody,
  infrastructureBody,
  inputSetYaml,
  pipelineQuery,
  platformWithProject,
  projectQuery,
  SENTINEL,
  serviceBody,
  textSecret,
  triggerYaml,
} from "./entity-fixtures";
import { type InProcessPlatform, inProcessPlatform, simplePipeline } from "./harness";

/** One of each entity in `default/proj` (input set and trigger of `pipe`). */
async function oneOfEach(p: InProcessPlatform): Promise<void> {
  const writes = [
    p.call("POST", "/ng/api/servicesV2", { json: serviceBody("svc") }),
    p.call("POST", "/ng/api/environmentsV2", { json: environmentBody("env") }),
    p.call("POST", "/ng/api/v2/secrets", { query: projectQuery, json: textSecret("sec", SENTINEL) }),
    p.call("POST", "/pipeline/api/inputSets", {
      query: pipelineQuery("pipelineIdentifier"),
      yaml: inputSetYaml("is"),
    }),
    p.call("POST", "/pipeline/api/triggers", {
      query: pipelineQuery("targetIdentifier"),
      yaml: triggerYaml("tr", "cron"),
    }),
  ];
  for (const w of await Promise.all(writes)) expect(w.status).toBe(200);
  expect(
    (await p.call("POST", "/ng/api/infrastructures", { json: infrastructureBody("inf", "env") })).status,
  ).toBe(200);
}

/** How many entities of each route the project `proj` lists. */
async function counts(p: InProcessPlatform): Promise<number[]> {
  const lists = [
    ["/ng/api/servicesV2", projectQuery],
    ["/ng/api/environmentsV2", projectQuery],
    ["/ng/api/infrastructures", { ...projectQuery, environmentIdentifier: "env" }],
    ["/ng/api/v2/secrets", projectQuery],
    ["/pipeline/api/inputSets", pipelineQuery("pipelineIdentifier")],
    ["/pipeline/api/triggers", pipelineQuery("targetIdentifier")],
  ] as const;
  return Promise.all(
    lists.map(async ([path, query]) => (await p.call("GET", path, { query })).body.data.totalItems),
  );
}

describe("the v2 entities together", () => {
  it("deleting a pipeline takes its input sets and triggers along", async () => {
    const p = await platformWithProject();
    await oneOfEach(p);
    expect(await counts(p)).toEqual([1, 1, 1, 1, 1, 1]);
    await p.call("DELETE", "/pipeline/api/pipelines/pipe", { query: projectQuery });
    await p.call("POST", "/pipeline/api/pipelines/v2", {
      query: projectQuery,
      yaml: simplePipeline("pipe", "proj"),
    });
    expect(await counts(p)).toEqual([1, 1, 1, 1, 0, 0]);
    await p.close();
  });

  it("deleting a project, or its organization, takes everything in it along", async () => {
    const p = await platformWithProject();
    await oneOfEach(p);
    expect((await p.call("DELETE", "/ng/api/projects/proj")).status).toBe(200);
    await p.call("POST", "/ng/api/projects", { json: { project: { identifier: "proj", name: "proj" } } });
    await p.call("POST", "/pipeline/api/pipelines/v2", {
      query: projectQuery,
      yaml: simplePipeline("pipe", "proj"),
    });
    await p.call("POST", "/ng/api/environmentsV2", { json: environmentBody("env") });
    expect(await counts(p)).toEqual([0, 1, 0, 0, 0, 0]);

    await p.call("POST", "/ng/api/organizations", {
      json: { organization: { identifier: "acme", name: "Acme" } },
    });
    const orgSecret = textSecret("org_sec", SENTINEL, {
      orgIdentifier: "acme",
      projectIdentifier: undefined,
    });
    expect(
      (await p.call("POST", "/ng/api/v2/secrets", { query: { orgIdentifier: "acme" }, json: orgSecret }))
        .status,
    ).toBe(200);
    await p.call("DELETE", "/ng/api/organizations/acme");
    await p.call("POST", "/ng/api/organizations", {
      json: { organization: { identifier: "acme", name: "Acme" } },
    });
    const list = await p.call("GET", "/ng/api/v2/secrets", { query: { orgIdentifier: "acme" } });
    expect(list.body.data.totalItems).toBe(0);
    await p.close();
  });

  it("keeps every entity in the state file across a restart", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "flagstack-entities-")), "state.json");
    const first = await inProcessPlatform({ statePath });
    await first.call("POST", "/ng/api/projects", { json: { project: { identifier: "proj", name: "proj" } } });
    await first.call("POST", "/pipeline/api/pipelines/v2", {
      query: projectQuery,
      yaml: simplePipeline("pipe", "proj"),
    });
    await oneOfEach(first);
    await first.call("PUT", "/ng/api/servicesV2", { json: serviceBody("svc", { description: "v1" }) });
    await first.close();
    const second = await inProcessPlatform({ statePath });
    expect(await counts(second)).toEqual([1, 1, 1, 1, 1, 1]);
    const svc = await second.call("GET", "/ng/api/servicesV2/svc", { query: projectQuery });
    expect([svc.headers.get("etag"), svc.body.data.service.description]).toEqual(["W/1", "v1"]);
    await second.close();
  });

  it("answers another method on a known path as Jersey does: 400 RESOURCE_NOT_FOUND_EXCEPTION", async () => {
    const p = await inProcessPlatform();
    const res = await p.call("PATCH", "/ng/api/servicesV2/svc");
    answersNotFound(res, "HTTP 405 Method Not Allowed");
    await p.close();
  });
});
