/**
 * The v1 API of pipelines and input sets (`emulator/platform/v1.ts`, ref §6.1), driven with the
 * requests today's Harness Terraform provider sends through harness-openapi-go-client: JSON bodies
 * with the YAML as a string, `git_details.store_type: INLINE` on create and none on update
 * (`resource_pipeline.go` `buildCreatePipeline`/`buildUpdatePipeline`, `input_set_resource.go`),
 * `Harness-Account` and `x-api-key` headers, no `accountIdentifier` query parameter; the read
 * after each write (`branch_name=` empty), and a missing object's 404, on which the provider drops
 * it from the state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  type CallInit,
  errorBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  successBody,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let account: string;
const V1 = "/v1/orgs/default/projects/tfp";

/** One request as the provider's Go client sends it. */
const tf: Call = (method, path, init: CallInit = {}) =>
  platform.call(method, path, {
    account: false,
    ...init,
    headers: { "Harness-Account": account, accept: "application/json", ...init.headers },
  });

const pipelineYaml = (id: string, extra = "") => simplePipeline(id, "tfp", "default", extra);
const createBody = (id: string, yaml = pipelineYaml(id)) => ({
  pipeline_yaml: yaml,
  identifier: id,
  name: `${id} pipeline`,
  git_details: { store_type: "INLINE" },
});
const inputSetYaml = (id: string, value = "v", pipeline = "tf_pipe") => `inputSet:
  name: ${id}
  identifier: ${id}
  orgIdentifier: default
  projectIdentifier: tfp
  pipeline:
    identifier: ${pipeline}
    variables:
      - name: key
        type: String
        value: ${value}
`;

beforeAll(async () => {
  platform = await startPlatform();
  account = platform.emu.accountId;
  const project = { project: { identifier: "tfp", name: "Terraform" } };
  expect((await platform.call("POST", "/ng/api/projects", { json: project })).status).toBe(200);
});
afterAll(async () => {
  await platform.emu.stop();
});

describe("v1 pipelines", () => {
  it("creates (201 {identifier}), reads, updates, lists and deletes (204) as the provider does", async () => {
    const created = await tf("POST", `${V1}/pipelines`, { json: createBody("tf_pipe") });
    expect([created.status, created.body]).toEqual([201, { identifier: "tf_pipe" }]);
    const read = await tf("GET", `${V1}/pipelines/tf_pipe`, { query: { branch_name: "" } });
    expect([read.status, read.body]).toEqual([
      200,
      {
        pipeline_yaml: pipelineYaml("tf_pipe"),
        identifier: "tf_pipe",
        name: "tf_pipe pipeline",
        org: "default",
        project: "tfp",
        description: "",
        tags: {},
        modules: ["pms"],
        valid: true,
        created: expect.any(Number),
        updated: expect.any(Number),
      },
    ]);
    const withTemplates = await tf("GET", `${V1}/pipelines/tf_pipe`, { query: { template_applied: "true" } });
    expect(withTemplates.body.template_applied_pipeline_yaml).toBe(pipelineYaml("tf_pipe"));

    const tagged = pipelineYaml("tf_pipe", "  description: nightly build\n  tags:\n    team: web\n");
    const update = {
      pipeline_yaml: tagged,
      identifier: "tf_pipe",
      name: "tf_pipe pipeline",
      description: "nightly build",
      tags: { team: "web" },
    };
    const updated = await tf("PUT", `${V1}/pipelines/tf_pipe`, { json: update });
    expect([updated.status, updated.body]).toEqual([200, { identifier: "tf_pipe" }]);
    const reread = await tf("GET", `${V1}/pipelines/tf_pipe`, { query: { branch_name: "" } });
    expect([reread.body.pipeline_yaml, reread.body.description, reread.body.tags]).toEqual([
      tagged,
      "nightly build",
      { team: "web" },
    ]);

    expect((await tf("POST", `${V1}/pipelines`, { json: createBody("tf_other") })).status).toBe(201);
    const list = await tf("GET", `${V1}/pipelines`, {
      query: { page: "0", limit: "1", sort: "identifier", order: "ASC" },
    });
    expect([list.status, list.headers.get("x-total-elements"), list.headers.get("x-page-size")]).toEqual([
      200,
      "2",
      "1",
    ]);
    expect(list.body).toEqual([
      {
        identifier: "tf_other",
        name: "tf_other pipeline",
        description: "",
        tags: {},
        created: expect.any(Number),
        updated: expect.any(Number),
        modules: ["pms"],
        store_type: "INLINE",
        valid: true,
      },
    ]);
    const searched = await tf("GET", `${V1}/pipelines`, { query: { search_term: "TF_PIPE" } });
    expect(searched.body.map((p: { identifier: string }) => p.identifier)).toEqual(["tf_pipe"]);

    const deleted = await tf("DELETE", `${V1}/pipelines/tf_other`);
    expect([deleted.status, deleted.body]).toEqual([204, null]);
  });

  it("answers a missing pipeline 404 ENTITY_NOT_FOUND (the provider then drops it), on read, update and delete", async () => {
    const message =
      "Pipeline [ghost] under Project[tfp], Organization [default] doesn't exist or has been deleted.";
    const missing = await tf("GET", `${V1}/pipelines/ghost`, { query: { branch_name: "" } });
    expect([missing.status, missing.body]).toEqual([404, errorBody("ENTITY_NOT_FOUND", message)]);
    const update = { pipeline_yaml: pipelineYaml("ghost"), identifier: "ghost", name: "ghost pipeline" };
    expect((await tf("PUT", `${V1}/pipelines/ghost`, { json: update })).status).toBe(404);
    const del = await tf("DELETE", `${V1}/pipelines/ghost`);
    expect([del.status, del.body]).toEqual([404, errorBody("ENTITY_NOT_FOUND", message)]);
  });

  it("is one store with the v0 API: each reads, changes and deletes what the other made", async () => {
    expect((await tf("POST", `${V1}/pipelines`, { json: createBody("shared") })).status).toBe(201);
    const q = { orgIdentifier: "default", projectIdentifier: "tfp" };
    const v0 = await platform.call("GET", "/pipeline/api/pipelines/shared", { query: q });
    expect([v0.status, v0.headers.get("etag"), v0.body.data.yamlPipeline]).toEqual([
      200,
      "W/0",
      pipelineYaml("shared"),
    ]);
    const v0made = await platform.call("POST", "/pipeline/api/pipelines/v2", {
      query: q,
      yaml: pipelineYaml("from_v0"),
    });
    expect(v0made.status).toBe(200);
    expect((await tf("GET", `${V1}/pipelines/from_v0`)).body.pipeline_yaml).toBe(pipelineYaml("from_v0"));
    const v1update = {
      pipeline_yaml: pipelineYaml("from_v0"),
      identifier: "from_v0",
      name: "from_v0 pipeline",
    };
    expect((await tf("PUT", `${V1}/pipelines/from_v0`, { json: v1update })).status).toBe(200);
    // The v1 update moved the version the v0 API versions by.
    expect(
      (await platform.call("GET", "/pipeline/api/pipelines/from_v0", { query: q })).headers.get("etag"),
    ).toBe("W/1");
    expect((await platform.call("DELETE", "/pipeline/api/pipelines/shared", { query: q })).status).toBe(200);
    expect((await tf("GET", `${V1}/pipelines/shared`)).status).toBe(404);
    expect((await tf("DELETE", `${V1}/pipelines/from_v0`)).status).toBe(204);
    expect((await platform.call("GET", "/pipeline/api/pipelines/from_v0", { query: q })).status).toBe(404);
  });

  it("refuses a YAML that disagrees with the body, a create without git_details, and a REMOTE store", async () => {
    const renamed = { ...createBody("mismatch"), name: "another name" };
    const r = await tf("POST", `${V1}/pipelines`, { json: renamed });
    expect([r.status, r.body]).toEqual([
      400,
      errorBody(
        "INVALID_REQUEST",
        "Expected Pipeline name in YAML to be [another name], but was [mismatch pipeline]",
      ),
    ]);
    const tags = await tf("POST", `${V1}/pipelines`, {
      json: { ...createBody("tagged"), tags: { team: "api" } },
    });
    expect([tags.status, tags.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", 'Expected Pipeline tags in YAML to be [{"team":"api"}], but was [{}]'),
    ]);
    const { git_details: _, ...bare } = createBody("no_git");
    const npe = await tf("POST", `${V1}/pipelines`, { json: bare });
    expect([npe.status, npe.body]).toEqual([
      500,
      errorBody("UNKNOWN_ERROR", "Oops, something went wrong on our end: java.lang.NullPointerException"),
    ]);
    const remote = await tf("POST", `${V1}/pipelines`, {
      json: { ...createBody("remote"), git_details: { store_type: "REMOTE", repo_name: "r" } },
    });
    expect([remote.status, remote.body]).toEqual([
      400,
      errorBody(
        "INVALID_REQUEST",
        "store_type REMOTE: only INLINE pipelines and input sets are served by the emulator",
      ),
    ]);
    const noYaml = await tf("POST", `${V1}/pipelines`, { json: { identifier: "x", name: "x" } });
    expect([noYaml.status, noYaml.body]).toEqual([
      400,
      validationBody([["body.pipeline_yaml", "must not be null"]]),
    ]);
    expect((await tf("GET", `${V1}/pipelines/mismatch`)).status).toBe(404);
  });

  it("takes the account from Harness-Account and the key from x-api-key", async () => {
    const other = await tf("GET", `${V1}/pipelines`, { headers: { "Harness-Account": "someone_else" } });
    expect([other.status, other.body]).toEqual([
      403,
      errorBody("NG_ACCESS_DENIED", "Missing permission to access account [someone_else]"),
    ]);
    const noKey = await tf("GET", `${V1}/pipelines`, { key: null });
    expect([noKey.status, noKey.body]).toEqual([401, errorBody("INVALID_TOKEN", "Token is not valid.")]);
    // "If you are using the x-api-key header, this can be skipped" (the client's HarnessAccount option).
    const noAccount = await platform.call("GET", `${V1}/pipelines`, { account: false });
    expect(noAccount.status).toBe(200);
  });
});

describe("v1 input sets", () => {
  // No git_details: the provider's buildCreateInputSet sends none without a git block.
  const isBody = (id: string, value = "v") => ({
    input_set_yaml: inputSetYaml(id, value),
    identifier: id,
    name: id,
  });
  const query = { pipeline: "tf_pipe" };

  it("creates (201), reads, updates, lists and deletes (204) as the provider does, answering the input set", async () => {
    const created = await tf("POST", `${V1}/input-sets`, { query, json: isBody("nightly") });
    const answer = (value: string) => ({
      input_set_yaml: inputSetYaml("nightly", value),
      identifier: "nightly",
      name: "nightly",
      org: "default",
      project: "tfp",
      description: "",
      tags: {},
      created: expect.any(Number),
      updated: expect.any(Number),
    });
    expect([created.status, created.body]).toEqual([201, answer("v")]);
    const read = await tf("GET", `${V1}/input-sets/nightly`, { query: { ...query, branch_name: "" } });
    expect([read.status, read.body]).toEqual([200, answer("v")]);
    const updated = await tf("PUT", `${V1}/input-sets/nightly`, { query, json: isBody("nightly", "w") });
    expect([updated.status, updated.body]).toEqual([200, answer("w")]);
    expect((await tf("POST", `${V1}/input-sets`, { query, json: isBody("weekly") })).status).toBe(201);
    const list = await tf("GET", `${V1}/input-sets`, { query: { ...query, sort: "name", order: "ASC" } });
    expect(list.body.map((s: { identifier: string }) => s.identifier)).toEqual(["nightly", "weekly"]);
    expect(list.headers.get("x-total-elements")).toBe("2");
    expect((await tf("DELETE", `${V1}/input-sets/weekly`, { query })).status).toBe(204);
    const gone = await tf("GET", `${V1}/input-sets/weekly`, { query });
    expect([gone.status, gone.body]).toEqual([
      404,
      errorBody("ENTITY_NOT_FOUND", "InputSet with the given ID: weekly does not exist or has been deleted"),
    ]);
    expect((await tf("DELETE", `${V1}/input-sets/weekly`, { query })).status).toBe(404);
  });

  it("is one store with the v0 input sets, and goes with its pipeline", async () => {
    const q = { orgIdentifier: "default", projectIdentifier: "tfp", pipelineIdentifier: "tf_pipe" };
    const v0 = await platform.call("GET", "/pipeline/api/inputSets/nightly", { query: q });
    expect([v0.status, v0.body]).toEqual([
      200,
      successBody(
        expect.objectContaining({
          identifier: "nightly",
          inputSetYaml: inputSetYaml("nightly", "w"),
          version: 1,
        }),
      ),
    ]);
    const made = await platform.call("POST", "/pipeline/api/inputSets", {
      query: q,
      yaml: inputSetYaml("from_v0"),
    });
    expect(made.status).toBe(200);
    expect((await tf("GET", `${V1}/input-sets/from_v0`, { query })).body.input_set_yaml).toBe(
      inputSetYaml("from_v0"),
    );
    expect((await tf("DELETE", `${V1}/pipelines/tf_pipe`)).status).toBe(204);
    expect((await tf("GET", `${V1}/input-sets/nightly`, { query })).status).toBe(404);
    expect((await platform.call("GET", "/pipeline/api/inputSets/from_v0", { query: q })).status).toBe(404);
  });

  it("refuses an input set for a missing pipeline, one whose YAML names another, and no pipeline parameter", async () => {
    const ghost = await tf("POST", `${V1}/input-sets`, { query: { pipeline: "ghost" }, json: isBody("a") });
    expect([ghost.status, ghost.body]).toEqual([
      400,
      errorBody(
        "INVALID_REQUEST",
        "Expected InputSet pipeline identifier in YAML to be [ghost], but was [tf_pipe]",
      ),
    ]);
    const noPipe = await tf("POST", `${V1}/input-sets`, { json: isBody("a") });
    expect([noPipe.status, noPipe.body]).toEqual([400, validationBody([["pipeline", "must not be null"]])]);
  });
});
