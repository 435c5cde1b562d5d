import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOrAdopt,
  deleteIdempotent,
  GONE,
  PartialFailure,
  readOrGone,
} from "../../../provider/core/lifecycle";
import { ApiError, ConflictError, NetworkError, NotFoundError } from "../../../sdk/core/errors";
import { HostError, type ProviderHost, serializeProvider, startProviderHost } from "../harness";

const init = (status: number) => ({
  status,
  method: "POST",
  url: "http://127.0.0.1:1/internal/api/v2/groups",
  message: "m",
});
const notFound = () => new NotFoundError(init(404));
const conflict = () => new ConflictError(init(409));
const lost = () => new NetworkError({ ...init(0), outcomeUnknown: true });

describe("readOrGone / deleteIdempotent", () => {
  it("maps a NotFoundError to gone and to done", async () => {
    await expect(readOrGone(() => Promise.reject(notFound()))).resolves.toBeUndefined();
    await expect(deleteIdempotent(() => Promise.reject(notFound()))).resolves.toBeUndefined();
  });

  it("passes other errors through", async () => {
    await expect(readOrGone(() => Promise.reject(conflict()))).rejects.toMatchObject({ kind: "conflict" });
    await expect(deleteIdempotent(() => Promise.reject(new ApiError(init(500))))).rejects.toMatchObject({
      status: 500,
    });
  });
});

describe("deleteIdempotent with a confirming read", () => {
  const refused = () => new ApiError(init(400));
  it("a refusal of a delete whose object the read finds gone is success", async () => {
    await expect(
      deleteIdempotent(
        () => Promise.reject(refused()),
        () => Promise.reject(notFound()),
      ),
    ).resolves.toBeUndefined();
  });

  it("a refusal of a delete whose object is still there is the delete's error", async () => {
    await expect(
      deleteIdempotent(
        () => Promise.reject(refused()),
        () => Promise.resolve({}),
      ),
    ).rejects.toMatchObject({
      status: 400,
    });
  });

  it.each([
    ["a 500", new ApiError(init(500))],
    ["a lost answer", lost()],
  ])("%s is never taken as gone, and the object is not read", async (_label, error) => {
    let reads = 0;
    const read = async () => {
      reads++;
      throw notFound();
    };
    await expect(deleteIdempotent(() => Promise.reject(error), read)).rejects.toBe(error);
    expect(reads).toBe(0);
  });
});

describe("createOrAdopt", () => {
  const calls: string[] = [];
  const spec = (opts: {
    exists?: boolean;
    createFails?: () => Error;
    adopt?: boolean;
    appearsAfterCreate?: boolean;
  }) => {
    calls.length = 0;
    let created = false;
    return {
      describe: 'a group named "g"',
      adopt: opts.adopt,
      lookup: async () => {
        calls.push("lookup");
        return opts.exists || (created && opts.appearsAfterCreate) ? "existing" : undefined;
      },
      create: async () => {
        calls.push("create");
        if (opts.createFails && calls.filter((c) => c === "create").length === 1) {
          created = true;
          throw opts.createFails();
        }
        return "new";
      },
    };
  };

  it("creates", async () => {
    expect(await createOrAdopt(spec({}))).toEqual({ value: "new", how: "created" });
    expect(calls).toEqual(["create"]);
  });

  it("adopts an existing object with one lookup and no create", async () => {
    expect(await createOrAdopt(spec({ exists: true, adopt: true }))).toEqual({
      value: "existing",
      how: "adopted",
    });
    expect(calls).toEqual(["lookup"]);
  });

  it("recovers a create whose response was lost by looking it up, never creating twice", async () => {
    expect(await createOrAdopt(spec({ createFails: lost, appearsAfterCreate: true }))).toEqual({
      value: "existing",
      how: "recovered",
    });
    expect(calls).toEqual(["create", "lookup"]);
  });

  it("sends the create again when the lost create did not happen", async () => {
    expect(await createOrAdopt(spec({ createFails: lost }))).toEqual({ value: "new", how: "created" });
    expect(calls).toEqual(["create", "lookup", "create"]);
  });

  it("names the object, the adopt input and flagstack recover (an interrupted run's object) on a duplicate", async () => {
    await expect(createOrAdopt(spec({ createFails: conflict }))).rejects.toThrow(
      'a group named "g" already exists. Set `adopt: true` on the resource to manage the existing one, or choose another name. ' +
        "If an interrupted `pulumi up` (killed, or stopped by a CI timeout) may have made it, run `npx flagstack recover`: " +
        "it takes the objects of that run into the state. (",
    );
  });

  it("adopts on a duplicate that appeared after the lookup (a race)", async () => {
    const s = spec({ createFails: conflict, adopt: true, appearsAfterCreate: true });
    expect(await createOrAdopt(s)).toEqual({ value: "existing", how: "adopted" });
    expect(calls).toEqual(["lookup", "create", "lookup"]);
  });
});

describe("through the real dynamic-provider host", () => {
  let host: ProviderHost;
  let text: string;
  const provider = {
    async create() {
      throw new (require("flagstack/provider/core/lifecycle").PartialFailure)(
        "id-1",
        { a: 1 },
        new Error("kill failed"),
        "killing the flag",
      );
    },
    async read() {
      return require("flagstack/provider/core/lifecycle").GONE;
    },
  };

  beforeAll(async () => {
    host = await startProviderHost();
    text = (await serializeProvider(provider)).text;
  });
  afterAll(async () => {
    await host?.stop();
  });

  it("GONE ({}) reaches the engine as an empty id: refresh removes the resource (pinned shape)", async () => {
    expect(GONE).toEqual({});
    const res = await host.read("id-1", { __provider: text, a: 1 });
    expect(res).toEqual({ id: "", properties: { __provider: text }, inputs: undefined });
  });

  it("a PartialFailure reaches the engine as ErrorResourceInitFailed with the id and outputs", async () => {
    const error = await host.create({ __provider: text }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostError);
    expect(error).toMatchObject({
      message: "killing the flag failed after the object was created (id id-1): kill failed",
      initFailed: { id: "id-1", properties: { a: 1 }, reasons: ["killing the flag: kill failed"] },
    });
    expect(new PartialFailure("x", {}, "why", "step").reasons).toEqual(["step: why"]);
  });
});
