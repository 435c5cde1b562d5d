/**
 * Definitions that would misbehave in every SDK that evaluates them are refused before anything is
 * sent (issue 14, group 1): inverted `BETWEEN_NUMBER` / `BETWEEN_DATE` ranges (they match nothing)
 * and `MATCHES_STRING` patterns that do not compile or can backtrack catastrophically (each
 * evaluation on a crafted attribute value would stall the service that evaluates the flag).
 *
 * Both entry points that take a definition are driven: the provider's `check` (a failure naming the
 * field, no request) and the admin client (a ValidationError naming the field, no request: the
 * emulator's request log is reset before each case and read after it).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { AdminClient, ValidationError } from "../../sdk";
import type { Workspace } from "../../sdk/admin/schemas";
import { regexProblem } from "../../sdk/split/regex-safety";
import type { Driver } from "../provider/harness";
import { configureDirect, drivers, stackConfig } from "./kinds";

let emu: Emulator;
let admin: AdminClient;
let ws: Workspace;
let FlagDefinition: Driver;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  configureDirect(stackConfig(emu));
  FlagDefinition = (await drivers("direct")).FlagDefinition;
  admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  ws = (await admin.workspaces.getByName("Default"))!;
  await admin.flags.create(ws.id, "user", { name: "checked" });
});
afterAll(async () => {
  await emu?.stop();
});
beforeEach(() => {
  emu.resetRequests();
});

/** A definition whose second matcher of its first rule is `matcher`. */
function definition(matcher: Record<string, unknown>) {
  return {
    treatments: [{ name: "on" }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [{ treatment: "off", size: 100 }],
    rules: [
      {
        buckets: [{ treatment: "on", size: 100 }],
        condition: {
          matchers: [
            { type: "EQUAL_NUMBER", attribute: "age", number: 1 },
            { attribute: "a", ...matcher },
          ],
        },
      },
    ],
  };
}

/** Checks `matcher` through the provider's check and the admin client; returns the one reason. */
async function refused(matcher: Record<string, unknown>, field: "between" | "string"): Promise<string> {
  const def = definition(matcher);
  const checked = await FlagDefinition.check(
    {},
    { workspace: "Default", flag: "checked", environment: "Production", ...def },
  );
  expect(checked.failures).toHaveLength(1);
  const [failure] = checked.failures;
  expect(failure!.property).toBe(`rules[0].condition.matchers[1].${field}`);

  const e = await admin.definitions.create(ws.id, "checked", "Production", def as never).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ValidationError);
  expect((e as ValidationError).fieldErrors).toEqual([
    { field: `rules[0].condition.matchers[1].${field}`, message: failure!.reason },
  ]);
  expect((e as ValidationError).message).toBe(
    `POST /internal/api/v2/splits/ws/{wsId}/{flag}/environments/{environment}: invalid definition: rules[0].condition.matchers[1].${field}: ${failure!.reason}`,
  );
  expect(emu.requests()).toEqual([]);
  return failure!.reason;
}

const BACKTRACKS = "which can backtrack catastrophically (exponential time on a non-matching value)";

describe("inverted ranges", () => {
  it("a BETWEEN_NUMBER matcher with from > to is refused before any request, naming rules[0].condition.matchers[1].between", async () => {
    expect(await refused({ type: "BETWEEN_NUMBER", between: { from: 10, to: 5 } }, "between")).toBe(
      "between.from (10) is greater than between.to (5): an inverted range matches nothing",
    );
  });

  it("a BETWEEN_DATE matcher with from after to is refused before any request, naming the field", async () => {
    const from = Date.UTC(2026, 4, 1);
    const to = Date.UTC(2026, 3, 1);
    expect(await refused({ type: "BETWEEN_DATE", between: { from, to } }, "between")).toBe(
      "between.from (2026-05-01T00:00:00.000Z) is after between.to (2026-04-01T00:00:00.000Z): an inverted range matches nothing",
    );
  });

  it("ranges in order, and a range of one value, are accepted", async () => {
    for (const between of [
      { from: 5, to: 10 },
      { from: 7, to: 7 },
    ]) {
      const r = await FlagDefinition.check(
        {},
        {
          workspace: "Default",
          flag: "checked",
          environment: "Production",
          ...definition({ type: "BETWEEN_NUMBER", between }),
        },
      );
      expect(r.failures).toEqual([]);
    }
  });
});

describe("MATCHES_STRING patterns", () => {
  it("a pattern that does not compile is refused before any request", async () => {
    expect(await refused({ type: "MATCHES_STRING", string: "([a-z" }, "string")).toBe(
      "string is not a valid regular expression: ([a-z",
    );
  });

  it.each([
    [
      "(a+)+",
      `nested quantifiers: "(a+)+" repeats "a+" with nothing to mark where one repetition ends, ${BACKTRACKS}`,
    ],
    [
      "^(a*)*$",
      `nested quantifiers: "(a*)*" repeats "a*" with nothing to mark where one repetition ends, ${BACKTRACKS}`,
    ],
    ["(a|a)*", `alternatives "a" and "a" of the repeated "(a|a)*" can match the same text, ${BACKTRACKS}`],
    [
      "^(a|aa)+$",
      `alternatives "a" and "aa" of the repeated "(a|aa)+" can match the same text, ${BACKTRACKS}`,
    ],
    [
      "^(\\s*,\\s*)+$",
      `nested quantifiers: "(\\\\s*,\\\\s*)+" repeats "\\\\s*" and "\\\\s*" with nothing between them that marks where one ends, ${BACKTRACKS}`,
    ],
    [
      "^[a-z]+@(([a-z])+.)+com$",
      `nested quantifiers: "(([a-z])+.)+" repeats "([a-z])+" with nothing to mark where one repetition ends, ${BACKTRACKS}`,
    ],
  ])("the catastrophic-backtracking pattern %s is refused before any request", async (pattern, why) => {
    expect(await refused({ type: "MATCHES_STRING", string: pattern }, "string")).toBe(
      `string is not a safe regular expression: ${pattern}: ${why}`,
    );
  });

  it("patterns used in targeting rules (anchored, separated repetitions) are accepted", async () => {
    for (const pattern of [
      "^[a-z0-9._%+-]+@example\\.com$",
      "^([a-z0-9-]+\\.)+example\\.com$",
      "^(\\d{1,3}\\.){3}\\d{1,3}$",
      "^user-[0-9]+$",
      ".*beta.*",
      "(ab?)+",
      "^(a|ab)*c$",
      "\\bcheckout\\b",
    ]) {
      expect([pattern, regexProblem(pattern)]).toEqual([pattern, undefined]);
    }
    const r = await FlagDefinition.check(
      {},
      {
        workspace: "Default",
        flag: "checked",
        environment: "Production",
        ...definition({ type: "MATCHES_STRING", string: "^([a-z0-9-]+\\.)+example\\.com$" }),
      },
    );
    expect(r.failures).toEqual([]);
  });
});
