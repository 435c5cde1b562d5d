/**
 * The platform API's two error shapes (ref §2) and its status mapping (ref §2.1, spec §7).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_STATUS } from "../../../emulator/errors";
import { errorBody as bodyOf } from "../../../emulator/http";
import {
  accessDenied,
  duplicateField,
  entityNotFound,
  invalidArgument,
  invalidRequest,
  invalidToken,
  invalidYaml,
  mediaNotSupported,
  optimisticLocking,
  type PlatformError,
  referencedEntity,
  resourceNotFound,
  validationFailure,
} from "../../../emulator/platform/errors";
import { errorBody, failureBody, type HttpPlatform, inProcessPlatform, startPlatform } from "./harness";

describe("over HTTP", () => {
  let platform: HttpPlatform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(async () => {
    await platform.emu.stop();
  });

  it("renders an ErrorDTO with exactly the fields of ref §2, message = responseMessages[0].message", async () => {
    const res = await platform.call("GET", "/ng/api/projects/none");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual([
      "status",
      "code",
      "message",
      "correlationId",
      "detailedMessage",
      "responseMessages",
      "metadata",
    ]);
    expect(Object.keys(res.body.responseMessages[0])).toEqual([
      "code",
      "level",
      "message",
      "exception",
      "failureTypes",
    ]);
    expect(res.body.message).toBe(res.body.responseMessages[0].message);
  });

  it("renders a FailureDTO with exactly the fields of ref §2", async () => {
    const res = await platform.call("POST", "/ng/api/projects", { json: { project: { identifier: "ok" } } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["status", "code", "message", "correlationId", "errors"]);
    expect(res.body).toEqual(
      failureBody("INVALID_REQUEST", "project.name: name is required", [
        { fieldId: "name", error: "name is required" },
      ]),
    );
  });

  it("carries the request's correlation id, a new one each request, also in the X-Transaction-Id header", async () => {
    const a = await platform.call("GET", "/ng/api/projects/none");
    const b = await platform.call("GET", "/ng/api/projects/none");
    expect(a.body.correlationId).toBe(a.headers.get("x-transaction-id"));
    expect(b.body.correlationId).toBe(b.headers.get("x-transaction-id"));
    expect(a.body.correlationId).not.toBe(b.body.correlationId);
    const ok = await platform.call("POST", "/ng/api/projects", {
      json: { project: { identifier: "corr", name: "corr" } },
    });
    expect(ok.body.correlationId).toBe(ok.headers.get("x-transaction-id"));
  });

  it.each([
    ["GET", "/ng/api/organisations", "HTTP 404 Not Found"],
    ["GET", "/ng/api/projects/a/b", "HTTP 404 Not Found"],
    ["GET", "/pipeline/api/templates", "HTTP 404 Not Found"],
    ["PATCH", "/ng/api/projects/a", "HTTP 405 Method Not Allowed"],
    ["DELETE", "/ng/api/connectors", "HTTP 405 Method Not Allowed"],
    ["GET", "/pipeline/api/pipelines/v2/p", "HTTP 405 Method Not Allowed"],
  ])(
    "answers %s %s like Jersey: 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION %s",
    async (method, path, message) => {
      const res = await platform.call(method, path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(failureBody("RESOURCE_NOT_FOUND_EXCEPTION", message));
    },
  );
});

describe("error factories", () => {
  it.each<[string, PlatformError, number, "ERROR" | "FAILURE", string]>([
    ["invalidRequest", invalidRequest("m"), 400, "ERROR", "INVALID_REQUEST"],
    ["invalidArgument", invalidArgument("m"), 400, "ERROR", "INVALID_ARGUMENT"],
    ["duplicateField", duplicateField("m"), 400, "ERROR", "DUPLICATE_FIELD"],
    ["entityNotFound", entityNotFound("m"), 404, "ERROR", "ENTITY_NOT_FOUND"],
    ["accessDenied", accessDenied("m"), 403, "ERROR", "NG_ACCESS_DENIED"],
    ["invalidToken", invalidToken(), 401, "ERROR", "INVALID_TOKEN"],
    ["invalidYaml", invalidYaml("m"), 400, "ERROR", "INVALID_YAML_ERROR"],
    ["referencedEntity", referencedEntity("m"), 400, "ERROR", "ENTITY_REFERENCE_EXCEPTION"],
    ["resourceNotFound", resourceNotFound("m"), 400, "FAILURE", "RESOURCE_NOT_FOUND_EXCEPTION"],
    ["mediaNotSupported", mediaNotSupported(), 415, "FAILURE", "MEDIA_NOT_SUPPORTED"],
    ["optimisticLocking", optimisticLocking(), 400, "FAILURE", "OPTIMISTIC_LOCKING_EXCEPTION"],
  ])("%s answers %i in the %s shape with code %s", (_name, err, status, shape, code) => {
    expect(err.status).toBe(status);
    expect(err.shape).toBe(shape);
    expect(err.code).toBe(code);
    expect(ERROR_CODE_STATUS[err.code]).toBe(status);
    const body = bodyOf(err, "platform", "c1");
    expect(body).toEqual(shape === "ERROR" ? errorBody(code, err.message) : failureBody(code, err.message));
    expect(body?.correlationId).toBe("c1");
  });

  it("names each violated field by the last node of its path, as JerseyViolationExceptionMapperV2 does", () => {
    const err = validationFailure([
      { path: "connector.spec.auth.type", message: "bad" },
      { path: "accountIdentifier", message: "must not be null" },
    ]);
    expect(bodyOf(err, "platform", "c2")).toEqual({
      status: "FAILURE",
      code: "INVALID_REQUEST",
      message: "connector.spec.auth.type: bad, accountIdentifier: must not be null",
      correlationId: "c2",
      errors: [
        { fieldId: "type", error: "bad" },
        { fieldId: "accountIdentifier", error: "must not be null" },
      ],
    });
  });

  it("renders an unexpected failure as a 500 UNKNOWN_ERROR ErrorDTO", async () => {
    const platform = await inProcessPlatform({
      commit: async () => {
        throw new Error("disk on fire");
      },
    });
    const res = await platform.call("POST", "/ng/api/projects", {
      json: { project: { identifier: "x", name: "x" } },
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual(
      errorBody("UNKNOWN_ERROR", "Oops, something went wrong on our end: disk on fire"),
    );
  });
});
