/** Services (v2, `emulator/platform/service.ts`): CRUD, list, If-Match, refusals, exact bodies. */
import { describe, expect, it } from "vitest";
import {
  answers,
  answersNotFound,
  inProject,
  projectQuery,
  serviceBody,
  serviceYaml,
  useProjectPlatform,
} from "./entity-fixtures";
import { errorBody, successBody } from "./harness";

const p = useProjectPlatform();

const SVC = "/ng/api/servicesV2";
const where = "Service [svc] under Project[proj], Organization [default]";

/** The `data` of a service as the API answers it. */
const serviceData = (fields: Record<string, unknown>) => ({
  service: {
    accountId: "acc_test",
    identifier: "svc",
    ...inProject,
    name: "svc",
    description: "",
    deleted: false,
    tags: {},
    yaml: serviceYaml("svc"),
    ...fields,
  },
  createdAt: expect.any(Number),
  lastModifiedAt: expect.any(Number),
});

describe("services", () => {
  it("creates, reads, updates under If-Match, lists and deletes a Kubernetes service", async () => {
    const created = await p().call("POST", SVC, { json: serviceBody("svc", { tags: { team: "web" } }) });
    expect(created.status).toBe(200);
    expect(created.headers.get("etag")).toBe("W/0");
    expect(created.body).toEqual(successBody(serviceData({ tags: { team: "web" } })));

    const read = await p().call("GET", `${SVC}/svc`, { query: projectQuery });
    expect([read.status, read.headers.get("etag")]).toEqual([200, "W/0"]);
    expect(read.body.data).toEqual(created.body.data);

    const updated = await p().call("PUT", SVC, {
      json: serviceBody("svc", { description: "web tier" }),
      headers: { "if-match": "0" },
    });
    expect([updated.status, updated.headers.get("etag")]).toEqual([200, "W/1"]);
    expect(updated.body).toEqual(successBody(serviceData({ description: "web tier" })));

    // ServiceEntityServiceImpl.update: the stale version is in the criteria, so nothing matches.
    const stale = await p().call("PUT", SVC, { json: serviceBody("svc"), headers: { "if-match": "0" } });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual(
      errorBody("INVALID_REQUEST", `${where} couldn't be updated or doesn't exist.`),
    );

    const list = await p().call("GET", SVC, {
      query: { ...projectQuery, searchTerm: "SV", page: "0", size: "10" },
    });
    const { totalItems, pageSize, pageIndex, content } = list.body.data;
    expect([list.status, totalItems, pageSize, pageIndex, content]).toEqual([
      200,
      1,
      10,
      0,
      [serviceData({ description: "web tier" })],
    ]);

    const staleDelete = await p().call("DELETE", `${SVC}/svc`, {
      query: projectQuery,
      headers: { "if-match": "0" },
    });
    expect(staleDelete.body).toEqual(errorBody("INVALID_REQUEST", `${where} couldn't be deleted.`));
    const deleted = await p().call("DELETE", `${SVC}/svc`, {
      query: projectQuery,
      headers: { "if-match": "1" },
    });
    answers(deleted, 200, successBody(true));
    const again = await p().call("DELETE", `${SVC}/svc`, { query: projectQuery });
    answers(again, 400, errorBody("INVALID_REQUEST", `${where} doesn't exist.`));
  });

  it("names a service without a name after its identifier and writes its YAML", async () => {
    const res = await p().call("POST", SVC, { json: { identifier: "bare", ...inProject } });
    expect(res.status).toBe(200);
    expect(res.body.data.service).toMatchObject({
      name: "bare",
      yaml: 'service:\n  name: bare\n  identifier: bare\n  orgIdentifier: default\n  projectIdentifier: proj\n  description: ""\n  tags: {}\n',
    });
  });

  it("refuses a duplicate, an update of a missing service, a missing scope and a bad definition", async () => {
    await p().call("POST", SVC, { json: serviceBody("dup") });
    const dup = await p().call("POST", SVC, { json: serviceBody("dup") });
    answers(
      dup,
      400,
      errorBody(
        "DUPLICATE_FIELD",
        "Service [dup] under Project[proj], Organization [default] in Account [acc_test] already exists",
      ),
    );
    const ghost = await p().call("PUT", SVC, { json: serviceBody("ghost") });
    expect(ghost.body).toEqual(
      errorBody(
        "INVALID_REQUEST",
        "Service [ghost] under Project[proj], Organization [default] doesn't exist.",
      ),
    );
    const noProject = await p().call("POST", SVC, { json: serviceBody("x", { projectIdentifier: "nope" }) });
    answersNotFound(noProject, "project [nope] not found.");
    const badType = await p().call("POST", SVC, {
      json: serviceBody("bad", { yaml: serviceYaml("bad").replace("type: Kubernetes", "type: Helmish") }),
    });
    expect(badType.status).toBe(400);
    expect(badType.body).toMatchObject({
      status: "FAILURE",
      code: "INVALID_REQUEST",
      errors: [{ fieldId: "type", error: expect.stringContaining("Kubernetes") }],
    });
    expect(badType.body.message).toMatch(/^yaml\.service\.serviceDefinition\.type: /);
  });

  it("answers a missing service's GET with the 400 FailureDTO of a javax NotFoundException", async () => {
    const res = await p().call("GET", `${SVC}/none`, { query: projectQuery });
    answersNotFound(res, "Service with identifier [none] in project [proj], org [default] not found");
  });
});
