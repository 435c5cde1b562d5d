/**
 * Naming the parameter a dot segment stands in (issue 14): the first route of the same method
 * whose literal segments match, else one of another method, else `path`. Requests against a real
 * server are in `test/reliability/emulator-dot-segments.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { parameterAt } from "../../../emulator/middleware/path-guard";

const routes = [
  { method: "ALL", path: "/internal/api/v2/*" },
  { method: "GET", path: "/internal/api/v2/splits/ws/:ws/:flag" },
  { method: "DELETE", path: "/internal/api/v2/splits/ws/:ws/:flag" },
  { method: "DELETE", path: "/internal/api/v2/splits/ws/:ws/:flag/environments/:env" },
  { method: "GET", path: "/ng/api/projects/:identifier" },
  { method: "GET", path: "/ng/api/items/:id{[0-9]+}" },
];
const segments = (path: string) => path.split("/").slice(1);

describe("parameterAt", () => {
  it.each([
    ["DELETE", "/internal/api/v2/splits/ws/w1/f/environments/..", 8, "env"],
    ["DELETE", "/internal/api/v2/splits/ws/w1/%2E%2E", 6, "flag"],
    ["DELETE", "/internal/api/v2/splits/ws/w1/f/environments/../", 8, "env"],
    ["HEAD", "/internal/api/v2/splits/ws/./f", 5, "ws"],
    ["PUT", "/ng/api/projects/..", 3, "identifier"],
    ["GET", "/ng/api/items/..", 3, "id"],
    ["DELETE", "/internal/api/v2/splits/ws/w1/f/%2e%2e/f", 7, "path"],
    ["GET", "/internal/api/v2/../v2/groups", 3, "path"],
  ])("%s %s: segment %i is %s", (method, path, index, name) => {
    expect(parameterAt(routes, method, segments(path), index)).toBe(name);
  });
});
