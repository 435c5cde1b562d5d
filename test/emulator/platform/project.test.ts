/**
 * Conformance of the platform API's projects (spec §2 "Project", §4 rule 1; ref §4) over HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PROJECT_MODULES } from "../../../emulator/store";
import {
  type Call,
  dockerConnector,
  errorBody,
  failureBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  successBody,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let call: Call;
let accountId: string;

/**
 * The emulator stamps times with Date.now(): the tests that check them fake Date alone (the
 * sockets and timers stay real) and set it to {@link AT} or later.
 */
const AT = Date.UTC(2026, 0, 1);
const dateAt = (ms: number) => {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
};
afterEach(() => {
  vi.useRealTimers();
});

beforeAll(async () => {
  platform = await startPlatform({ accountId: "acc_projects" });
  call = platform.call;
  accountId = platform.emu.accountId;
});
afterAll(async () => {
  await platform.emu.stop();
});

const create = (project: Record<string, unknown>, query: Record<string, string> = {}) =>
  call("POST", "/ng/api/projects", { json: { project }, query });

describe("POST /ng/api/projects", () => {
  it("creates a project in the default organization and answers the success envelope", async () => {
    dateAt(AT);
    const res = await create({ identifier: "minimal", name: "Minimal" });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/0");
    expect(res.body).toEqual(
      successBody({
        project: {
          orgIdentifier: "default",
          identifier: "minimal",
          name: "Minimal",
          color: "#0063F7",
          modules: [...PROJECT_MODULES],
          description: "",
          tags: {},
        },
        createdAt: AT,
        lastModifiedAt: AT,
        isFavorite: false,
      }),
    );
    expect(res.body.correlationId).toBe(res.headers.get("x-transaction-id"));
  });

  it("echoes every field sent, with the organization given in both query and body", async () => {
    const project = {
      orgIdentifier: "default",
      identifier: "echo_me",
      name: "Echo me",
      color: "#ff00AA",
      modules: [],
      description: "all fields",
      tags: { team: "payments", keyonly: "" },
    };
    const res = await create(project, { orgIdentifier: "default" });
    expect(res.status).toBe(200);
    // modules are server-owned (ref §4): the client's list is ignored.
    expect(res.body.data.project).toEqual({ ...project, modules: [...PROJECT_MODULES] });
  });

  it("takes the organization from the body when the query names none and they agree", async () => {
    const res = await create({ orgIdentifier: "default", identifier: "body_org", name: "Body org" });
    expect(res.status).toBe(200);
    expect(res.body.data.project.orgIdentifier).toBe("default");
  });

  it("refuses a body organization that differs from the query's (which defaults to default)", async () => {
    const res = await create({ orgIdentifier: "other", identifier: "mismatch", name: "Mismatch" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Value mismatch, previous: default current: other"),
    );
    const res2 = await create(
      { orgIdentifier: "default", identifier: "mismatch", name: "Mismatch" },
      { orgIdentifier: "other" },
    );
    expect(res2.status).toBe(400);
    expect(res2.body).toEqual(
      errorBody("INVALID_REQUEST", "Value mismatch, previous: other current: default"),
    );
  });

  it("refuses an organization that does not exist", async () => {
    const res = await create({ identifier: "orphan", name: "Orphan" }, { orgIdentifier: "other" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_ARGUMENT", `Organization [other] in Account [${accountId}] does not exist`),
    );
  });

  it("refuses a duplicate identifier, also in another letter case, with DUPLICATE_FIELD", async () => {
    expect((await create({ identifier: "dup", name: "Dup" })).status).toBe(200);
    const again = await create({ identifier: "dup", name: "Dup again" });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "A project with identifier [dup] and orgIdentifier [default] is already present",
      ),
    );
    const upper = await create({ identifier: "DUP", name: "Dup upper" });
    expect(upper.status).toBe(400);
    expect(upper.body).toEqual(
      errorBody(
        "DUPLICATE_FIELD",
        "A project with identifier [DUP] and orgIdentifier [default] is already present",
      ),
    );
  });

  const ID_RULE =
    "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $";
  it.each<[string, unknown, [string, string][]]>([
    ["no project object", {}, [["project", "must not be null"]]],
    ["a project that is not an object", { project: "p" }, [["project", "must be an object"]]],
    [
      "no identifier and no name",
      { project: {} },
      [
        ["project.identifier", "identifier is required"],
        ["project.name", "name is required"],
      ],
    ],
    [
      "an identifier starting with a digit",
      { project: { identifier: "1abc", name: "n" } },
      [["project.identifier", ID_RULE]],
    ],
    [
      "an identifier with a hyphen",
      { project: { identifier: "a-b", name: "n" } },
      [["project.identifier", ID_RULE]],
    ],
    [
      "an identifier of 129 characters",
      { project: { identifier: `a${"b".repeat(128)}`, name: "n" } },
      [["project.identifier", ID_RULE]],
    ],
    [
      "a reserved identifier",
      { project: { identifier: "class", name: "n" } },
      [["project.identifier", "class is a keyword, so cannot be used"]],
    ],
    [
      "a name of 65 characters",
      { project: { identifier: "a", name: "n".repeat(65) } },
      [["project.name", "name cannot be more than 64 characters long."]],
    ],
    [
      "a name with a bad character",
      { project: { identifier: "a", name: "bad!" } },
      [
        [
          "project.name",
          "name can only contain alphanumeric, space, hyphen, underscore, dot and slash characters.",
        ],
      ],
    ],
    [
      "a colour that is not #RRGGBB",
      { project: { identifier: "a", name: "n", color: "blue" } },
      [["project.color", "color must be a hex colour #RRGGBB"]],
    ],
    [
      "a description over 1024 characters",
      { project: { identifier: "a", name: "n", description: "d".repeat(1025) } },
      [["project.description", "description must be at most 1024 characters"]],
    ],
    [
      "a tag value that is not a string",
      { project: { identifier: "a", name: "n", tags: { a: 1 } } },
      [["project.tags.a", "Invalid input: expected string, received number"]],
    ],
  ])("refuses %s with a FailureDTO naming each field", async (_label, json, violations) => {
    const res = await call("POST", "/ng/api/projects", { json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody(violations));
  });

  it("accepts an identifier of 128 characters with $ and _", async () => {
    const identifier = `_a$${"b".repeat(125)}`;
    const res = await create({ identifier, name: "Long id" });
    expect(res.status).toBe(200);
    expect(res.body.data.project.identifier).toBe(identifier);
  });

  it("answers 415 MEDIA_NOT_SUPPORTED for a body that is not JSON", async () => {
    const res = await call("POST", "/ng/api/projects", { raw: "project: {}", contentType: "text/plain" });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(failureBody("MEDIA_NOT_SUPPORTED", "HTTP 415 Unsupported Media Type"));
  });

  it("answers 400 for malformed JSON", async () => {
    const res = await call("POST", "/ng/api/projects", { raw: "{nope", contentType: "application/json" });
    let parseError = "";
    try {
      JSON.parse("{nope");
    } catch (err) {
      parseError = (err as Error).message;
    }
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("INVALID_REQUEST", `Unable to process JSON: ${parseError}`));
  });
});

describe("GET /ng/api/projects/{identifier}", () => {
  beforeAll(async () => {
    await create({ identifier: "readable", name: "Readable", tags: { a: "b" } });
  });

  it("returns the project with its ETag", async () => {
    const res = await call("GET", "/ng/api/projects/readable", { query: { orgIdentifier: "default" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/0");
    expect(res.body).toEqual(
      successBody({
        project: {
          orgIdentifier: "default",
          identifier: "readable",
          name: "Readable",
          color: "#0063F7",
          modules: [...PROJECT_MODULES],
          description: "",
          tags: { a: "b" },
        },
        createdAt: expect.any(Number),
        lastModifiedAt: expect.any(Number),
        isFavorite: false,
      }),
    );
  });

  it("finds the identifier case-insensitively and defaults the organization", async () => {
    const res = await call("GET", "/ng/api/projects/READABLE");
    expect(res.status).toBe(200);
    expect(res.body.data.project.identifier).toBe("readable");
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const res = await call("GET", "/ng/api/projects/readable", { headers: { "if-none-match": "W/0" } });
    expect(res.status).toBe(304);
    expect(res.body).toBeNull();
  });

  it("answers 404 ENTITY_NOT_FOUND for a missing project", async () => {
    const res = await call("GET", "/ng/api/projects/missing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Project with orgIdentifier [default] and identifier [missing] not found",
      ),
    );
  });
});

describe("PUT /ng/api/projects/{identifier}", () => {
  it("replaces the whole project and moves the version and lastModifiedAt", async () => {
    dateAt(AT);
    const created = await create({
      identifier: "replace_me",
      name: "Before",
      color: "#111111",
      description: "d",
      tags: { a: "b" },
    });
    dateAt(AT + 2000);
    const res = await call("PUT", "/ng/api/projects/replace_me", {
      json: { project: { identifier: "replace_me", name: "After" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe("W/1");
    expect(res.body).toEqual(
      successBody({
        project: {
          orgIdentifier: "default",
          identifier: "replace_me",
          name: "After",
          color: "#0063F7",
          modules: [...PROJECT_MODULES],
          description: "",
          tags: {},
        },
        createdAt: AT,
        lastModifiedAt: AT + 2000,
        isFavorite: false,
      }),
    );
    expect(created.body.data).toMatchObject({ createdAt: AT, lastModifiedAt: AT });
    const read = await call("GET", "/ng/api/projects/replace_me");
    expect(read.body.data).toEqual(res.body.data);
    expect(read.headers.get("etag")).toBe("W/1");
  });

  it("answers 400 INVALID_REQUEST for a missing project", async () => {
    const res = await call("PUT", "/ng/api/projects/ghost", {
      json: { project: { identifier: "ghost", name: "Ghost" } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Project with identifier [ghost] and orgIdentifier [default] not found"),
    );
  });

  it("refuses a body identifier other than the path's", async () => {
    await create({ identifier: "path_id", name: "Path" });
    const res = await call("PUT", "/ng/api/projects/path_id", {
      json: { project: { identifier: "other_id", name: "Path" } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Value mismatch, previous: path_id current: other_id"),
    );
  });

  it("validates the body like create", async () => {
    const res = await call("PUT", "/ng/api/projects/path_id", {
      json: { project: { identifier: "path_id", name: "" } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationBody([
        ["project.name", "name cannot be empty."],
        [
          "project.name",
          "name can only contain alphanumeric, space, hyphen, underscore, dot and slash characters.",
        ],
      ]),
    );
  });

  it("honours If-Match: a stale version gives OPTIMISTIC_LOCKING_EXCEPTION, the current one passes", async () => {
    await create({ identifier: "locked", name: "Locked" });
    const body = { json: { project: { identifier: "locked", name: "Locked 2" } } };
    expect(
      (await call("PUT", "/ng/api/projects/locked", { ...body, headers: { "if-match": "0" } })).status,
    ).toBe(200);
    const stale = await call("PUT", "/ng/api/projects/locked", { ...body, headers: { "if-match": "0" } });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual(
      failureBody(
        "OPTIMISTIC_LOCKING_EXCEPTION",
        "Request failed as you have an older version of entity, please reload the page and try again.",
      ),
    );
    const etagForm = await call("PUT", "/ng/api/projects/locked", {
      ...body,
      headers: { "if-match": "W/1" },
    });
    expect(etagForm.status).toBe(200);
    expect(etagForm.headers.get("etag")).toBe("W/2");
    // Not a version at all: ignored, as the service ignores non-numeric values.
    expect(
      (await call("PUT", "/ng/api/projects/locked", { ...body, headers: { "if-match": "*" } })).status,
    ).toBe(200);
  });
});

describe("DELETE /ng/api/projects/{identifier}", () => {
  it("deletes the project and what lives in it, answering data: true", async () => {
    await create({ identifier: "doomed", name: "Doomed" });
    expect(
      (
        await call("POST", "/ng/api/connectors", {
          json: dockerConnector("reg", { org: "default", project: "doomed" }),
        })
      ).status,
    ).toBe(200);
    const pipe = await call("POST", "/pipeline/api/pipelines/v2", {
      yaml: simplePipeline("pipe", "doomed"),
      query: { orgIdentifier: "default", projectIdentifier: "doomed" },
    });
    expect(pipe.status).toBe(200);

    const res = await call("DELETE", "/ng/api/projects/doomed", { query: { orgIdentifier: "default" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(successBody(true));

    expect((await call("GET", "/ng/api/projects/doomed")).status).toBe(404);
    const connector = await call("GET", "/ng/api/connectors/reg", {
      query: { orgIdentifier: "default", projectIdentifier: "doomed" },
    });
    expect(connector.status).toBe(400);
    const pipeline = await call("GET", "/pipeline/api/pipelines/pipe", {
      query: { orgIdentifier: "default", projectIdentifier: "doomed" },
    });
    expect(pipeline.status).toBe(404);
    // A hard delete: the identifier can be used again.
    expect((await create({ identifier: "doomed", name: "Doomed again" })).status).toBe(200);
  });

  it("answers 404 ENTITY_NOT_FOUND for a missing project", async () => {
    const res = await call("DELETE", "/ng/api/projects/never_was");
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Project with identifier [never_was] does not exist in the specified scope",
      ),
    );
  });

  it("honours If-Match", async () => {
    await create({ identifier: "del_locked", name: "Del locked" });
    const stale = await call("DELETE", "/ng/api/projects/del_locked", { headers: { "if-match": "3" } });
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("OPTIMISTIC_LOCKING_EXCEPTION");
    expect(
      (await call("DELETE", "/ng/api/projects/del_locked", { headers: { "if-match": "0" } })).status,
    ).toBe(200);
  });
});

describe("GET /ng/api/projects (list)", () => {
  let list: HttpPlatform;
  beforeAll(async () => {
    list = await startPlatform();
    // Created a second apart, in this order: newest first is gamma, beta, alpha.
    for (const [i, [identifier, name]] of [
      ["alpha", "Zeta team"],
      ["beta", "Alpha team"],
      ["gamma", "Middle"],
    ].entries()) {
      dateAt(AT + i * 1000);
      expect(
        (await list.call("POST", "/ng/api/projects", { json: { project: { identifier, name } } })).status,
      ).toBe(200);
    }
    vi.useRealTimers();
  });
  afterAll(async () => {
    await list.emu.stop();
  });

  it("pages newest first in the NG page shape", async () => {
    const res = await list.call("GET", "/ng/api/projects", {
      query: { orgIdentifier: "default", pageSize: "2" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      successBody({
        totalPages: 2,
        totalItems: 3,
        pageItemCount: 2,
        pageSize: 2,
        content: [
          expect.objectContaining({
            project: expect.objectContaining({ identifier: "gamma" }),
            createdAt: AT + 2000,
            isFavorite: false,
          }),
          expect.objectContaining({
            project: expect.objectContaining({ identifier: "beta" }),
            createdAt: AT + 1000,
          }),
        ],
        pageIndex: 0,
        empty: false,
      }),
    );
    const second = await list.call("GET", "/ng/api/projects", { query: { pageSize: "2", pageIndex: "1" } });
    expect(
      second.body.data.content.map((p: { project: { identifier: string } }) => p.project.identifier),
    ).toEqual(["alpha"]);
    const past = await list.call("GET", "/ng/api/projects", { query: { pageSize: "2", pageIndex: "7" } });
    expect(past.body.data).toEqual({
      totalPages: 2,
      totalItems: 3,
      pageItemCount: 0,
      pageSize: 2,
      content: [],
      pageIndex: 7,
      empty: true,
    });
  });

  it("filters by searchTerm and identifiers and sorts by sortOrders", async () => {
    const ids = (r: { body: { data: { content: { project: { identifier: string } }[] } } }) =>
      r.body.data.content.map((p) => p.project.identifier);
    expect(ids(await list.call("GET", "/ng/api/projects", { query: { searchTerm: "TEAM" } }))).toEqual([
      "beta",
      "alpha",
    ]);
    expect(
      ids(await list.call("GET", "/ng/api/projects", { query: { identifiers: "alpha,gamma" } })),
    ).toEqual(["gamma", "alpha"]);
    expect(ids(await list.call("GET", "/ng/api/projects", { query: { sortOrders: "name,ASC" } }))).toEqual([
      "beta",
      "gamma",
      "alpha",
    ]);
    expect(ids(await list.call("GET", "/ng/api/projects", { query: { orgIdentifier: "other" } }))).toEqual(
      [],
    );
  });

  it("refuses a page index that is not a number", async () => {
    const res = await list.call("GET", "/ng/api/projects", { query: { pageIndex: "x" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody([["pageIndex", "must be a non-negative integer"]]));
  });
});
