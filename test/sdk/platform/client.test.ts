import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { ApiError, ConflictError, NotFoundError, ValidationError } from "../../../sdk/core/errors";
import { ConfigurationError } from "../../../sdk/core/options";
import { closeSharedPools } from "../../../sdk/core/pool";
import { PlatformClient } from "../../../sdk/platform/client";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

let emu: Emulator;
let rec: Recorder;
let platform: PlatformClient;
let acct: string;

const seen = () =>
  emu.requests().map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} ${r.status}`);
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};
const sentBody = (i = 0) => JSON.parse(rec.sent[i]!.body!);

const dockerSpec = {
  dockerRegistryUrl: "https://index.docker.io/v2/",
  providerType: "DockerHub",
  auth: { type: "Anonymous" },
};
const pipelineYaml = (id: string, project: string, name = id) => `pipeline:
  name: ${name}
  identifier: ${id}
  projectIdentifier: ${project}
  orgIdentifier: default
  tags: {}
  stages:
    - stage:
        name: build
        identifier: build
        type: Custom
        spec:
          execution:
            steps:
              - step:
                  type: ShellScript
                  name: hello
                  identifier: hello
                  timeout: 10m
                  spec:
                    shell: Bash
                    onDelegate: true
                    source:
                      type: Inline
                      spec:
                        script: echo <+pipeline.name>
                    environmentVariables: []
                    outputVariables: []
`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  acct = emu.accountId;
  rec = recordingDispatcher();
  platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: acct,
    requestsPerSecond: Infinity,
    dispatcher: rec.dispatcher,
  });
});
beforeEach(() => {
  emu.resetRequests();
  rec.sent.length = 0;
});
afterAll(async () => {
  await emu.stop();
  await rec.close();
  await closeSharedPools();
});

describe("PlatformClient options", () => {
  it("needs an account id, naming the variable; falls back to the environment", () => {
    expect(() => new PlatformClient({ baseUrl: emu.url, apiKey: "k", env: {} })).toThrow(ConfigurationError);
    expect(() => new PlatformClient({ baseUrl: emu.url, apiKey: "k", env: {} })).toThrow(
      "PlatformClient: missing accountId: pass { accountId } or set FLAGSTACK_ACCOUNT_ID",
    );
    expect(() => new PlatformClient({ env: {} })).toThrow(
      "PlatformClient: missing base URL: pass { baseUrl } or set FLAGSTACK_PLATFORM_API_URL",
    );
    const c = new PlatformClient({
      env: {
        FLAGSTACK_PLATFORM_API_URL: emu.url,
        FLAGSTACK_PLATFORM_API_KEY: "k",
        FLAGSTACK_ACCOUNT_ID: "acc",
      },
    });
    expect(c.accountId).toBe("acc");
    expect(c.core.limiter.settings.requestsPerSecond).toBe(5);
  });

  it("sends the key as x-api-key (never as Authorization), and a wrong key is a 401", async () => {
    await collect(platform.projects.list());
    expect(rec.sent[0]!.headers["x-api-key"]).toBe(emu.platformKey);
    expect(rec.sent[0]!.headers.authorization).toBeUndefined();
    const bad = new PlatformClient({
      baseUrl: emu.url,
      apiKey: "pat.wrong",
      accountId: acct,
      requestsPerSecond: Infinity,
    });
    const p = bad.projects.get("anything");
    await expect(p).rejects.toBeInstanceOf(ApiError);
    await expect(p).rejects.toMatchObject({
      kind: "api",
      status: 401,
      apiMessage:
        "Token is not valid. (check the platform API key: option apiKey or FLAGSTACK_PLATFORM_API_KEY)",
    });
    expect(JSON.stringify(await p.catch((e: unknown) => e))).not.toContain("pat.wrong");
  });
});

describe("projects", () => {
  it("create sends {project} with the defaults, accountIdentifier and orgIdentifier", async () => {
    const data = await platform.projects.create({
      identifier: "proj_create",
      name: "Create Me",
      tags: { team: "pay" },
    });
    expect(data.project).toMatchObject({
      orgIdentifier: "default",
      identifier: "proj_create",
      name: "Create Me",
      color: "#0063F7",
      description: "",
      tags: { team: "pay" },
    });
    expect(data.createdAt).toBeGreaterThan(0);
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `/ng/api/projects?accountIdentifier=${acct}&orgIdentifier=default`,
    });
    expect(rec.sent[0]!.headers["content-type"]).toBe("application/json");
    expect(sentBody()).toEqual({
      project: {
        orgIdentifier: "default",
        identifier: "proj_create",
        name: "Create Me",
        color: "#0063F7",
        modules: [],
        description: "",
        tags: { team: "pay" },
      },
    });
  });

  it("a duplicate is a ConflictError (DUPLICATE_FIELD, 400) with the correlation id", async () => {
    await platform.projects.create({ identifier: "proj_dup", name: "Dup" });
    const p = platform.projects.create({ identifier: "proj_dup", name: "Dup" });
    await expect(p).rejects.toBeInstanceOf(ConflictError);
    const err = (await p.catch((e: unknown) => e)) as ConflictError;
    expect(err).toMatchObject({ status: 400, code: "DUPLICATE_FIELD", transactionId: undefined });
    expect(err.correlationId).toBeTruthy();
    expect(err.message).toBe(
      `POST /ng/api/projects: 400 A project with identifier [proj_dup] and orgIdentifier [default] is already present (correlation ${err.correlationId})`,
    );
  });

  it("refuses a bad identifier before sending, naming project.identifier", async () => {
    await expect(platform.projects.create({ identifier: "9bad", name: "x" })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [
        {
          field: "project.identifier",
          message:
            "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
        },
      ],
    });
    await expect(
      platform.projects.create({ identifier: "ok", name: "x", orgIdentifier: "a" }, { org: "b" }),
    ).rejects.toMatchObject({
      fieldErrors: [{ field: "orgIdentifier", message: 'orgIdentifier "a" differs from the org option "b"' }],
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("get, update (a full replace) and delete; a missing project is a NotFoundError", async () => {
    await platform.projects.create({ identifier: "proj_crud", name: "Crud" });
    rec.sent.length = 0;
    expect((await platform.projects.get("proj_crud")).project.name).toBe("Crud");
    const updated = await platform.projects.update("proj_crud", {
      identifier: "proj_crud",
      name: "Crud 2",
      color: "#112233",
    });
    expect(updated.project).toMatchObject({ name: "Crud 2", color: "#112233" });
    await expect(platform.projects.delete("proj_crud")).resolves.toBe(true);
    await expect(platform.projects.get("proj_crud")).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      platform.projects.update("proj_crud", { identifier: "proj_crud", name: "x" }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(rec.sent.slice(0, 3).map((s) => `${s.method} ${s.path}`)).toEqual([
      `GET /ng/api/projects/proj_crud?accountIdentifier=${acct}&orgIdentifier=default`,
      `PUT /ng/api/projects/proj_crud?accountIdentifier=${acct}&orgIdentifier=default`,
      `DELETE /ng/api/projects/proj_crud?accountIdentifier=${acct}&orgIdentifier=default`,
    ]);
    expect(sentBody(1)).toEqual({
      project: {
        orgIdentifier: "default",
        identifier: "proj_crud",
        name: "Crud 2",
        color: "#112233",
        modules: [],
        description: "",
        tags: {},
      },
    });
    expect(seen().slice(4)).toEqual([
      `GET /ng/api/projects/proj_crud?accountIdentifier=${acct}&orgIdentifier=default 404`,
      `PUT /ng/api/projects/proj_crud?accountIdentifier=${acct}&orgIdentifier=default 400`,
    ]);
  });

  it("update refuses a body naming another project", async () => {
    await expect(platform.projects.update("a", { identifier: "b", name: "x" })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [
        { field: "project.identifier", message: 'identifier "b" differs from the path identifier "a"' },
      ],
    });
  });

  it("list walks pages by pageIndex", async () => {
    for (let i = 0; i < 3; i++)
      await platform.projects.create({ identifier: `proj_list_${i}`, name: `L${i}` });
    emu.resetRequests();
    const all = await collect(platform.projects.list({ org: "default", pageSize: 2 }));
    expect(all.map((p) => p.project.identifier)).toEqual(
      expect.arrayContaining(["proj_list_0", "proj_list_1", "proj_list_2"]),
    );
    const pages = Math.ceil(all.length / 2);
    expect(seen()).toEqual(
      Array.from(
        { length: pages },
        (_, i) =>
          `GET /ng/api/projects?accountIdentifier=${acct}&orgIdentifier=default&pageIndex=${i}&pageSize=2 200`,
      ),
    );
    expect(() => platform.projects.list({ pageSize: 101 })).toThrow(ValidationError);
  });
});

describe("connectors", () => {
  beforeAll(async () => {
    await platform.projects.create({ identifier: "conn_proj", name: "Connectors" });
  });
  const body = (identifier: string, name = identifier) => ({
    identifier,
    name,
    orgIdentifier: "default",
    projectIdentifier: "conn_proj",
    type: "DockerRegistry",
    spec: dockerSpec,
  });
  const scope = { org: "default", project: "conn_proj" };

  it("create sends {connector} with accountIdentifier filled in", async () => {
    const data = await platform.connectors.create(body("docker_hub", "Docker Hub"));
    expect(data.connector).toMatchObject({
      identifier: "docker_hub",
      name: "Docker Hub",
      type: "DockerRegistry",
      spec: dockerSpec,
    });
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `/ng/api/connectors?accountIdentifier=${acct}`,
    });
    expect(sentBody()).toEqual({
      connector: { ...body("docker_hub", "Docker Hub"), description: "", accountIdentifier: acct, tags: {} },
    });
  });

  it("refuses a project without an org, and another account, before sending", async () => {
    await expect(
      platform.connectors.create({ ...body("x"), orgIdentifier: undefined }),
    ).rejects.toMatchObject({
      fieldErrors: [
        {
          field: "connector.orgIdentifier",
          message: "orgIdentifier is required when projectIdentifier is set",
        },
      ],
    });
    await expect(
      platform.connectors.create({ ...body("x"), accountIdentifier: "other" }),
    ).rejects.toMatchObject({
      fieldErrors: [
        {
          field: "accountIdentifier",
          message: `accountIdentifier "other" differs from the client's account "${acct}"`,
        },
      ],
    });
    expect(rec.sent).toHaveLength(0);
  });

  it("get, update, list, delete; a missing one (400 RESOURCE_NOT_FOUND_EXCEPTION) is a NotFoundError", async () => {
    await platform.connectors.create(body("c_crud"));
    rec.sent.length = 0;
    expect((await platform.connectors.get("c_crud", scope)).connector.name).toBe("c_crud");
    expect((await platform.connectors.update(body("c_crud", "Renamed"))).connector.name).toBe("Renamed");
    expect((await collect(platform.connectors.list(scope))).map((c) => c.connector.identifier)).toContain(
      "c_crud",
    );
    await expect(platform.connectors.delete("c_crud", scope)).resolves.toBe(true);
    const p = platform.connectors.get("c_crud", scope);
    await expect(p).rejects.toBeInstanceOf(NotFoundError);
    await expect(p).rejects.toMatchObject({ status: 400, code: "RESOURCE_NOT_FOUND_EXCEPTION" });
    await expect(platform.connectors.delete("c_crud", scope)).rejects.toBeInstanceOf(NotFoundError);
    const q = `accountIdentifier=${acct}&orgIdentifier=default&projectIdentifier=conn_proj`;
    expect(rec.sent.slice(0, 4).map((s) => `${s.method} ${s.path}`)).toEqual([
      `GET /ng/api/connectors/c_crud?${q}`,
      `PUT /ng/api/connectors?accountIdentifier=${acct}`,
      `GET /ng/api/connectors?${q}&pageIndex=0&pageSize=100`,
      `DELETE /ng/api/connectors/c_crud?${q}`,
    ]);
    expect(sentBody(1).connector.name).toBe("Renamed");
  });

  it("a duplicate identifier is a ConflictError (INVALID_REQUEST 'already exists')", async () => {
    await platform.connectors.create(body("c_dup"));
    await expect(platform.connectors.create(body("c_dup"))).rejects.toBeInstanceOf(ConflictError);
  });
});

describe("pipelines", () => {
  beforeAll(async () => {
    await platform.projects.create({ identifier: "pipe_proj", name: "Pipelines" });
  });
  const scope = { org: "default", project: "pipe_proj" };

  it("create sends the YAML verbatim with application/yaml and the three identifiers", async () => {
    const yaml = pipelineYaml("deploy", "pipe_proj");
    await expect(platform.pipelines.create(yaml, scope)).resolves.toMatchObject({ identifier: "deploy" });
    expect(rec.sent[0]).toMatchObject({
      method: "POST",
      path: `/pipeline/api/pipelines/v2?accountIdentifier=${acct}&orgIdentifier=default&projectIdentifier=pipe_proj`,
      body: yaml,
    });
    expect(rec.sent[0]!.headers["content-type"]).toBe("application/yaml");
  });

  it("get returns the stored YAML; update replaces it; delete; a missing one is a NotFoundError", async () => {
    const yaml = pipelineYaml("crud", "pipe_proj");
    await platform.pipelines.create(yaml, scope);
    expect((await platform.pipelines.get("crud", scope)).yamlPipeline).toBe(yaml);
    const changed = pipelineYaml("crud", "pipe_proj", "renamed");
    await expect(platform.pipelines.update("crud", changed, scope)).resolves.toMatchObject({
      identifier: "crud",
    });
    expect((await platform.pipelines.get("crud", scope)).yamlPipeline).toBe(changed);
    await expect(platform.pipelines.delete("crud", scope)).resolves.toBe(true);
    await expect(platform.pipelines.get("crud", scope)).rejects.toBeInstanceOf(NotFoundError);
    const q = `accountIdentifier=${acct}&orgIdentifier=default&projectIdentifier=pipe_proj`;
    expect(seen().slice(1)).toEqual([
      `GET /pipeline/api/pipelines/crud?${q} 200`,
      `PUT /pipeline/api/pipelines/v2/crud?${q} 200`,
      `GET /pipeline/api/pipelines/crud?${q} 200`,
      `DELETE /pipeline/api/pipelines/crud?${q} 200`,
      `GET /pipeline/api/pipelines/crud?${q} 404`,
    ]);
  });

  it("renders an object to YAML", async () => {
    const obj = {
      pipeline: {
        name: "obj",
        identifier: "obj",
        projectIdentifier: "pipe_proj",
        orgIdentifier: "default",
        tags: {},
        stages: [],
      },
    };
    const p = platform.pipelines.create(obj, scope);
    await p.catch(() => undefined); // the emulator may refuse an empty stage list; the request is what matters here
    expect(rec.sent[0]!.body).toBe(
      "pipeline:\n  name: obj\n  identifier: obj\n  projectIdentifier: pipe_proj\n  orgIdentifier: default\n  tags: {}\n  stages: []\n",
    );
  });

  it.each([
    ["broken YAML", "pipeline: [\n", "yaml"],
    ["a duplicate key", "pipeline:\n  name: a\n  name: b\n", "yaml"],
    ["no pipeline map", "stages: []\n", "yaml.pipeline"],
  ])("refuses %s before sending", async (_name, yaml, field) => {
    const p = platform.pipelines.create(yaml, scope);
    await expect(p).rejects.toBeInstanceOf(ValidationError);
    await expect(p).rejects.toMatchObject({ fieldErrors: [{ field }] });
    expect(rec.sent).toHaveLength(0);
  });

  it("requires org and project", async () => {
    await expect(platform.pipelines.get("x", { org: "", project: "" })).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [
        { field: "org", message: "org is required (the pipeline's orgIdentifier)" },
        { field: "project", message: "project is required (the pipeline's projectIdentifier)" },
      ],
    });
  });

  it("list walks the filtered pages by page, sending the filter body with filterType PipelineSetup", async () => {
    await platform.projects.create({ identifier: "list_proj", name: "Listing" });
    const listScope = { org: "default", project: "list_proj" };
    for (const id of ["l_one", "l_two", "l_three", "other"])
      await platform.pipelines.create(pipelineYaml(id, "list_proj", `${id} name`), listScope);
    emu.resetRequests();
    rec.sent.length = 0;
    const found = await collect(
      platform.pipelines.list({
        ...listScope,
        filter: { pipelineIdentifiers: ["l_one", "l_two", "l_three"] },
        sort: "identifier,ASC",
        pageSize: 2,
      }),
    );
    expect(found.map((p) => [p.identifier, p.name, p.numOfStages, p.stageNames, p.version])).toEqual([
      ["l_one", "l_one name", 1, ["build"], 0],
      ["l_three", "l_three name", 1, ["build"], 0],
      ["l_two", "l_two name", 1, ["build"], 0],
    ]);
    const q = `accountIdentifier=${acct}&orgIdentifier=default&projectIdentifier=list_proj&sort=identifier%2CASC&size=2`;
    expect(seen()).toEqual([
      `POST /pipeline/api/pipelines/list?${q}&page=0 200`,
      `POST /pipeline/api/pipelines/list?${q}&page=1 200`,
    ]);
    expect(sentBody(0)).toEqual({
      pipelineIdentifiers: ["l_one", "l_two", "l_three"],
      filterType: "PipelineSetup",
    });
    expect(rec.sent[0]!.headers["content-type"]).toBe("application/json");
    const searched = await collect(platform.pipelines.list({ ...listScope, searchTerm: "OTHER" }));
    expect(searched.map((p) => p.identifier)).toEqual(["other"]);
    expect(sentBody(2)).toEqual({ filterType: "PipelineSetup" });
  });

  it("list refuses bad options before any request", async () => {
    expect(() => platform.pipelines.list({ ...scope, pageSize: 101 })).toThrow(ValidationError);
    expect(() =>
      platform.pipelines.list({ ...scope, filter: { pipelineIdentifiers: "l_one" as unknown as string[] } }),
    ).toThrow(
      expect.objectContaining({
        kind: "validation",
        fieldErrors: [{ field: "filter.pipelineIdentifiers", message: expect.any(String) }],
      }),
    );
    expect(() => platform.pipelines.list({ org: "default", project: "" })).toThrow(
      expect.objectContaining({
        fieldErrors: [
          { field: "project", message: "project is required (the pipeline's projectIdentifier)" },
        ],
      }),
    );
    expect(rec.sent).toHaveLength(0);
  });

  it("a duplicate is a ConflictError; a YAML for another project is refused by the server with its field errors", async () => {
    await platform.pipelines.create(pipelineYaml("dup", "pipe_proj"), scope);
    await expect(platform.pipelines.create(pipelineYaml("dup", "pipe_proj"), scope)).rejects.toBeInstanceOf(
      ConflictError,
    );
    const p = platform.pipelines.create(pipelineYaml("other", "elsewhere"), scope);
    await expect(p).rejects.toMatchObject({ kind: "api", status: 400 });
  });
});
