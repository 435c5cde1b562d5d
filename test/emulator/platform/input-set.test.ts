/** Input sets of a pipeline (`emulator/platform/input-set.ts`): CRUD, version, If-Match, refusals. */
import { describe, expect, it } from "vitest";
import { answers, inputSetYaml, pipelineQuery, useProjectPlatform } from "./entity-fixtures";
import { errorBody, failureBody, successBody, validationBody } from "./harness";

const p = useProjectPlatform();

const SETS = "/pipeline/api/inputSets";
const query = pipelineQuery("pipelineIdentifier");

describe("input sets", () => {
  it("creates an input set, reads it, updates it under If-Match, lists and deletes it", async () => {
    const created = await p().call("POST", SETS, { query, yaml: inputSetYaml("nightly") });
    expect([created.status, created.headers.get("etag")]).toEqual([200, "W/0"]);
    expect(created.body).toEqual(
      successBody({
        accountId: "acc_test",
        orgIdentifier: "default",
        projectIdentifier: "proj",
        pipelineIdentifier: "pipe",
        identifier: "nightly",
        inputSetYaml: inputSetYaml("nightly"),
        name: "nightly",
        description: "",
        tags: { team: "web" },
        isOutdated: false,
        isErrorResponse: false,
        version: 0,
      }),
    );
    expect((await p().call("GET", `${SETS}/nightly`, { query })).body.data).toEqual(created.body.data);
    const text = inputSetYaml("nightly").replace("value: v", "value: w");
    const updated = await p().call("PUT", `${SETS}/nightly`, {
      query,
      yaml: text,
      headers: { "if-match": "0" },
    });
    expect([updated.status, updated.body.data.version, updated.body.data.inputSetYaml]).toEqual([
      200,
      1,
      text,
    ]);
    const stale = await p().call("PUT", `${SETS}/nightly`, {
      query,
      yaml: text,
      headers: { "if-match": "0" },
    });
    answers(
      stale,
      400,
      failureBody(
        "OPTIMISTIC_LOCKING_EXCEPTION",
        "Request failed as you have an older version of entity, please reload the page and try again.",
      ),
    );
    const list = await p().call("GET", SETS, { query: { ...query, pageIndex: "0", pageSize: "5" } });
    expect(list.body.data.content).toEqual([
      {
        identifier: "nightly",
        name: "nightly",
        pipelineIdentifier: "pipe",
        description: "",
        inputSetType: "INPUT_SET",
        tags: { team: "web" },
        version: 1,
        createdAt: expect.any(Number),
        lastUpdatedAt: expect.any(Number),
        isOutdated: false,
      },
    ]);
    expect(
      (await p().call("DELETE", `${SETS}/nightly`, { query, headers: { "if-match": "1" } })).body,
    ).toEqual(successBody(true));
    const gone = await p().call("GET", `${SETS}/nightly`, { query });
    answers(
      gone,
      404,
      errorBody("ENTITY_NOT_FOUND", "InputSet with the given ID: nightly does not exist or has been deleted"),
    );
  });

  it("refuses an input set of a missing pipeline, of another pipeline, a renamed one and missing parameters", async () => {
    const noPipe = await p().call("POST", SETS, {
      query: pipelineQuery("pipelineIdentifier", "ghost"),
      yaml: inputSetYaml("s1", "ghost"),
    });
    answers(
      noPipe,
      404,
      errorBody(
        "ENTITY_NOT_FOUND",
        "Pipeline [ghost] under Project[proj], Organization [default] doesn't exist or has been deleted.",
      ),
    );
    const other = await p().call("POST", SETS, { query, yaml: inputSetYaml("s1", "other") });
    expect(other.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        "Expected InputSet pipeline identifier in YAML to be [pipe], but was [other]",
      ),
    );
    await p().call("POST", SETS, { query, yaml: inputSetYaml("s2") });
    const renamed = await p().call("PUT", `${SETS}/s2`, { query, yaml: inputSetYaml("s3") });
    expect(renamed.body).toEqual(
      errorBody("INVALID_REQUEST", "Expected InputSet identifier in YAML to be [s2], but was [s3]"),
    );
    const dup = await p().call("POST", SETS, { query, yaml: inputSetYaml("s2") });
    expect(dup.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "InputSet [s2] under Project[proj], Organization [default] for Pipeline [pipe] already exists",
      ),
    );
    const noParams = await p().call("GET", SETS, { query: { orgIdentifier: "default" } });
    expect(noParams.body).toEqual(
      validationBody([
        ["projectIdentifier", "must not be null"],
        ["pipelineIdentifier", "must not be null"],
      ]),
    );
  });
});
